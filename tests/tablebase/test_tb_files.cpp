// Table files: what is written is what is read back, for every entry of the 3-piece tables and
// of 4-piece tables; the statistics `tb info` shows; the checks that decide whether a table
// must be generated again.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "engine/core/movegen.h"
#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/generator.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_check.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/generate/verifier.h"
#include "tablebase/probe/tablebases.h"
#include "tablebase/probe/tb_board.h"
#include "tb_test_tables.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

// Generates `names` (dependencies first, all kept in memory) and writes them to `dir`.
TableSet generate_and_write(const std::vector<const char*>& names, const fs::path& dir) {
    return test::generate_and_write(names, dir, GenerationInfo{1.25, 2, nullptr});
}

// Index i of a table as a Position (no castling, no en passant).
bool to_position(const TableIndex& index, uint64_t i, Color stm, Position& pos) {
    const std::string fen = index_fen(index, i, stm);
    return !fen.empty() && pos.set_fen(fen);
}

}  // namespace

TEST_CASE("every value written is read back: 3-piece tables and 4-piece tables", "[tb][files]") {
    const fs::path dir = test::scratch_dir("roundtrip");
    // Light mode (sanitizers): one 4-piece table, the largest.
    const std::vector<const char*> names =
        test::light_mode()
            ? std::vector<const char*>{"KQvK", "KRvK", "KBvK", "KNvK", "KPvK", "KQvKR"}
            : std::vector<const char*>{"KQvK", "KRvK", "KBvK", "KNvK", "KPvK", "KQvKR", "KRvKR", "KBNvK", "KBBvK"};
    const TableSet generated = generate_and_write(names, dir);
    for (const char* name : names) {
        INFO(name);
        const Material m = *Material::parse(name);
        const TableValues* want = generated.find(m);
        REQUIRE(want);
        std::string error;
        REQUIRE(table_files_valid(dir, m, &error));
        auto got = load_table_with_subtables(dir, m, &error, 2);
        REQUIRE(got);
        for (Color c : {WHITE, BLACK}) {
            // Whole arrays, VALUE_ILLEGAL entries included: the loader marks them again.
            CHECK(got->dtm[c] == want->dtm[c]);
            CHECK(got->dtz[c] == want->dtz[c]);
        }
        // Loaded for conversions: the same DTM, and the DTZ's WDL, at every legal entry.
        auto lookups = load_table_with_subtables(dir, m, &error, 2, 3, LoadFor::CONVERSIONS);
        REQUIRE(lookups);
        for (Color c : {WHITE, BLACK}) {
            CHECK(lookups->dtz[c].empty());
            CHECK(test::differing_entries(*lookups, *want, c, true) == 0);
        }
    }
}

TEST_CASE("tables generated from subtables loaded for lookups equal those generated in memory", "[tb][files]") {
    // The generator reads a subtable only at positions after legal captures and promotions,
    // so subtables loaded without marking their illegal entries must give the same tables.
    const fs::path dir = test::scratch_dir("lookups");
    const std::vector<const char*> names = {"KQvK", "KRvK", "KBvK", "KNvK", "KPvK", "KQvKR"};
    const TableSet generated = generate_and_write(names, dir);
    for (const char* name : {"KPvK", "KQvKR"}) {
        INFO(name);
        const Material m = *Material::parse(name);
        TableSet subtables;
        std::string error;
        REQUIRE(load_subtables(dir, m, subtables, &error, 2));
        GenerationOptions options;
        options.threads = 2;
        auto again = generate_table(m, subtables, options);
        const TableValues& want = *generated.find(m);
        for (Color c : {WHITE, BLACK}) {
            CHECK(again->dtm[c] == want.dtm[c]);
            CHECK(again->dtz[c] == want.dtz[c]);
        }
    }
}

