// The two vector kernels of the inference: adding and subtracting rows of the feature
// transformer, and the SCReLU dot product of an accumulator with the output weights. AVX2
// under __AVX2__ (the release build, -march=native); the portable loops otherwise (the debug
// and sanitize builds), which compute exactly the same integers.
#pragma once

#include <cstdint>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "eval/nnue/architecture.h"

namespace pythia::nnue::simd {

// out = in + the rows `add` - the rows `sub` (HIDDEN int16 each; int16 wraps as the trainer's
// weight limits guarantee it never does).
inline void add_sub_rows(const int16_t* in, int16_t* out, const int16_t* const* add, int n_add,
                         const int16_t* const* sub, int n_sub) {
#ifdef __AVX2__
    constexpr int LANES = 16;
    static_assert(HIDDEN % LANES == 0);
    for (int i = 0; i < HIDDEN; i += LANES) {
        __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(in + i));
        for (int k = 0; k < n_add; ++k)
            v = _mm256_add_epi16(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(add[k] + i)));
        for (int k = 0; k < n_sub; ++k)
            v = _mm256_sub_epi16(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(sub[k] + i)));
        _mm256_store_si256(reinterpret_cast<__m256i*>(out + i), v);
    }
#else
    for (int i = 0; i < HIDDEN; ++i) {
        int v = in[i];
        for (int k = 0; k < n_add; ++k) v += add[k][i];
        for (int k = 0; k < n_sub; ++k) v -= sub[k][i];
        out[i] = int16_t(v);
    }
#endif
}

// sum over i of clamp(acc[i], 0, QA)^2 * weights[i], in QA * QA * QB units.
inline int64_t screlu_dot(const int16_t* acc, const int16_t* weights) {
#ifdef __AVX2__
    // clamp(x)^2 * w as (clamp(x) * w) * clamp(x): the first product fits int16 because
    // |w| <= OUTPUT_WEIGHT_LIMIT, and madd then multiplies by clamp(x) and sums pairs in int32.
    constexpr int LANES = 16;
    const __m256i zero = _mm256_setzero_si256(), qa = _mm256_set1_epi16(QA);
    __m256i sum = _mm256_setzero_si256();
    for (int i = 0; i < HIDDEN; i += LANES) {
        const __m256i x =
            _mm256_min_epi16(_mm256_max_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(acc + i)), zero), qa);
        const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(weights + i));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(x, w), x));
    }
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
    int64_t total = 0;
    for (int32_t l : lanes) total += l;
    return total;
#else
    int64_t total = 0;
    for (int i = 0; i < HIDDEN; ++i) {
        const int x = acc[i] < 0 ? 0 : acc[i] > QA ? QA : acc[i];
        total += int64_t(x * weights[i]) * x;
    }
    return total;
#endif
}

}  // namespace pythia::nnue::simd
