// The two vector kernels of the inference: adding and subtracting rows of the feature
// transformer, and the SCReLU dot product of an accumulator with the output weights. AVX2
// under __AVX2__ (the release build, -march=native); the portable loops otherwise (the debug
// and sanitize builds), which compute exactly the same integers.
#pragma once

#include <cstdint>
#include <type_traits>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "eval/nnue/architecture.h"

namespace pythia::nnue::simd {

// Calls f with the net's width as a compile-time constant for the usual widths (the kernels'
// loops are then unrolled, as they were for the one width of the first nets), else with 0: the
// kernels then take the width at run time.
template <typename F>
decltype(auto) with_width(int hidden, F&& f) {
    switch (hidden) {
        case 128:
            return f(std::integral_constant<int, 128>{});
        case 256:
            return f(std::integral_constant<int, 256>{});
        case 512:
            return f(std::integral_constant<int, 512>{});
        case 768:
            return f(std::integral_constant<int, 768>{});
        default:
            return f(std::integral_constant<int, 0>{});
    }
}

// out = in + the rows `add` - the rows `sub` (N int16 each, or n when N is 0; a multiple of
// HIDDEN_STEP; int16 wraps as the trainer's weight limits guarantee it never does).
template <int N>
inline void add_sub_rows(int n, const int16_t* in, int16_t* out, const int16_t* const* add, int n_add,
                         const int16_t* const* sub, int n_sub) {
    if constexpr (N != 0) n = N;
#ifdef __AVX2__
    constexpr int LANES = 16;
    static_assert(HIDDEN_STEP % LANES == 0);
    for (int i = 0; i < n; i += LANES) {
        __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(in + i));
        for (int k = 0; k < n_add; ++k)
            v = _mm256_add_epi16(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(add[k] + i)));
        for (int k = 0; k < n_sub; ++k)
            v = _mm256_sub_epi16(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(sub[k] + i)));
        _mm256_store_si256(reinterpret_cast<__m256i*>(out + i), v);
    }
#else
    for (int i = 0; i < n; ++i) {
        int v = in[i];
        for (int k = 0; k < n_add; ++k) v += add[k][i];
        for (int k = 0; k < n_sub; ++k) v -= sub[k][i];
        out[i] = int16_t(v);
    }
#endif
}

// sum over i < N (or n when N is 0) of clamp(acc[i], 0, QA)^2 * weights[i], in QA * QA * QB
// units. A lane's int32 sum holds at most MAX_HIDDEN / 16 madds of 2 x 255 x 127 x 255 each.
template <int N>
inline int64_t screlu_dot(int n, const int16_t* acc, const int16_t* weights) {
    if constexpr (N != 0) n = N;
    static_assert(int64_t(MAX_HIDDEN / 16) * 2 * QA * OUTPUT_WEIGHT_LIMIT * QA < (int64_t(1) << 31));
#ifdef __AVX2__
    // clamp(x)^2 * w as (clamp(x) * w) * clamp(x): the first product fits int16 because
    // |w| <= OUTPUT_WEIGHT_LIMIT, and madd then multiplies by clamp(x) and sums pairs in int32.
    constexpr int LANES = 16;
    const __m256i zero = _mm256_setzero_si256(), qa = _mm256_set1_epi16(QA);
    __m256i sum = _mm256_setzero_si256();
    for (int i = 0; i < n; i += LANES) {
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
    for (int i = 0; i < n; ++i) {
        const int x = acc[i] < 0 ? 0 : acc[i] > QA ? QA : acc[i];
        total += int64_t(x * weights[i]) * x;
    }
    return total;
#endif
}

}  // namespace pythia::nnue::simd