TEST_CASE("tb verify's WDL check accepts the written files and catches a wrong value", "[tb][files][verify]") {
    const fs::path dir = test::scratch_dir("verify-wdl");
    generate_and_write({"KQvKR"}, dir);
    const Material m = *Material::parse("KQvKR");
    std::string error;
    TableSet subtables;
    REQUIRE(load_subtables(dir, m, subtables, &error, 2));
    auto table = load_table_values(dir, m, &error, 2, 3, LoadFor::EVERY_POSITION, &subtables);
    REQUIRE(table);
    std::array<ValueArray, COLOR_NB> wdl;
    std::array<uint8_t, COLOR_NB> resolved{};
    REQUIRE(load_wdl_symbols(dir, m, wdl, resolved, &error, 2));
    CHECK(resolved[WHITE] == FLAG_CAPTURE_RESOLVED);  // no pawns: no promotions to leave out
    CHECK(resolved[BLACK] == FLAG_CAPTURE_RESOLVED);

    const VerifyReport ok = verify_wdl(*table, wdl, resolved, subtables, 2);
    CHECK(ok.mismatches == 0);
    CHECK(ok.positions == verify_table(*table, subtables, 2).positions);

    // The file leaves some positions low where a capture wins: without the capture search
    // each of them is a difference.
    uint64_t low = 0;
    for (Color c : {WHITE, BLACK})
        for (uint64_t i = 0; i < table->index.size(); ++i)
            low += !is_illegal(table->dtz[c][i]) && int(wdl[c][i]) - 2 < wdl_of_dtz(table->dtz[c][i]);
    REQUIRE(low > 0);
    CHECK(verify_wdl(*table, wdl, {0, 0}, subtables, 2).mismatches == low);

    // A stored value above the truth is wrong whatever the captures give.
    uint64_t victim = 0;
    while (is_illegal(table->dtz[BLACK][victim]) || wdl_of_dtz(table->dtz[BLACK][victim]) != 0 ||
           wdl[BLACK][victim] != wdl_symbol(0))
        ++victim;
    wdl[BLACK][victim] = wdl_symbol(2);
    const VerifyReport bad = verify_wdl(*table, wdl, resolved, subtables, 2);
    CHECK(bad.mismatches == 1);
    REQUIRE(bad.examples.size() == 1);
    CHECK(bad.examples[0].find("WDL file gives 2") != std::string::npos);
}

TEST_CASE("the prober reads what was written, WDL through captures included", "[tb][files][probe]") {
    const fs::path dir = test::scratch_dir("roundtrip-probe");
    const bool light = test::light_mode();  // sanitizers: fewer tables, smaller samples
    const std::vector<const char*> names = light ? std::vector<const char*>{"KQvK", "KRvK", "KPvK", "KQvKR"}
                                                 : std::vector<const char*>{"KQvK", "KRvK", "KPvK", "KQvKR", "KBNvK"};
    const TableSet generated = generate_and_write(names, dir);
    // Small WDL sections decoded into memory at open (the default), and every WDL probe read
    // from the file's PAIRS blocks, as for the large tables: from the files' copies in memory
    // (the default) or where they are mapped.
    for (const int mode : {0, 1, 2}) {
        const bool resident = mode == 0, copied = mode < 2;
        INFO((resident ? "WDL decoded at open"
              : copied ? "WDL read from the blocks"
                       : "WDL read from the mapped files"));
        Tablebases tbs;
        if (!resident) tbs.set_resident_wdl_budget(0);
        if (!copied) tbs.copy_wdl_files_to_memory(false);
        tbs.set_paths(dir.string());
        REQUIRE(tbs.max_pieces() == 4);
        tbs.open_wdl_files();
        // The copies hold at least the files' bytes.
        uint64_t wdl_bytes = 0;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().extension() == WDL_EXTENSION) wdl_bytes += entry.file_size();
        REQUIRE(wdl_bytes > 0);
        if (copied)
            CHECK(tbs.wdl_memory_bytes() >= wdl_bytes);
        else
            CHECK(tbs.wdl_memory_bytes() == 0);
        std::mt19937_64 rng(42);
        for (const char* name : names) {
            INFO(name);
            const TableValues& t = *generated.find(*Material::parse(name));
            const uint64_t n = t.index.size();
            // Every position of the 3-piece tables, a sample of 20000 of the 4-piece ones (light
            // mode: 5000 of each).
            const bool all = t.index.num_slots() == 3 && !light;
            const uint64_t sample = light ? 5000 : 20000;
            uint64_t checked = 0;
            for (uint64_t k = 0; k < (all ? n : sample); ++k) {
                const uint64_t i = all ? k : rng() % n;
                Placement p;
                if (!t.index.decode(i, p)) continue;
                for (Color c : {WHITE, BLACK}) {
                    if (is_illegal(t.dtm[c][i])) continue;
                    Position pos;
                    REQUIRE(to_position(t.index, i, c, pos));
                    auto r = tbs.probe(pos);
                    REQUIRE(r);
                    INFO(pos.fen());
                    REQUIRE(r->wdl == wdl_of_dtz(t.dtz[c][i]));
                    REQUIRE(r->dtz == t.dtz[c][i]);
                    REQUIRE(r->dtm == t.dtm[c][i]);
                    REQUIRE(tbs.probe_wdl(pos) == r->wdl);
                    ++checked;
                }
            }
            CHECK(checked > (all ? 40000u : sample / 2));
        }
        CHECK(tbs.refused_files().empty());
    }
}

