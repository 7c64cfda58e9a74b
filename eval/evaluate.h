// Static evaluation: a tapered middlegame/endgame sum of material, piece-square tables,
// mobility, pawn structure, king safety, piece terms and threats, with the endgame part scaled
// down in drawish endings. Returned from the side to move's point of view.
#pragma once

#include <cstdint>

#include "engine/core/position.h"
#include "eval/params.h"
#include "eval/pawns.h"
#include "eval/score.h"

namespace pythia {

constexpr int PHASE_MAX = 24;     // all minor and major pieces on the board
constexpr int SCALE_NORMAL = 64;  // endgame scale factor of an ordinary position

// How often each weight entered one evaluation, per colour, plus the blend: the evaluation is
// linear in the weights for a fixed trace, which is what the tuner exploits.
struct EvalTrace {
    int16_t coeff[EVAL_PARAM_COUNT][COLOR_NB];
    int phase;
    int scale;
    bool drawn;  // recognised as a dead draw (insufficient material): no weights apply
};

// The evaluation of pos for the side to move. `pawns` caches pawn structure (one per thread).
Value evaluate(const Position& pos, PawnTable& pawns);
// The same without a cache, recording the trace (for the tuner and the tests).
Value evaluate_traced(const Position& pos, EvalTrace& trace);
// The value a trace predicts for given weights, from White's side (the tuner's model).
double traced_value(const EvalTrace& trace, const EvalParams& params);

}  // namespace pythia
