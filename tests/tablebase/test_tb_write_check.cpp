// The check of a table just written (write_check.h): it passes what the writer wrote, in both
// forms of the format; it needs the writer's bounds; it finds a value the files do not hold,
// and, on its sample, a generator fault that the files hold faithfully.
#include <catch2/catch.hpp>

#include "tablebase/format/table_file.h"
#include "tablebase/generate/generator.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/generate/write_check.h"
#include "tb_test_tables.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

// KQvKR generated from the test tables (its subtables), as the generator hands it to the writer.
struct Generated {
    TableSet subtables;
    std::shared_ptr<TableValues> table;
};
const Generated& kqkr() {
    static const Generated g = [] {
        Generated out;
        const Material m = *Material::parse("KQvKR");
        std::string error;
        if (!load_subtables(test::test_tables_dir(), m, out.subtables, &error, 2)) throw std::runtime_error(error);
        GenerationOptions options;
        options.threads = 2;
        out.table = generate_table(m, out.subtables, options);
        return out;
    }();
    return g;
}

GenerationInfo form(bool compact, const TableSet& subtables) {
    GenerationInfo info{0.5, 2, &subtables};
    info.compact = compact;
    return info;
}

// Writes `written` into a fresh folder and checks the files there against `expected`, with the
// writer's bounds and (in `unbounded`, if given) without them.
WriteCheck write_and_check(const TableValues& written, const TableValues& expected, bool compact,
                           WriteCheck* unbounded = nullptr, fs::path* folder = nullptr) {
    const Generated& g = kqkr();
    const fs::path staging = test::scratch_dir(compact ? "write-check-compact" : "write-check");
    if (folder) *folder = staging;
    WrittenBounds bounds;
    std::string error;
    REQUIRE(write_table_files(written, staging, form(compact, g.subtables), &error, &bounds));
    const MovesSample moves = check_moves_sample(expected, g.subtables, 2);
    if (unbounded) *unbounded = check_written_table(staging, test::test_tables_dir(), expected, {}, moves, 2);
    return check_written_table(staging, test::test_tables_dir(), expected, bounds, moves, 2);
}

}  // namespace

TEST_CASE("the write check passes what the writer wrote, in both forms, and only with its bounds", "[tb][verify]") {
    const TableValues& t = *kqkr().table;
    for (bool compact : {false, true}) {
        INFO("compact " << compact);
        WriteCheck unbounded;
        fs::path staging;
        const WriteCheck c = write_and_check(t, t, compact, &unbounded, &staging);
        INFO(c.summary());
        CHECK(c.ok);
        // Every stored value: both WDL sections, and DTM and DTZ of the sides stored.
        CHECK(c.decoded > t.index.size());
        CHECK(c.probed == 2 * PROBER_SAMPLE);
        CHECK(c.sampled > 0);
        CHECK(c.sampled < t.index.size());  // a sample, not every position
        // Without the writer's bounds the values left to the reader (WDL a capture achieves;
        // in the compact form DTM too) are wrong where the writer stored something lower.
        CHECK_FALSE(unbounded.ok);
        CHECK(unbounded.decode_mismatches > 0);
        // The compact form leaves one side to move out: the prober's sample covered it.
        std::string error;
        auto f = TableFile::open(table_file_path(staging, t.index.material(), FileKind::DISTANCE), t.index,
                                 FileKind::DISTANCE, &error);
        REQUIRE(f);
        CHECK(f->left_out_side().has_value() == compact);
    }
}

TEST_CASE("the write check finds a value the files do not hold", "[tb][verify]") {
    const TableValues& t = *kqkr().table;
    TableValues other = t;
    uint64_t i = 0;
    while (!is_win(other.dtm[WHITE][i]) || distance_of(other.dtm[WHITE][i]) < 5) ++i;
    other.dtm[WHITE][i] = win_in(distance_of(other.dtm[WHITE][i]) + 2);
    // The files hold t; the values in memory say otherwise at one position.
    const WriteCheck c = write_and_check(t, other, false);
    INFO(c.summary());
    CHECK_FALSE(c.ok);
    CHECK(c.decode_mismatches == 1);
    REQUIRE_FALSE(c.examples.empty());
    CHECK_THAT(c.examples[0], Catch::Contains("DTM stored win in " + std::to_string(distance_of(t.dtm[WHITE][i]))));
}

TEST_CASE("the write check finds a DTZ the files do not hold, read through its DTM", "[tb][verify]") {
    const TableValues& t = *kqkr().table;
    for (bool compact : {false, true}) {
        INFO("compact " << compact);
        // One won position a side whose DTZ the memory holds two plies longer than the files.
        TableValues other = t;
        for (Color c : {WHITE, BLACK}) {
            uint64_t i = 0;
            while (i < t.index.size() && (!is_win(t.dtz[c][i]) || distance_of(t.dtz[c][i]) < 5)) ++i;
            REQUIRE(i < t.index.size());
            other.dtz[c][i] = win_in(distance_of(t.dtz[c][i]) + 2);
        }
        fs::path staging;
        const WriteCheck c = write_and_check(t, other, compact, nullptr, &staging);
        INFO(c.summary());
        CHECK_FALSE(c.ok);
        // Each DTZ section stored (the compact form leaves one side to move out) finds its one.
        std::string error;
        auto f = TableFile::open(table_file_path(staging, t.index.material(), FileKind::DISTANCE), t.index,
                                 FileKind::DISTANCE, &error);
        REQUIRE(f);
        CHECK(c.decode_mismatches == (f->left_out_side() ? 1u : 2u));
        REQUIRE_FALSE(c.examples.empty());
        CHECK_THAT(c.examples[0], Catch::Contains("DTZ stored"));
    }
}

TEST_CASE("the write check's sample catches a generator fault that the files hold faithfully", "[tb][verify]") {
    TableValues bad = *kqkr().table;
    uint64_t changed = 0;
    for (Value& v : bad.dtm[WHITE])
        if (is_win(v) && distance_of(v) >= 3) {
            v = win_in(distance_of(v) + 2);
            ++changed;
        }
    REQUIRE(changed > 1000);
    const WriteCheck c = write_and_check(bad, bad, false);
    INFO(c.summary());
    CHECK_FALSE(c.ok);
    CHECK(c.decode_mismatches == 0);  // the files hold what memory holds
    CHECK(c.probe_mismatches == 0);
    CHECK(c.inconsistent > 0);  // but the moves disagree
}
