// Win/draw/loss chances (permille) for a score, for UCI_ShowWDL: certain for mates and
// tablebase results, otherwise a logistic model of the evaluation. Rough: +100 is about a 25%
// win chance and +300 about 90%.
#pragma once

#include <array>
#include <cmath>

#include "eval/score.h"
#include "search/params.h"

namespace pythia {

inline std::array<int, 3> wdl_from_score(Value v) {
    if (v >= VALUE_TB_WIN_IN_MAX_PLY) return {1000, 0, 0};
    if (v <= VALUE_TB_LOSS_IN_MAX_PLY) return {0, 0, 1000};
    auto chance = [](double x) {
        return 1000.0 / (1.0 + std::exp((search_params::WDL_MIDPOINT - x) / search_params::WDL_SCALE));
    };
    const int win = int(std::lround(chance(v))), loss = int(std::lround(chance(-v)));
    return {win, 1000 - win - loss, loss};
}

}  // namespace pythia
