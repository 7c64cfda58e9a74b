// The sum of evaluation terms, optionally with a trace of how often each weight was used (the
// tuner's coefficients). Internal to eval/.
#pragma once

#include "eval/evaluate.h"
#include "eval/params.h"

namespace pythia::eval_detail {

template <bool TRACE>
struct Terms {
    Score score = SCORE_ZERO;  // from White's side
    EvalTrace* trace = nullptr;

    // Adds weight `w` (a reference into PARAMS) n times for colour c.
    void add(const Score& w, Color c, int n = 1) {
        score += c == WHITE ? w * n : -(w * n);
        if constexpr (TRACE) trace->coeff[param_index(w)][c] += int16_t(n);
    }
};

// Bit masks for pawn structure, indexed [colour][square].
struct PawnMasks {
    Bitboard forward_file[COLOR_NB][SQUARE_NB];  // squares ahead on the same file
    Bitboard attack_span[COLOR_NB][SQUARE_NB];   // squares ahead on the adjacent files
    Bitboard passed_span[COLOR_NB][SQUARE_NB];   // both: where an enemy pawn stops a passer
    Bitboard adjacent_files[8];
    PawnMasks();
};
extern const PawnMasks MASKS;

}  // namespace pythia::eval_detail

namespace pythia::eval_detail {

// Fills everything of `entry` but the key; the structure terms go to `terms`.
template <bool TRACE>
void evaluate_pawns(const Position& pos, PawnEntry& entry, Terms<TRACE>& terms);

}  // namespace pythia::eval_detail
