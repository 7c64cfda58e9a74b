// The network's shape and quantisation, shared by the inference, the net file and (as numbers
// the file header repeats) the trainer, eval/nnue/train.py.
//
//   768 inputs per perspective and king bucket (colour relative to the perspective x 6 types x
//   64 squares, Black's board mirrored vertically so that each side sees itself at the bottom,
//   and, in a mirrored net, the board mirrored left to right while the perspective's king is on
//   files e-h; the king's square then picks one of the buckets' 768-input blocks)
//   -> hidden int16 neurons per side (the accumulator, one feature transformer shared by both)
//   -> SCReLU of [side to move, other side] -> 1 output.
//
// The shape (hidden width, king buckets, mirroring) is the net file's (network.h); one bucket
// and no mirroring is the plain 768-input net.
#pragma once

#include "engine/core/types.h"

namespace pythia::nnue {

constexpr int PIECE_INPUTS = 768;  // inputs of one king bucket
constexpr int MAX_KING_BUCKETS = 32;
constexpr int MAX_HIDDEN = 1024;  // the accumulator's room; a net's width is at most this
constexpr int HIDDEN_STEP = 16;   // and a multiple of this (an AVX2 register of int16)
constexpr int QA = 255;           // accumulator quantisation: 1.0 is 255 (SCReLU clips at QA)
constexpr int QB = 64;            // output weight quantisation
constexpr int SCALE = 400;        // the output times SCALE is centipawns (sigmoid(eval / SCALE) = win chance)
// |output weight| <= this, so that a clipped activation (<= QA) times a weight fits int16,
// which the SIMD SCReLU relies on; the trainer clips the weights to it.
constexpr int OUTPUT_WEIGHT_LIMIT = 127;

// How one perspective sees the board: which king bucket, and whether mirrored left to right.
// It changes only when that perspective's own king moves.
struct View {
    int bucket = 0;
    bool mirrored = false;
    bool operator==(const View&) const = default;
};

// The input index of `piece` on `sq` as the side `perspective` sees it, in its view.
constexpr int feature_index(Color perspective, View view, Piece piece, Square sq) {
    const int relative_color = color_of(piece) != perspective;
    const int relative_square = (perspective == WHITE ? sq : sq ^ 56) ^ (view.mirrored ? 7 : 0);
    return view.bucket * PIECE_INPUTS + relative_color * 384 + (type_of(piece) - PAWN) * 64 + relative_square;
}

}  // namespace pythia::nnue
