// Checks shared by the tests of file variants (one side to move, resolved DTM) that must answer
// like the tables as generated.
#pragma once

#include <catch2/catch.hpp>

#include "engine/core/position.h"
#include "tablebase/tablebases.h"

namespace pythia::test {

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

}  // namespace pythia::test
