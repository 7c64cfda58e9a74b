// The quantised weights of one network and its shape, laid out for the inference (rows of the
// feature transformer contiguous and 64-byte aligned, so that an update adds whole rows).
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "eval/nnue/architecture.h"

namespace pythia::nnue {

// 64-byte aligned storage for the weights (the SIMD kernels load whole aligned registers).
template <typename T>
struct AlignedAllocator {
    using value_type = T;
    AlignedAllocator() = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U>&) {}
    T* allocate(size_t n) {
        const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
        if (void* p = std::aligned_alloc(64, bytes)) return static_cast<T*>(p);
        throw std::bad_alloc();
    }
    void deallocate(T* p, size_t) { std::free(p); }
    bool operator==(const AlignedAllocator&) const { return true; }
};
using Weights = std::vector<int16_t, AlignedAllocator<int16_t>>;

struct Network {
    int hidden = 0;         // accumulator width: a multiple of HIDDEN_STEP, at most MAX_HIDDEN
    int king_buckets = 1;   // blocks of PIECE_INPUTS inputs
    bool mirrored = false;  // a perspective whose king is on files e-h sees the board mirrored
    // The bucket of the perspective's own king, by its square as the perspective sees it (Black's
    // vertically mirrored, and left to right too when mirrored; then files e-h are never asked).
    std::array<uint8_t, SQUARE_NB> bucket_of{};

    Weights feature_weights;  // row i (hidden values): what input i adds to the accumulator
    Weights feature_bias;     // hidden
    Weights output_weights;   // 2 x hidden: the side to move's half first, then the other side's
    int16_t output_bias = 0;  // in QA * QB units

    // A net of this shape, every weight zero.
    static Network of_shape(int hidden, int king_buckets = 1, bool mirrored = false) {
        Network net;
        net.hidden = hidden;
        net.king_buckets = king_buckets;
        net.mirrored = mirrored;
        net.feature_weights.assign(size_t(king_buckets) * PIECE_INPUTS * hidden, 0);
        net.feature_bias.assign(size_t(hidden), 0);
        net.output_weights.assign(size_t(2 * hidden), 0);
        return net;
    }
    int inputs() const { return king_buckets * PIECE_INPUTS; }
    // One view for every king square: the plain net of format version 1.
    bool plain() const { return king_buckets == 1 && !mirrored; }

    // How `perspective` sees the board with its king on `king`.
    View view(Color perspective, Square king) const {
        const int relative = perspective == WHITE ? king : king ^ 56;
        const bool flip = mirrored && file_of(Square(relative)) >= FILE_E;
        return View{bucket_of[relative ^ (flip ? 7 : 0)], flip};
    }
};

}  // namespace pythia::nnue
