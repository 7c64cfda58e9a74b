// The quantised weights of one network, laid out for the inference (rows of the feature
// transformer contiguous and 64-byte aligned, so that an update adds whole rows).
#pragma once

#include <cstdint>

#include "eval/nnue/architecture.h"

namespace pythia::nnue {

struct Network {
    alignas(64) int16_t feature_weights[INPUTS * HIDDEN];  // row i: what input i adds to the accumulator
    alignas(64) int16_t feature_bias[HIDDEN];
    // Per output bucket (the first output_buckets used): the side to move's half first, then
    // the other side's; the bias in QA * QB units.
    alignas(64) int16_t output_weights[MAX_OUTPUT_BUCKETS][2 * HIDDEN];
    int16_t output_bias[MAX_OUTPUT_BUCKETS];
    int output_buckets = 1;
};

}  // namespace pythia::nnue
