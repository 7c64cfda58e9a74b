// DTM sections that leave to the reader what captures and promotions achieve
// (FLAG_MOVES_RESOLVED), and their draws to the WDL file (FLAG_DRAWS_IN_WDL), as 5-piece tables
// are written (the compact form, which also leaves one side to move out): the loader and the
// prober give every value as generated, also where a subtable is itself stored that way; such
// sections are smaller; flags that contradict each other, missing subtables, and a missing WDL
// file or one of another write are refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "engine/core/notation.h"
#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/probe/tablebases.h"
#include "tb_prober_checks.h"
#include "tb_test_tables.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

using test::copy_of_test_tables;

std::unique_ptr<TableFile> open_distance_file(const fs::path& dir, const char* name) {
    return test::open_table_file(dir, name, FileKind::DISTANCE);
}

// Written with resolved DTM (test::compact_tables()). KQvKP first: KPvKP promotes into it, so
// that recursion is tested.
const std::vector<const char*>& resolved_tables() { return test::compact_tables(); }

bool has_draws(const ValueArray& dtm) {
    return std::any_of(dtm.begin(), dtm.end(), [](Value v) { return v != VALUE_ILLEGAL && is_draw(v); });
}

// The test tables with resolved_tables() written in the compact form.
const fs::path& resolved_dir() { return test::compact_dir(); }

// A generated table of the test tables and, per side to move, its positions whose DTM a capture
// or promotion achieves: where a resolved file's stored value may be lower.
struct DecidedTable {
    std::shared_ptr<TableValues> t;
    std::array<PositionBits, COLOR_NB> by_moves;
};
DecidedTable load_decided(const Material& m) {
    std::string error;
    DecidedTable d;
    d.t = load_table_with_subtables(test::test_tables_dir(), m, &error, 2);
    REQUIRE(d.t);
    TableSet subtables;
    REQUIRE(load_subtables(test::test_tables_dir(), m, subtables, &error, 2));
    d.by_moves = search_moves_resolved_dtm(*d.t, subtables, 2);
    return d;
}

}  // namespace

TEST_CASE("resolved DTM files load every value as generated and are smaller", "[tb][files][resolved]") {
    for (const char* name : resolved_tables()) {
        INFO(name);
        const Material m = *Material::parse(name);
        auto f = open_distance_file(resolved_dir(), name);
        REQUIRE(f->left_out_side());
        std::string error;
        auto generated = load_table_with_subtables(test::test_tables_dir(), m, &error, 2);
        REQUIRE(generated);
        // The stored side's DTM, against the same side's exact DTM in the test tables (written by
        // the same writer in the form of 3-4-piece tables).
        const Color c = ~*f->left_out_side();
        const Section* s = f->find(Metric::DTM, c);
        REQUIRE(s);
        CHECK((s->h.flags & FLAG_MOVES_RESOLVED) != 0);
        // Every side of these tables has draws, which the WDL file tells.
        REQUIRE(has_draws(generated->dtm[c]));
        CHECK((s->h.flags & FLAG_DRAWS_IN_WDL) != 0);
        auto exact_file = open_distance_file(test::test_tables_dir(), name);
        const Section* exact = exact_file->find(Metric::DTM, c);
        REQUIRE(exact);
        CHECK((exact->h.flags & FLAG_MOVES_RESOLVED) == 0);
        CHECK(s->h.compressed_bytes < exact->h.compressed_bytes * 0.95);

        // Each side alone too.
        test::check_loads_as_generated(resolved_dir(), m, {WHITE, BLACK});
    }
}

TEST_CASE("resolved DTM files probe as generated, root moves included", "[tb][files][resolved]") {
    Tablebases full, resolved;
    full.set_paths(test::test_tables_dir().string());
    resolved.set_paths(resolved_dir().string());
    std::mt19937_64 rng(23);
    const bool light = test::light_mode();
    for (const char* name : resolved_tables()) {
        INFO(name);
        const Material m = *Material::parse(name);
        const DecidedTable d = load_decided(m);
        const auto& t = d.t;
        const auto& low = d.by_moves;
        const uint64_t n = t->index.size();
        uint64_t probed = 0, by_moves = 0, ranked = 0;
        for (uint64_t k = 0; k < (light ? 1500u : 15000u); ++k) {
            const uint64_t i = rng() % n;
            for (Color c : {WHITE, BLACK}) {
                if (is_illegal(t->dtm[c][i])) continue;
                const Position pos = test::require_probe_as_generated(resolved, *t, i, c);
                ++probed;
                by_moves += test_bit(low[c], i);
                if (ranked >= (light ? 100u : 400u)) continue;
                test::require_same_root_ranking(full, resolved, pos);
                ++ranked;
            }
        }
        CHECK(probed > 1000);
        CHECK(by_moves > probed / 20);  // the probes met positions the moves decide
        CHECK(ranked > 50);
    }
    CHECK(resolved.refused_files().empty());
}

