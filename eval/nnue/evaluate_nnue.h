// The network's evaluation of a position from its accumulators, from the side to move's view.
#pragma once

#include "engine/core/position.h"
#include "eval/nnue/accumulator.h"
#include "eval/score.h"

namespace pythia::nnue {

Value evaluate(const Network& net, const Position& pos, AccumulatorStack& stack);
// The same from a freshly computed accumulator (tests, the `eval` command).
Value evaluate_from_scratch(const Network& net, const Position& pos);

}  // namespace pythia::nnue
