// DTM/DTZ files that store one side to move only, as 5-piece tables are written (the compact
// form): the loader and the prober recover the other side by one ply of moves, exactly as
// generated, through promotions, en passant and subtables that store one side too; such files
// that are malformed are refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include "engine/core/notation.h"
#include "engine/core/random_position.h"
#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/generation_driver.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_check.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/generate/verifier.h"
#include "tablebase/probe/tablebases.h"
#include "tb_prober_checks.h"
#include "tb_test_tables.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

// Tables written with one side left out (test::compact_tables()); KPvK too.
std::vector<const char*> one_sided() {
    std::vector<const char*> names = test::compact_tables();
    names.push_back("KPvK");
    return names;
}

// The test tables in which one_sided() store one side to move only.
const fs::path& one_side_dir() { return test::compact_dir(); }

std::unique_ptr<TableFile> open_distance_file(const fs::path& dir, const char* name) {
    return test::open_table_file(dir, name, FileKind::DISTANCE);
}

}  // namespace

TEST_CASE("files that store one side to move load every value as generated", "[tb][files][oneside]") {
    for (const char* name : one_sided()) {
        INFO(name);
        const Material m = *Material::parse(name);
        auto f = open_distance_file(one_side_dir(), name);
        REQUIRE(f->left_out_side());
        const Color left_out = *f->left_out_side();
        CHECK(f->find(Metric::DTM, left_out) == nullptr);
        CHECK(f->find(Metric::DTZ, left_out) == nullptr);
        CHECK(f->find(Metric::DTM, ~left_out) != nullptr);
        const auto original = open_distance_file(test::test_tables_dir(), name);
        if (!original->left_out_side()) CHECK(f->file_size() < original->file_size());

        // The left-out side alone too.
        test::check_loads_as_generated(one_side_dir(), m, {left_out});
    }
}

TEST_CASE("a side left out is probed as generated, root moves and en passant included", "[tb][files][oneside]") {
    Tablebases full, one_side;
    full.set_paths(test::test_tables_dir().string());
    one_side.set_paths(one_side_dir().string());
    std::mt19937_64 rng(11);
    const bool light = test::light_mode();
    for (const char* name : one_sided()) {
        INFO(name);
        const Material m = *Material::parse(name);
        std::string error;
        auto t = load_table_with_subtables(test::test_tables_dir(), m, &error, 2);
        REQUIRE(t);
        const Color left_out = *open_distance_file(one_side_dir(), name)->left_out_side();
        const uint64_t n = t->index.size();
        const bool all = t->index.num_slots() == 3 && !light;
        uint64_t probed = 0, ranked = 0;
        for (uint64_t k = 0; k < (all ? n : light ? 1000 : 10000); ++k) {
            const uint64_t i = all ? k : rng() % n;
            for (Color c : {WHITE, BLACK}) {
                if (is_illegal(t->dtm[c][i])) continue;
                const Position pos = test::require_probe_as_generated(one_side, *t, i, c);
                ++probed;
                // Root ranking from the stored side probes every move into the left-out side,
                // the positions after double steps with their en passant rights.
                if (c == left_out || ranked >= (light ? 100u : 400u)) continue;
                test::require_same_root_ranking(full, one_side, pos);
                ++ranked;
            }
        }
        CHECK(probed > 1000);
        CHECK(ranked > 50);
    }

    // En passant rights, for either side to move: a pawn has just stepped two squares past an
    // enemy pawn on an adjacent file (KPvKP, left out on one side), kings on a few squares.
    uint64_t en_passant = 0;
    const Square kings[] = {SQ_A1, SQ_H1, SQ_C3, SQ_F6, SQ_A8, SQ_H8, SQ_D8, SQ_E1};
    for (Color mover : {WHITE, BLACK})
        for (int file = 0; file < 8; ++file)
            for (int side : {-1, 1}) {
                if (file + side < 0 || file + side > 7) continue;
                for (Square wk : kings)
                    for (Square bk : kings) {
                        char grid[64] = {};
                        const int to_rank = mover == WHITE ? 3 : 4;  // the fourth or fifth rank
                        const Square pawn = Square(to_rank * 8 + file), enemy = Square(to_rank * 8 + file + side);
                        if (wk == bk || wk == pawn || wk == enemy || bk == pawn || bk == enemy) continue;
                        grid[wk] = 'K';
                        grid[bk] = 'k';
                        grid[pawn] = mover == WHITE ? 'P' : 'p';
                        grid[enemy] = mover == WHITE ? 'p' : 'P';
                        const Square ep = Square((mover == WHITE ? 2 : 5) * 8 + file);
                        const std::string fen =
                            placement_fen(grid) + (mover == WHITE ? " b - " : " w - ") + square_to_string(ep) + " 0 1";
                        Position pos;
                        if (!pos.set_fen(fen) || pos.ep_square() == SQ_NONE) continue;  // illegal, or no capture
                        INFO(fen);
                        const auto a = full.probe(pos), b = one_side.probe(pos);
                        REQUIRE(a);
                        REQUIRE(b);
                        REQUIRE(a->dtm == b->dtm);
                        REQUIRE(a->dtz == b->dtz);
                        REQUIRE(a->wdl == b->wdl);
                        ++en_passant;
                    }
            }
    CHECK(en_passant > 500);
    CHECK(one_side.refused_files().empty());
}

