// The one place that chooses the engine's evaluation: the network when one is active (embedded
// in the build, or loaded by EvalFile), the hand-written evaluation otherwise. The search calls
// this and nothing else.
#pragma once

#include "eval/evaluate.h"
#include "eval/nnue/accumulator.h"
#include "eval/nnue/active_network.h"
#include "eval/nnue/evaluate_nnue.h"

namespace pythia {

inline Value static_evaluation(const Position& pos, PawnTable& pawns, nnue::AccumulatorStack& accumulators) {
    if (const nnue::Network* net = nnue::active_network()) return nnue::evaluate(*net, pos, accumulators);
    return evaluate(pos, pawns);
}

}  // namespace pythia
