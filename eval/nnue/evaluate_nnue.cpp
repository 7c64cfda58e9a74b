#include "eval/nnue/evaluate_nnue.h"

#include <algorithm>

#include "eval/nnue/simd.h"

namespace pythia::nnue {

namespace {

Value output(const Network& net, const Accumulator& acc, Color stm) {
    // The dot products are in QA * QA * QB units: one division by QA brings them to the
    // bias's QA * QB, and SCALE / (QA * QB) to centipawns.
    const int64_t sum = simd::with_width(net.hidden, [&](auto width) {
        return simd::screlu_dot<width()>(net.hidden, acc.values[stm], net.output_weights.data()) +
               simd::screlu_dot<width()>(net.hidden, acc.values[~stm], net.output_weights.data() + net.hidden);
    });
    const int64_t raw = sum / QA + net.output_bias;
    const int64_t cp = raw * SCALE / (QA * QB);
    // Never a score the search would read as a mate or a tablebase result.
    return Value(std::clamp<int64_t>(cp, VALUE_TB_LOSS_IN_MAX_PLY + 1, VALUE_TB_WIN_IN_MAX_PLY - 1));
}

}  // namespace

Value evaluate(const Network& net, const Position& pos, AccumulatorStack& stack) {
    return output(net, stack.current(net, pos), pos.side_to_move());
}

Value evaluate_from_scratch(const Network& net, const Position& pos) {
    Accumulator acc;
    refresh(net, pos, WHITE, acc);
    refresh(net, pos, BLACK, acc);
    return output(net, acc, pos.side_to_move());
}

}  // namespace pythia::nnue
