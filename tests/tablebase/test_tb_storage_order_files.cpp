// Sections stored in other orders of the index digits (format version 4): written by the writer
// when it chooses orders and by `tb rewrite`, read back and probed exactly as generated; a bad
// order field is refused at load.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <random>

#include "tablebase/file_format.h"
#include "tablebase/generator.h"
#include "tablebase/table_file.h"
#include "tablebase/table_loader.h"
#include "tablebase/table_rewriter.h"
#include "tablebase/table_statistics.h"
#include "tablebase/table_writer.h"
#include "tablebase/tablebases.h"
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
    const std::vector<const char*> names = light ? std::vector<const char*>{"KRvK", "KPvK"}
                                                 : std::vector<const char*>{"KRvK", "KPvK", "KQvKR"};
    GenerationInfo info;
    info.threads = 2;
    info.distance_codec = Codec::PAIRS;
    const fs::path natural_dir = test::scratch_dir("order-natural"), chosen_dir = test::scratch_dir("order-chosen");
    generate_and_write(names, natural_dir, info);
    info.choose_storage_order = true;
    const TableSet generated = generate_and_write(names, chosen_dir, info);
    CHECK(reordered_sections(chosen_dir, names) > 0);
    CHECK(reordered_sections(natural_dir, names) == 0);

    for (const char* name : names) {
        INFO(name);
        // These streams are shorter than the chooser's sample: it judged each order on the whole
        // stream, so no WDL or DTM section may be larger than in the index's own order (DTZ
        // follows its DTM's order and may be).
        for (FileKind kind : {FileKind::WDL, FileKind::DISTANCE}) {
            auto natural = open_file(natural_dir, name, kind), chosen = open_file(chosen_dir, name, kind);
            for (const Section& s : chosen->sections())
                if (s.metric() != Metric::DTZ)
                    CHECK(s.h.compressed_bytes <= natural->find(s.metric(), s.side())->h.compressed_bytes);
        }
        std::string error;
        auto got = load_table_values(chosen_dir, *Material::parse(name), &error, 2);
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

TEST_CASE("tb rewrite stores a table in chosen orders with the same values, or leaves it", "[tb][files][order]") {
    const fs::path dir = test::scratch_dir("rewrite");
    GenerationInfo info;
    info.seconds = 1.25;
    info.threads = 1;
    info.wdl_codec = Codec::LZ4;  // version 1's codecs and the index's own order
    const std::vector<const char*> names = {"KRvK", "KPvK"};
    const TableSet generated = generate_and_write(names, dir, info);
    // What a rewrite killed midway leaves (no process has that id: ids stay below 2^22).
    fs::create_directories(dir / ".rewrite-99999999" / "x");
    for (const char* name : names) {
        INFO(name);
        const Material m = *Material::parse(name);
        RewriteResult r;
        std::string error;
        const uint64_t write_id = open_file(dir, name, FileKind::WDL)->write_id();
        REQUIRE(rewrite_table_files(dir, m, {2}, &r, &error));
        // The same write id: a rewrite stopped between its two renames leaves a valid pair.
        CHECK(open_file(dir, name, FileKind::DISTANCE)->write_id() == write_id);
        CHECK(r.new_wdl_bytes == fs::file_size(table_file_path(dir, m, FileKind::WDL)));
        // (A WDL file this small is mostly its header: KRvK's grows from 622 to 672 bytes.)
        CHECK(r.new_distance_bytes < r.old_distance_bytes);
        CHECK(r.new_wdl_bytes + r.new_distance_bytes < r.old_wdl_bytes + r.old_distance_bytes);
        CHECK(table_files_valid(dir, m, &error));
        for (FileKind kind : {FileKind::WDL, FileKind::DISTANCE}) {
            const auto f = open_file(dir, name, kind);
            for (const Section& s : f->sections()) CHECK((s.bits() == 0 || s.pairs));
        }
        auto got = load_table_values(dir, m, &error, 2);
        REQUIRE(got);
        for (Color c : {WHITE, BLACK}) {
            CHECK(got->dtm[c] == generated.find(m)->dtm[c]);
            CHECK(got->dtz[c] == generated.find(m)->dtz[c]);
        }
        // The statistics keep the generation's figures (written with one thread, rewritten with two).
        const auto stats = open_file(dir, name, FileKind::WDL)->statistics();
        REQUIRE(stats);
        CHECK(stats->generation_threads == 1);
        CHECK(stats->generation_seconds == 1.25);
    }
    CHECK(reordered_sections(dir, names) > 0);

    // Without a table its promotions lead into, the WDL cannot be written: the old files stay.
    const Material kpvk = *Material::parse("KPvK");
    REQUIRE(rewrite_table_files(dir, *Material::parse("KRvK"), {2}, nullptr, nullptr));  // KPvK's files now
    const auto wdl_before = read_bytes(table_file_path(dir, kpvk, FileKind::WDL));
    const auto dist_before = read_bytes(table_file_path(dir, kpvk, FileKind::DISTANCE));
    fs::rename(dir / "KQvK.pytd", dir / "elsewhere");
    std::string error;
    CHECK_FALSE(rewrite_table_files(dir, kpvk, {2}, nullptr, &error));
    CHECK(error.find((dir / "KQvK.pytd").string()) == 0);
    CHECK(read_bytes(table_file_path(dir, kpvk, FileKind::WDL)) == wdl_before);
    CHECK(read_bytes(table_file_path(dir, kpvk, FileKind::DISTANCE)) == dist_before);
    for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().rfind(".rewrite", 0) != 0);
}

TEST_CASE("a storage order that is no order of the table's digits, in an older file, or not its DTM's, is refused",
          "[tb][files][order][badfiles]") {
    const fs::path dir = test::scratch_dir("order-bad");
    GenerationInfo info;
    info.threads = 2;
    // No WDL section flagged for queen promotions (version 7), so that the version-3 file below
    // is refused for its storage order alone.
    info.promotion_resolved_wdl = false;
    generate_and_write({"KPvK"}, dir, info);  // three digits: P K k
    const Material m = *Material::parse("KPvK");
    // Sets the storage order of the section for (metric, side) in a copy of `kind`'s file, and
    // returns why the file is refused ("" if it is not).
    auto refusal = [&](FileKind kind, Metric metric, Color side, uint32_t field, uint32_t version = FORMAT_VERSION) {
        const fs::path path = table_file_path(dir, m, kind);
        auto bytes = read_bytes(path);
        FileHeader h;
        std::memcpy(&h, bytes.data(), sizeof h);
        REQUIRE(h.version == FORMAT_VERSION);
        h.version = version;
        std::memcpy(bytes.data(), &h, sizeof h);
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
    CHECK(refusal(FileKind::WDL, Metric::WDL, BLACK, 0x012, 3).find("(storage order)") != std::string::npos);
    // A DTZ section in another order than its DTM.
    CHECK(refusal(FileKind::DISTANCE, Metric::DTZ, WHITE, 0x012).find("storage order differs from its DTM") !=
          std::string::npos);
}
