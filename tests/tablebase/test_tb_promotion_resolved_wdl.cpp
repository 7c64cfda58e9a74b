// WDL sections that also leave to the prober what a quiet queen promotion achieves
// (FLAG_PROMOTIONS_RESOLVED), as the writer keeps them where that makes a section smaller: tb
// verify's check and the prober give every value as generated, also when a table a promotion
// leads to is missing, and the flag without the captures flag is refused.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "engine/core/position.h"
#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/generate/verifier.h"
#include "tablebase/probe/tablebases.h"
#include "tb_test_tables.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

// KQvKP and KRvKP: Black's pawn promotes, and the side that owns it is the one to gain (KQvKP's
// by 75 %: FORMAT.md). White has no pawn: its sections stay as they were.
const std::vector<const char*> TABLES = {"KQvKP", "KRvKP"};

// A copy of the test tables, as the writer wrote them.
fs::path written_copy(const char* name) { return test::copy_of_test_tables(name); }

const Section& wdl_section(const TableFile& f, Color c) {
    const Section* s = f.find(Metric::WDL, c);
    REQUIRE(s);
    return *s;
}

bool promoted(const Section& s) { return (s.h.flags & FLAG_PROMOTIONS_RESOLVED) != 0; }

// Index i of a table as a Position.
Position position_of(const TableIndex& index, uint64_t i, Color stm) {
    return test::position(index_fen(index, i, stm));
}

}  // namespace

TEST_CASE("WDL sections leave queen promotions to the prober where that is smaller", "[tb][files][promoted]") {
    const fs::path dir = written_copy("promoted-wdl");
    for (const char* name : TABLES) {
        INFO(name);
        const Material m = *Material::parse(name);
        auto with = test::open_table_file(dir, name, FileKind::WDL);
        FileHeader h;
        std::memcpy(&h, test::read_bytes(dir / (std::string(name) + WDL_EXTENSION)).data(), sizeof h);
        CHECK(h.version == FORMAT_VERSION);
        CHECK_FALSE(promoted(wdl_section(*with, WHITE)));  // no white pawn
        CHECK(promoted(wdl_section(*with, BLACK)));
        for (Color c : {WHITE, BLACK}) CHECK((wdl_section(*with, c).h.flags & FLAG_CAPTURE_RESOLVED) != 0);

        // tb verify's WDL check: every position as the DTZ says with the promotions searched; a
        // search of the captures alone leaves some of Black's positions low.
        std::string error;
        TableSet subtables;
        REQUIRE(load_subtables(dir, m, subtables, &error, 2));
        auto table = load_table_values(dir, m, &error, 2, 3, LoadFor::EVERY_POSITION, &subtables);
        REQUIRE(table);
        std::array<ValueArray, COLOR_NB> stored;
        std::array<uint8_t, COLOR_NB> flags{};
        REQUIRE(load_wdl_symbols(dir, m, stored, flags, &error, 2));
        CHECK(flags[BLACK] == (FLAG_CAPTURE_RESOLVED | FLAG_PROMOTIONS_RESOLVED));
        CHECK(verify_wdl(*table, stored, flags, subtables, 2).mismatches == 0);
        const std::array<uint8_t, COLOR_NB> captures_only = {FLAG_CAPTURE_RESOLVED, FLAG_CAPTURE_RESOLVED};
        const uint64_t lifted_by_promotions = verify_wdl(*table, stored, captures_only, subtables, 2).mismatches;
        CHECK(lifted_by_promotions > 1000);

        // The prober: every position a promotion lifts (Black's pawn on its seventh rank, stored
        // low) and a random sample of the rest, from the blocks and not from memory.
        Tablebases tbs;
        tbs.set_resident_wdl_budget(0);
        tbs.set_paths(dir.string());
        std::mt19937_64 rng(7);
        const uint64_t n = table->index.size();
        const uint64_t sample = test::light_mode() ? 3000 : 20000;
        uint64_t low_checked = 0, checked = 0;
        for (uint64_t i = 0; i < n; ++i) {
            const int exact_wdl = is_illegal(table->dtz[BLACK][i]) ? 9 : wdl_of_dtz(table->dtz[BLACK][i]);
            const bool low = exact_wdl != 9 && int(stored[BLACK][i]) - 2 < exact_wdl;
            if (!(low && low_checked < sample) && rng() % n >= sample) continue;
            for (Color c : {WHITE, BLACK}) {
                if (is_illegal(table->dtz[c][i])) continue;
                const Position pos = position_of(table->index, i, c);
                INFO(pos.fen());
                REQUIRE(tbs.probe_wdl(pos) == wdl_of_dtz(table->dtz[c][i]));
                ++checked;
            }
            low_checked += low;
        }
        CHECK(low_checked >= std::min<uint64_t>(sample, lifted_by_promotions));
        CHECK(checked > sample);
        CHECK(tbs.refused_files().empty());
    }
}