TEST_CASE("a file that stores one side needs its subtables, and is checked", "[tb][files][oneside][badfiles]") {
    const fs::path dir = test::scratch_dir("one-side-bad");
    const Material kpvk = *Material::parse("KPvK");
    for (const char* f : {"KPvK.pytw", "KPvK.pytd"}) fs::copy_file(one_side_dir() / f, dir / f);
    std::string error;
    // KPvK's promotions lead to KQvK and the others, which are not in `dir`.
    CHECK(load_table_values(dir, kpvk, &error, 2) == nullptr);
    CHECK(error.find("KPvK.pytd: stores one side to move") != std::string::npos);
    CHECK(error.find("which were not given") != std::string::npos);
    error.clear();
    CHECK(load_table_with_subtables(dir, kpvk, &error, 2) == nullptr);
    CHECK(error.find("reading KPvK needs the tables it converts into") != std::string::npos);
    CHECK(error.find("KQvK.pytd: not found") != std::string::npos);
    const Color left_out = *open_distance_file(dir, "KPvK")->left_out_side();

    const std::vector<uint8_t> good = test::read_bytes(dir / "KPvK.pytd");
    auto refused_with = [&](std::vector<uint8_t> bytes, const std::string& problem) {
        test::fix_checksums(bytes);
        test::write_bytes(dir / "KPvK.pytd", bytes);
        std::string why;
        CHECK(TableFile::open(dir / "KPvK.pytd", TableIndex(kpvk), FileKind::DISTANCE, &why) == nullptr);
        INFO(why);
        CHECK(why.find(problem) != std::string::npos);
    };
    // A side's DTZ without its DTM: the DTZ section moved to the left-out side.
    std::vector<uint8_t> bytes = good;
    FileHeader h;
    std::memcpy(&h, bytes.data(), sizeof h);
    for (uint32_t i = 0; i < h.num_sections; ++i) {
        SectionHeader s;
        uint8_t* at = bytes.data() + sizeof(FileHeader) + i * sizeof(SectionHeader);
        std::memcpy(&s, at, sizeof s);
        if (s.metric == uint8_t(Metric::DTZ)) s.side = uint8_t(left_out);
        std::memcpy(at, &s, sizeof s);
    }
    refused_with(bytes, "missing or repeated");
    test::write_bytes(dir / "KPvK.pytd", good);
    CHECK(TableFile::open(dir / "KPvK.pytd", TableIndex(kpvk), FileKind::DISTANCE, &error) != nullptr);
}