TEST_CASE("the statistics in the WDL file describe the table", "[tb][files][info]") {
    const fs::path dir = test::scratch_dir("stats");
    const TableSet generated = generate_and_write({"KRvK", "KPvK"}, dir);
    for (const char* name : {"KRvK", "KPvK"}) {
        INFO(name);
        const Material m = *Material::parse(name);
        const TableValues& t = *generated.find(m);
        std::string error;
        auto f = TableFile::open(table_file_path(dir, m, FileKind::WDL), t.index, FileKind::WDL, &error);
        REQUIRE(f);
        REQUIRE(f->statistics());
        const TableStatistics& s = *f->statistics();
        CHECK(s.generation_seconds == 1.25);
        CHECK(s.generation_threads == 2);
        for (Color c : {WHITE, BLACK}) {
            uint64_t legal = 0, wdl[5] = {};
            int longest = 0;
            for (uint64_t i = 0; i < t.index.size(); ++i) {
                if (is_illegal(t.dtm[c][i])) continue;
                ++legal;
                ++wdl[wdl_of_dtz(t.dtz[c][i]) + 2];
                if (is_win(t.dtm[c][i])) longest = std::max(longest, distance_of(t.dtm[c][i]));
            }
            CHECK(s.side[c].legal == legal);
            for (int k = 0; k < 5; ++k) CHECK(s.side[c].wdl_count[k] == wdl[k]);
            CHECK(s.side[c].longest_dtm_win == longest);
            if (longest) {
                // The example is a position of that length.
                REQUIRE(s.side[c].longest_dtm_win_index < t.index.size());
                CHECK(t.dtm[c][s.side[c].longest_dtm_win_index] == win_in(longest));
                CHECK(!index_fen(t.index, s.side[c].longest_dtm_win_index, c).empty());
            }
        }
    }
    // Published facts: KRvK mate in 16 with White to move; 175,168 and 223,944 legal
    // placements of KRvK are over the whole board, the table stores one per symmetry class.
    auto f = TableFile::open(table_file_path(dir, *Material::parse("KRvK"), FileKind::WDL),
                             TableIndex(*Material::parse("KRvK")), FileKind::WDL, nullptr);
    REQUIRE(f);
    CHECK(f->statistics()->side[WHITE].longest_dtm_win == 31);
}

TEST_CASE("both files must come from one write, a missing one makes the table invalid", "[tb][files]") {
    const fs::path dir = test::scratch_dir("pairs");
    const fs::path other = test::scratch_dir("pairs-other");
    generate_and_write({"KQvK"}, dir);
    generate_and_write({"KQvK"}, other);
    const Material m = *Material::parse("KQvK");
    std::string why;
    CHECK(table_files_valid(dir, m, &why));
    // A DTM/DTZ file from another write of the same table.
    fs::copy_file(table_file_path(other, m, FileKind::DISTANCE), table_file_path(dir, m, FileKind::DISTANCE),
                  fs::copy_options::overwrite_existing);
    CHECK_FALSE(table_files_valid(dir, m, &why));
    CHECK(why.find("same write") != std::string::npos);
    fs::remove(table_file_path(dir, m, FileKind::DISTANCE));
    CHECK_FALSE(table_files_valid(dir, m, &why));
    CHECK(why.find("not found") != std::string::npos);
    CHECK(why.find("KQvK.pytd") != std::string::npos);
    // Neither file: a table not generated yet, invalid with nothing wrong to report.
    fs::remove(table_file_path(dir, m, FileKind::WDL));
    CHECK_FALSE(table_files_valid(dir, m, &why));
    CHECK(why.empty());
    // No temporary file is left behind by a write.
    for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().string().find(".tmp") == std::string::npos);
}

