// Static exchange evaluation: the material outcome of the capture sequence on one square.
#pragma once

#include "engine/core/position.h"
#include "eval/score.h"

namespace pythia {

// Rough piece values for exchanges and move ordering (not the evaluation's).
constexpr Value SEE_VALUE[PIECE_TYPE_NB] = {0, 100, 320, 330, 500, 950, 20000};

// True if the exchange started by the legal move m wins at least `threshold`.
bool see_ge(const Position& pos, Move m, Value threshold);

}  // namespace pythia