TEST_CASE("a DTM probed alone is exact where captures and promotions decide it", "[tb][files][resolved]") {
    // The prober resolves a position's captures and promotions, and a left-out side's moves,
    // best bound first and only while a bound can beat the best value so far (a successor's
    // stored code, which may be anything at a draw). The positions that
    // such a move decides are where a bound too optimistic or too pessimistic would show: a
    // spread of them, each probed for DTM alone (no exact WDL known beforehand) and for
    // everything.
    Tablebases resolved;
    resolved.build_checkpoints_at_open(true);  // the engine's reads, from checkpoints inside 256-byte blocks
    resolved.set_paths(resolved_dir().string());
    const uint64_t budget = test::light_mode() ? 4000 : 60000;  // probes per table and side
    for (const char* name : resolved_tables()) {
        INFO(name);
        const Material m = *Material::parse(name);
        const DecidedTable d = load_decided(m);
        const auto& t = d.t;
        const auto& low = d.by_moves;
        for (Color c : {WHITE, BLACK}) {
            uint64_t decided = 0;
            for (uint64_t i = 0; i < t->index.size(); ++i) decided += test_bit(low[c], i);
            const uint64_t step = std::max<uint64_t>(1, decided / budget);
            uint64_t seen = 0, probed = 0, draws = 0;
            for (uint64_t i = 0; i < t->index.size(); ++i) {
                if (!test_bit(low[c], i) || seen++ % step) continue;
                Position pos;
                const std::string fen = index_fen(t->index, i, c);
                REQUIRE(pos.set_fen(fen));
                INFO(fen);
                REQUIRE(resolved.probe_dtm(pos) == t->dtm[c][i]);
                const auto r = resolved.probe(pos);
                REQUIRE(r);
                REQUIRE(r->dtm == t->dtm[c][i]);
                ++probed;
                draws += is_draw(t->dtm[c][i]);
            }
            CHECK(probed >= std::min<uint64_t>(decided, budget / 2));
            CHECK(draws > 0);
        }
    }
    CHECK(resolved.refused_files().empty());
}

TEST_CASE("a successor's window is the mover's turned round, on every value", "[tb][resolved][window]") {
    // best_of_moves searches a move's successor within successor_window: for that to keep the
    // mover's window, successor_rank must invert value_from_mover on every value a table holds.
    std::vector<Value> values{VALUE_UNKNOWN};
    for (int d = 0; d <= MAX_DISTANCE - 1; ++d) {
        values.push_back(loss_in(d));
        if (d > 0) values.push_back(win_in(d));
    }
    for (Value v : values) {
        INFO(signed_distance(v) << (is_loss(v) ? " (loss)" : ""));
        REQUIRE(value_of_rank(value_rank(v)) == v);
        REQUIRE(successor_rank(value_rank(value_from_mover(v))) == value_rank(v));
    }
    REQUIRE(successor_rank(RankWindow::NONE_ABOVE) == RankWindow::NONE_BELOW);
    REQUIRE(successor_rank(RankWindow::NONE_BELOW) == RankWindow::NONE_ABOVE);
    // The mover's best so far raises the bound below, which becomes the successor's bound above.
    const RankWindow w =
        successor_window({value_rank(loss_in(10)), value_rank(win_in(9))}, true, value_rank(win_in(21)));
    CHECK(w.lo == value_rank(loss_in(8)));
    CHECK(w.hi == value_rank(loss_in(20)));
}