TEST_CASE("a promotion-resolved WDL probe without the promoted table falls back, never wrong",
          "[tb][files][promoted]") {
    // KQvKP with the tables its captures lead to, but not KQvKQ, where its pawn promotes: the
    // WDL file cannot answer where it leaves the value to a promotion, and the probe must take
    // it from the DTZ file instead of the low stored value.
    const fs::path written = written_copy("promoted-missing-source"), dir = test::scratch_dir("promoted-missing");
    for (const char* f : {"KQvKP.pytw", "KQvKP.pytd", "KQvK.pytw", "KQvK.pytd", "KPvK.pytw", "KPvK.pytd"})
        fs::copy_file(written / f, dir / f);
    Tablebases tbs;
    tbs.set_paths(dir.string());
    const Material m = *Material::parse("KQvKP");
    std::string error;
    auto table = load_table_with_subtables(written, m, &error, 2);
    REQUIRE(table);
    std::array<ValueArray, COLOR_NB> stored;
    std::array<uint8_t, COLOR_NB> flags{};
    REQUIRE(load_wdl_symbols(written, m, stored, flags, &error, 2));
    uint64_t checked = 0, low = 0;
    // Every pawn square: the pawn's digit is the index's most significant.
    for (uint64_t i = 0; i < table->index.size(); i += table->index.size() / 3000 + 1) {
        if (is_illegal(table->dtz[BLACK][i])) continue;
        const Position pos = position_of(table->index, i, BLACK);
        INFO(pos.fen());
        CHECK(tbs.probe_wdl(pos) == wdl_of_dtz(table->dtz[BLACK][i]));
        ++checked;
        low += int(stored[BLACK][i]) - 2 < wdl_of_dtz(table->dtz[BLACK][i]);
    }
    CHECK(checked > 1000);
    CHECK(low > 10);  // positions the WDL file alone would have answered wrongly
}

TEST_CASE("the promotions flag needs the captures flag", "[tb][files][promoted][badfiles]") {
    const fs::path written = written_copy("promoted-bad-source"), dir = test::scratch_dir("promoted-bad");
    const Material kqvkp = *Material::parse("KQvKP");
    const std::vector<uint8_t> good = test::read_bytes(written / "KQvKP.pytw");
    std::string why;
    test::write_bytes(dir / "KQvKP.pytw", good);
    REQUIRE(TableFile::open(dir / "KQvKP.pytw", TableIndex(kqvkp), FileKind::WDL, &why) != nullptr);

    const fs::path file = dir / "KQvKP.pytw";

    // Without FLAG_CAPTURE_RESOLVED: refused (the prober would search no move at all).
    std::vector<uint8_t> bytes = good;
    REQUIRE(test::clear_section_flag(bytes, FLAG_PROMOTIONS_RESOLVED, FLAG_CAPTURE_RESOLVED) > 0);
    CHECK(test::refusal(file, bytes, "KQvKP", FileKind::WDL).find("flags") != std::string::npos);
}
