// The network's shape and quantisation, shared by the inference, the net file and (as numbers
// the file header repeats) the trainer, eval/nnue/train.py.
//
//   768 inputs per perspective (colour relative to the perspective x 6 types x 64 squares,
//   Black's board mirrored vertically so that each side sees itself at the bottom)
//   -> HIDDEN int16 neurons per side (the accumulator, one feature transformer shared by both)
//   -> SCReLU of [side to move, other side] -> 1 output.
#pragma once

#include "engine/core/types.h"

namespace pythia::nnue {

constexpr int INPUTS = 768;
// Accumulator width: 128 is cheap to update and evaluate, enough for a first net trained on a
// few million positions; wider nets are to be measured in Elo per nps.
constexpr int HIDDEN = 128;
constexpr int QA = 255;     // accumulator quantisation: 1.0 is 255 (SCReLU clips at QA)
constexpr int QB = 64;      // output weight quantisation
constexpr int SCALE = 400;  // the output times SCALE is centipawns (sigmoid(eval / SCALE) = win chance)
// |output weight| <= this, so that a clipped activation (<= QA) times a weight fits int16,
// which the SIMD SCReLU relies on; the trainer clips the weights to it.
constexpr int OUTPUT_WEIGHT_LIMIT = 127;

// The input index of `piece` on `sq` as the side `perspective` sees it.
constexpr int feature_index(Color perspective, Piece piece, Square sq) {
    const int relative_color = color_of(piece) != perspective;
    const int relative_square = perspective == WHITE ? sq : sq ^ 56;
    return relative_color * 384 + (type_of(piece) - PAWN) * 64 + relative_square;
}

}  // namespace pythia::nnue