TEST_CASE("a DTM probed within a window is exact inside it and a bound on the right side outside",
          "[tb][files][resolved][window]") {
    // The prober resolves captures, promotions and a left-out side's moves by alpha-beta: each
    // successor within the window that can still change its mover's value. Windows at and
    // around each position's exact DTM, on the positions the moves decide and on the left-out
    // side.
    Tablebases resolved;
    resolved.set_paths(resolved_dir().string());
    std::mt19937_64 rng(29);
    const uint64_t per_side = test::light_mode() ? 60 : 250;
    for (const char* name : resolved_tables()) {
        INFO(name);
        const Material m = *Material::parse(name);
        const DecidedTable d = load_decided(m);
        const auto& t = d.t;
        const auto& low = d.by_moves;
        for (Color c : {WHITE, BLACK}) {
            uint64_t probed = 0, inside = 0, above = 0, below = 0;
            for (uint64_t tries = 0; probed < per_side && tries < 200 * per_side; ++tries) {
                const uint64_t i = rng() % t->index.size();
                const Value exact = t->dtm[c][i];
                // Half the positions where a capture or promotion decides the DTM.
                if (is_illegal(exact) || (probed % 2 == 0 && !test_bit(low[c], i))) continue;
                Position pos;
                const std::string fen = index_fen(t->index, i, c);
                REQUIRE(pos.set_fen(fen));
                INFO(fen);
                ++probed;
                const int e = value_rank(exact);
                std::vector<int> edges{RankWindow::NONE_BELOW, RankWindow::NONE_ABOVE, 0};
                for (int d : {1, 3, 11, 31}) edges.push_back(value_rank(win_in(d)));
                for (int d : {0, 2, 10, 30}) edges.push_back(value_rank(loss_in(d)));
                for (int k = -2; k <= 2; ++k) {
                    const int d = distance_of(exact) + k;
                    if (is_win(exact) && d >= 1) edges.push_back(value_rank(win_in(d)));
                    if (is_loss(exact) && d >= 0) edges.push_back(value_rank(loss_in(d)));
                }
                for (int lo : edges)
                    for (int hi : edges) {
                        if (lo >= hi) continue;
                        INFO("window " << lo << " " << hi << ", exact " << e);
                        const auto r = resolved.probe_dtm_within(pos, RankWindow{lo, hi});
                        REQUIRE(r);
                        const int got = value_rank(*r);
                        if (e >= hi) {
                            REQUIRE(got >= hi);
                            REQUIRE(got <= e);
                            ++above;
                        } else if (e <= lo) {
                            REQUIRE(got <= lo);
                            REQUIRE(got >= e);
                            ++below;
                        } else {
                            REQUIRE(*r == exact);
                            ++inside;
                        }
                    }
            }
            CHECK(probed == per_side);
            CHECK(inside > 0);
            CHECK(above > 0);
            CHECK(below > 0);
        }
    }
    CHECK(resolved.refused_files().empty());
}

TEST_CASE("a left-out side's DTZ probes as generated", "[tb][files][resolved][oneside]") {
    // The prober reads a left-out side's DTZ from its quiet successors' stored DTZ without their
    // DTM where the context allows (NONE, DTM_SIGN), and probes every successor whole where the
    // context is the DTM code. KPvKP (left out on one side, resolved, draws left to the WDL file)
    // and KQvKP, which it promotes into, as the writer chooses their contexts.
    const Material m = *Material::parse("KPvKP");
    std::string error;
    auto t = load_table_with_subtables(test::test_tables_dir(), m, &error, 2);
    REQUIRE(t);
    Tablebases full;
    full.set_paths(test::test_tables_dir().string());
    {
        const fs::path& dir = resolved_dir();
        const auto f = open_distance_file(dir, "KPvKP");
        REQUIRE(f->left_out_side());
        const Color left_out = *f->left_out_side();
        const Section* z = f->find(Metric::DTZ, ~left_out);
        REQUIRE(z);
        INFO("the stored side's DTZ is read with context " << int(z->h.context));

        Tablebases probed;
        probed.set_paths(dir.string());
        std::mt19937_64 rng(31);
        uint64_t won = 0, lost = 0, ranked = 0;
        for (uint64_t k = 0; k < (test::light_mode() ? 3000u : 30000u); ++k) {
            const uint64_t i = rng() % t->index.size();
            if (is_illegal(t->dtm[left_out][i])) continue;
            test::require_probe_as_generated(probed, *t, i, left_out);
            const int wdl = wdl_of_dtz(t->dtz[left_out][i]);
            won += wdl > 0;
            lost += wdl < 0;
            // From the stored side, every move leads into the left-out side (en passant included).
            if (is_illegal(t->dtm[~left_out][i]) || ranked >= (test::light_mode() ? 50u : 300u)) continue;
            Position other;
            REQUIRE(other.set_fen(index_fen(t->index, i, ~left_out)));
            test::require_same_root_ranking(full, probed, other);
            ++ranked;
        }
        CHECK(won > 100);
        CHECK(lost > 100);
        CHECK(ranked > 20);
        CHECK(probed.refused_files().empty());
    }
}