TEST_CASE("a table is stored only after it passes its check, and nothing is left of one that fails",
          "[tb][files][verify]") {
    const Material m = *Material::parse("KRvK");
    std::string error;
    TableSet subtables;  // KRvK converts into nothing stored (a captured rook leaves KvK)
    const auto table = test::load_with_subtables(test::test_tables_dir(), "KRvK", subtables);
    const GenerationInfo info = final_form(m, 0.5, 2, &subtables);
    CHECK_FALSE(info.compact);  // 3-4 pieces: both sides, exact DTM
    CHECK(final_form(*Material::parse("KRPvKR"), 0, 2, nullptr).compact);

    const fs::path dir = test::scratch_dir("checked-write");
    WriteCheck check;
    REQUIRE(write_checked_table(*table, dir, info, check_moves_sample(*table, subtables, 2), &check, &error));
    CHECK(check.ok);
    CHECK(check.decoded > 0);
    CHECK(check.sampled > 0);
    CHECK(table_files_valid(dir, m));

    // Wins two plies too long (a generator fault): consistent enough to be written, caught by
    // the check's sample of positions against their moves, before anything is written.
    TableValues bad = *table;
    for (Value& v : bad.dtm[WHITE])
        if (is_win(v) && distance_of(v) >= 5) v = win_in(distance_of(v) + 2);
    const fs::path other = test::scratch_dir("checked-write-bad");
    CHECK_FALSE(write_checked_table(bad, other, info, check_moves_sample(bad, subtables, 2), &check, &error));
    CHECK(error.find("KRvK: failed its check, not stored") == 0);
    CHECK(check.inconsistent >= 1);
    CHECK(fs::is_empty(other));  // neither file, nor the staging folder
}

TEST_CASE("a table whose DTM and DTZ disagree on win, draw or loss is not written", "[tb][files]") {
    const Material m = *Material::parse("KRvK");
    std::string error;
    TableSet subtables;
    const auto table = test::load_with_subtables(test::test_tables_dir(), "KRvK", subtables);
    const GenerationInfo info = final_form(m, 0.5, 2, &subtables);
    // The last position of a side whose DTM is `kind` (a win or a loss), and the last illegal one.
    auto last = [&](Color c, auto&& is) {
        for (uint64_t i = table->index.size(); i-- > 0;)
            if (is(table->dtm[c][i])) return i;
        FAIL("no such position");
        return uint64_t(0);
    };
    // A DTZ that says anything where the position is illegal is no disagreement.
    TableValues odd = *table;
    odd.dtz[BLACK][last(BLACK, is_illegal)] = win_in(3);
    const fs::path fine = test::scratch_dir("signs-fine");
    CHECK(write_table_files(odd, fine, info, &error));
    struct Case {
        Color side;
        bool (*is)(Value);
        Value dtz;
    };
    for (const Case& k : {Case{WHITE, is_win, VALUE_UNKNOWN}, Case{BLACK, is_loss, VALUE_UNKNOWN},
                          Case{BLACK, is_loss, win_in(5)}, Case{WHITE, is_win, loss_in(4)}}) {
        INFO(int(k.side) << " " << k.dtz);
        TableValues bad = *table;
        bad.dtz[k.side][last(k.side, k.is)] = k.dtz;
        const fs::path dir = test::scratch_dir("signs-disagree");
        CHECK_FALSE(write_table_files(bad, dir, info, &error));
        CHECK(error == "KRvK: DTM and DTZ disagree on win, draw or loss: not written");
        CHECK((!fs::exists(dir) || fs::is_empty(dir)));
    }
}
