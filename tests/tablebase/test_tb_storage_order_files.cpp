// Sections stored in other orders of the index digits, as the writer chooses them for the
// compact form of 5-piece tables: read back and probed exactly as generated; a bad order field
// is refused at load.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <random>

#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/generator.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/probe/tablebases.h"
#include "tb_test_tables.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

using test::fix_checksums;
using test::generate_and_write;
using test::read_bytes;
using test::write_bytes;

std::unique_ptr<TableFile> open_file(const fs::path& dir, const char* name, FileKind kind) {
    return test::open_table_file(dir, name, kind);
}

// Non-natural sections among the files of `names` in `dir`.
int reordered_sections(const fs::path& dir, const std::vector<const char*>& names) {
    int reordered = 0;
    for (const char* name : names)
        for (FileKind kind : {FileKind::WDL, FileKind::DISTANCE}) {
            const auto f = open_file(dir, name, kind);
            for (const Section& s : f->sections()) reordered += !s.order.natural();
        }
    return reordered;
}

}  // namespace

TEST_CASE("sections stored in chosen orders read back and probe as generated", "[tb][files][order]") {
    const bool light = test::light_mode();
    const std::vector<const char*> names =
        light ? std::vector<const char*>{"KRvK", "KPvK"} : std::vector<const char*>{"KRvK", "KPvK", "KQvKR"};
    GenerationInfo info;
    info.threads = 2;
    info.compact = true;
    const fs::path chosen_dir = test::scratch_dir("order-chosen");
    const TableSet generated = generate_and_write(names, chosen_dir, info);
    CHECK(reordered_sections(chosen_dir, names) > 0);

    for (const char* name : names) {
        INFO(name);
        std::string error;
        auto got = load_table_with_subtables(chosen_dir, *Material::parse(name), &error, 2);
        REQUIRE(got);
        const TableValues& t = *generated.find(*Material::parse(name));
        for (Color c : {WHITE, BLACK}) {
            CHECK(got->dtm[c] == t.dtm[c]);
            CHECK(got->dtz[c] == t.dtz[c]);
        }
    }

    // The prober, WDL decoded at open and read from the blocks: every position of the 3-piece
    // tables, a sample of the others.
    for (const bool resident : {true, false}) {
        INFO((resident ? "WDL decoded at open" : "WDL read from the blocks"));
        Tablebases tbs;
        if (!resident) tbs.set_resident_wdl_budget(0);
        tbs.set_paths(chosen_dir.string());
        std::mt19937_64 rng(5);
        for (const char* name : names) {
            INFO(name);
            const TableValues& t = *generated.find(*Material::parse(name));
            const uint64_t n = t.index.size();
            const bool all = t.index.num_slots() == 3;
            uint64_t checked = 0;
            for (uint64_t k = 0; k < (all ? n : 20000); ++k) {
                const uint64_t i = all ? k : rng() % n;
                for (Color c : {WHITE, BLACK}) {
                    if (is_illegal(t.dtm[c][i])) continue;
                    Position pos;
                    const std::string fen = index_fen(t.index, i, c);
                    REQUIRE(pos.set_fen(fen));
                    INFO(fen);
                    const auto r = tbs.probe(pos);
                    REQUIRE(r);
                    REQUIRE(r->wdl == wdl_of_dtz(t.dtz[c][i]));
                    REQUIRE(r->dtz == t.dtz[c][i]);
                    REQUIRE(r->dtm == t.dtm[c][i]);
                    REQUIRE(tbs.probe_wdl(pos) == r->wdl);
                    ++checked;
                }
            }
            CHECK(checked > 5000);
        }
        CHECK(tbs.refused_files().empty());
    }
}

TEST_CASE("a storage order that is no order of the table's digits, or not its DTM's, is refused",
          "[tb][files][order][badfiles]") {
    const fs::path dir = test::scratch_dir("order-bad");
    GenerationInfo info;
    info.threads = 2;
    info.compact = true;
    generate_and_write({"KPvK"}, dir, info);  // three digits: P K k
    const Material m = *Material::parse("KPvK");
    // Sets the storage order of the section for (metric, side) in a copy of `kind`'s file, and
    // returns why the file is refused ("" if it is not).
    auto refusal = [&](FileKind kind, Metric metric, Color side, uint32_t field) {
        const fs::path path = table_file_path(dir, m, kind);
        auto bytes = read_bytes(path);
        FileHeader h;
        std::memcpy(&h, bytes.data(), sizeof h);
        bool found = false;
        for (uint32_t n = 0; n < h.num_sections; ++n) {
            const size_t at = sizeof h + n * sizeof(SectionHeader);
            SectionHeader s;
            std::memcpy(&s, bytes.data() + at, sizeof s);
            if (s.metric != uint8_t(metric) || s.side != uint8_t(side)) continue;
            s.storage_order = field;
            std::memcpy(bytes.data() + at, &s, sizeof s);
            found = true;
        }
        REQUIRE(found);
        fix_checksums(bytes);
        const fs::path bad = test::scratch_dir("order-bad-copy") / path.filename();
        write_bytes(bad, bytes);
        std::string error;
        const bool opened = TableFile::open(bad, TableIndex(m), kind, &error) != nullptr;
        return opened ? std::string() : error;
    };
    // A valid order ("k K P") opens; these fields do not.
    CHECK(refusal(FileKind::WDL, Metric::WDL, WHITE, 0x012) == "");
    for (uint32_t bad : {0x210u, 0x011u, 0x013u, 0x3012u}) {  // identity, repeated, no such digit, a fourth digit
        INFO(std::hex << bad);
        CHECK(refusal(FileKind::WDL, Metric::WDL, WHITE, bad).find("(storage order)") != std::string::npos);
    }
    // A DTZ section in another order than its DTM (of the side the file stores).
    const Color stored = ~*test::open_table_file(dir, "KPvK", FileKind::DISTANCE)->left_out_side();
    CHECK(refusal(FileKind::DISTANCE, Metric::DTZ, stored, 0x012).find("storage order differs from its DTM") !=
          std::string::npos);
}