TEST_CASE("the check of a one-sided file computes the stored side again and catches a wrong value there",
          "[tb][files][oneside][verify]") {
    const Material m = *Material::parse("KPvK");
    std::string error;
    TableSet subtables;
    const auto table = test::load_with_subtables(test::test_tables_dir(), "KPvK", subtables);

    REQUIRE(open_distance_file(one_side_dir(), "KPvK")->left_out_side());  // else both sides are computed
    const TableCheck good = check_stored_table(one_side_dir(), m, subtables, 2);
    CHECK(good.ok);
    CHECK(good.inconsistent == 0);
    // Every legal position of both sides is counted, the recovered side's too.
    CHECK(good.positions == verify_table(*table, subtables, 2).positions);

    // One win or loss made two plies longer on each side, where no capture or promotion decides
    // the DTM (there the stored DTM may be any value no better): whichever side the writer stores
    // carries it, and only computing the stored side again from the recovered one can see it.
    const auto decided = search_moves_resolved_dtm(*table, subtables, 2);
    for (Color c : {WHITE, BLACK}) {
        auto changeable = [&](uint64_t i) {
            const Value v = table->dtm[c][i];
            return (is_win(v) || is_loss(v)) && distance_of(v) >= 3 && !test_bit(decided[c], i);
        };
        uint64_t i = 0;
        while (!changeable(i)) ++i;
        const Value v = table->dtm[c][i];
        table->dtm[c][i] = is_win(v) ? win_in(distance_of(v) + 2) : loss_in(distance_of(v) + 2);
    }
    const fs::path dir = test::scratch_dir("one-side-check");
    test::copy_test_tables_into(dir);
    GenerationInfo info;
    info.threads = 2;
    info.subtables = &subtables;
    info.compact = true;
    REQUIRE(write_table_files(*table, dir, info, &error));
    const TableCheck bad = check_stored_table(dir, m, subtables, 2);
    CHECK_FALSE(bad.ok);
    CHECK(bad.inconsistent > 0);
    CHECK(bad.positions == good.positions);
}

TEST_CASE("the driver reads a one-sided subtable through the subtables it loads for it, within its budget",
          "[tb][files][oneside][driver]") {
    // KPvKP promotes into KQvKP, stored with one side and a resolved DTM: reading it needs its own
    // subtables, which the driver loads itself (as a store that reads the folder asks), instead of
    // the loader reading them from the folder behind the driver's budget.
    const fs::path& dir = one_side_dir();
    const Material kpkp = *Material::parse("KPvKP");
    std::vector<std::string> loads, unread;  // every load; loads that needed subtables and got none
    std::shared_ptr<const TableValues> made;
    TableStore store;
    store.present = [&](const Material& m, std::string* why) { return !(m == kpkp) && table_files_valid(dir, m, why); };
    store.reading_needs = [&](const Material& m, uint8_t sides, bool& needs, std::string* error) {
        return reading_needs_subtables(dir, m, sides, needs, error);
    };
    store.load = [&](const Material& m, uint8_t sides, const TableSet* subtables,
                     std::string* error) -> std::shared_ptr<TableValues> {
        bool needs = false;
        REQUIRE(reading_needs_subtables(dir, m, sides, needs, error));
        if (needs && !subtables) unread.push_back(m.name());  // the loader would read them itself
        loads.push_back(m.name());
        return load_table_values(dir, m, error, 2, sides, LoadFor::CONVERSIONS, subtables);
    };
    store.save = [&](const TableValues& t, double, int) { made = std::make_shared<TableValues>(t); };
    DriverOptions options;
    options.threads = 2;
    options.memory_budget = 1;  // nothing kept: every table is loaded when needed
    generate_tables({kpkp}, store, options);
    CHECK(unread.empty());
    // KQvKP was read with what it converts into, loaded by the driver before it: KQvK among them.
    const auto kqkp = std::find(loads.begin(), loads.end(), "KQvKP");
    REQUIRE(kqkp != loads.end());
    CHECK(std::find(loads.begin(), kqkp, "KQvK") != kqkp);
    REQUIRE(made);
    std::string error;
    auto expected = load_table_with_subtables(test::test_tables_dir(), kpkp, &error, 2);
    REQUIRE(expected);
    for (Color c : {WHITE, BLACK}) CHECK(test::differing_entries(*made, *expected, c, false) == 0);
}