TEST_CASE("a resolved DTM file needs its subtables", "[tb][files][resolved][badfiles]") {
    // KQvKP written resolved (the first of resolved_dir(), from the test tables), alone.
    const fs::path dir = test::scratch_dir("resolved-bad");
    const Material kqvkp = *Material::parse("KQvKP");
    for (const char* f : {"KQvKP.pytw", "KQvKP.pytd"}) fs::copy_file(resolved_dir() / f, dir / f);
    const Color stored = ~*open_distance_file(dir, "KQvKP")->left_out_side();
    REQUIRE((open_distance_file(dir, "KQvKP")->find(Metric::DTM, stored)->h.flags & FLAG_MOVES_RESOLVED) != 0);
    std::string error;
    // KQvKP's captures and promotions lead to KQvK, KQvKQ and others, which are not in `dir`:
    // the stored side alone needs them (the left-out side too, test_tb_one_side_files.cpp).
    CHECK(load_table_values(dir, kqvkp, &error, 2, uint8_t(1 << stored)) == nullptr);
    CHECK(error.find("KQvKP.pytd: leaves DTM to captures and promotions") != std::string::npos);
    CHECK(error.find("which were not given") != std::string::npos);
    error.clear();
    CHECK(load_table_with_subtables(dir, kqvkp, &error, 2, uint8_t(1 << stored)) == nullptr);
    CHECK(error.find("reading KQvKP needs the tables it converts into") != std::string::npos);
    CHECK(error.find(".pytd: not found") != std::string::npos);
}

TEST_CASE("DTM that leaves its draws to the WDL file needs that file of the same write",
          "[tb][files][resolved][badfiles]") {
    const Material kqvkp = *Material::parse("KQvKP");
    const fs::path dir = copy_of_test_tables("draws-in-wdl-bad");
    // The resolved DTM/DTZ file beside the generated WDL file: another write.
    fs::copy_file(resolved_dir() / "KQvKP.pytd", dir / "KQvKP.pytd", fs::copy_options::overwrite_existing);
    std::string error;
    CHECK(load_table_with_subtables(dir, kqvkp, &error, 2) == nullptr);
    CHECK(error.find("KQvKP.pytd: leaves its draws to the WDL file; ") != std::string::npos);
    CHECK(error.find("KQvKP.pytw: does not belong to the same write") != std::string::npos);
    const Position pos = test::position("8/8/8/8/8/1Q6/3kp3/7K w - - 0 1");
    {
        Tablebases tbs;
        tbs.set_paths(dir.string());
        const auto r = tbs.probe(pos);
        REQUIRE(r);  // the WDL file answers; the DTM/DTZ file is refused, not misread
        CHECK(!r->dtm);
        const auto refused = tbs.refused_files();
        REQUIRE(refused.size() == 1);
        CHECK(refused[0].find("KQvKP.pytd: leaves its draws to the WDL file, which is not of the same write") !=
              std::string::npos);
    }
    // No WDL file at all.
    fs::remove(dir / "KQvKP.pytw");
    error.clear();
    CHECK(load_table_with_subtables(dir, kqvkp, &error, 2) == nullptr);
    CHECK(error.find("KQvKP.pytw: not found") != std::string::npos);
    {
        Tablebases tbs;
        tbs.set_paths(dir.string());
        CHECK(!tbs.probe_dtm(pos));
        const auto refused = tbs.refused_files();
        REQUIRE(refused.size() == 1);
        CHECK(refused[0].find("which is missing or refused") != std::string::npos);
    }

    // The flag without FLAG_MOVES_RESOLVED: refused.
    const std::vector<uint8_t> good = test::read_bytes(resolved_dir() / "KQvKP.pytd");
    const fs::path file = dir / "KQvKP.pytd";
    std::vector<uint8_t> bytes = good;
    REQUIRE(test::clear_section_flag(bytes, FLAG_DRAWS_IN_WDL, FLAG_MOVES_RESOLVED) > 0);
    CHECK(test::refusal(file, bytes, "KQvKP", FileKind::DISTANCE).find("flags") != std::string::npos);
    CHECK(test::refusal(file, good, "KQvKP", FileKind::DISTANCE) == "opened");
}
