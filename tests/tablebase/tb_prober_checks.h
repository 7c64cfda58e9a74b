// Checks shared by the tests of file variants (one side to move, resolved DTM) that must answer
// like the tables as generated.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <initializer_list>

#include "engine/core/position.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/probe/tablebases.h"
#include "tb_test_tables.h"

namespace pythia::test {

// `got` answers the position of entry `i` of `t` with `c` to move (a legal one) as generated:
// WDL, DTZ and DTM probed together, and the DTM probed alone (no WDL known beforehand, so a
// left-out side's moves are resolved best bound first). Returns the position.
inline Position require_probe_as_generated(const tb::Tablebases& got, const tb::TableValues& t, uint64_t i, Color c) {
    Position pos;
    const std::string fen = tb::index_fen(t.index, i, c);
    REQUIRE(pos.set_fen(fen));
    INFO(fen);
    const auto r = got.probe(pos);
    REQUIRE(r);
    REQUIRE(r->dtm == t.dtm[c][i]);
    REQUIRE(got.probe_dtm(pos) == t.dtm[c][i]);
    REQUIRE(r->dtz == t.dtz[c][i]);
    REQUIRE(r->wdl == tb::wdl_of_dtz(t.dtz[c][i]));
    return pos;
}

// Both probers rank the root moves of `pos` alike: the same moves in the same order, with the
// same DTM, DTZ and WDL under the 50-move rule.
inline void require_same_root_ranking(const tb::Tablebases& expected, const tb::Tablebases& got, const Position& pos) {
    const auto a = expected.rank_root_moves(pos), b = got.rank_root_moves(pos);
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(a->size() == b->size());
    for (size_t j = 0; j < a->size(); ++j) {
        const tb::RootMove &x = (*a)[j], &y = (*b)[j];
        REQUIRE(x.move == y.move);
        REQUIRE(x.dtm == y.dtm);
        REQUIRE(x.dtz == y.dtz);
        REQUIRE(x.wdl50 == y.wdl50);
    }
}

// Table `m` in `dir` loads as the test tables hold it: every entry of both sides, and each side
// of `alone` loaded by itself for lookups (as the generator loads subtables), legal entries.
inline void check_loads_as_generated(const std::filesystem::path& dir, const tb::Material& m,
                                     std::initializer_list<Color> alone) {
    std::string error;
    auto expected = tb::load_table_with_subtables(test_tables_dir(), m, &error, 2);
    REQUIRE(expected);
    auto got = tb::load_table_with_subtables(dir, m, &error, 2);
    INFO(error);
    REQUIRE(got);
    for (Color c : {WHITE, BLACK}) CHECK(differing_entries(*got, *expected, c, false) == 0);
    for (Color c : alone) {
        auto one = tb::load_table_with_subtables(dir, m, &error, 2, uint8_t(1 << c), tb::LoadFor::CONVERSIONS);
        REQUIRE(one);
        CHECK(one->dtm[~c].empty());
        CHECK(differing_entries(*one, *expected, c, true) == 0);
    }
}

}  // namespace pythia::test
