// The quantised weights of one network, laid out for the inference (rows of the feature
// transformer contiguous and 64-byte aligned, so that an update adds whole rows).
#pragma once

#include <cstdint>

#include "eval/nnue/architecture.h"

namespace pythia::nnue {

struct Network {
    alignas(64) int16_t feature_weights[INPUTS * HIDDEN];  // row i: what input i adds to the accumulator
    alignas(64) int16_t feature_bias[HIDDEN];
    alignas(64) int16_t output_weights[2 * HIDDEN];  // side to move's half first, then the other side's
    int16_t output_bias;                             // in QA * QB units
};

}  // namespace pythia::nnue
