// Values (centipawn-like units) and tapered scores: a middlegame and an endgame value packed in
// one int, so that adding and subtracting a term touches both phases at once.
#pragma once

#include <cstdint>

#include "engine/core/types.h"

namespace pythia {

using Value = int;

constexpr Value VALUE_ZERO = 0;
constexpr Value VALUE_DRAW = 0;
constexpr Value VALUE_MATE = 32000;
constexpr Value VALUE_INFINITE = 32001;
constexpr Value VALUE_NONE = 32002;  // "no value stored"
// Scores beyond these bounds are mates found inside the search horizon.
constexpr Value VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY;
constexpr Value VALUE_MATED_IN_MAX_PLY = -VALUE_MATE_IN_MAX_PLY;
// Tablebase wins and losses known inside the search: below every mate, above every
// evaluation, and like mates adjusted by the distance from the root (ply).
constexpr Value VALUE_TB = VALUE_MATE_IN_MAX_PLY - 1;
constexpr Value VALUE_TB_WIN_IN_MAX_PLY = VALUE_TB - MAX_PLY;
constexpr Value VALUE_TB_LOSS_IN_MAX_PLY = -VALUE_TB_WIN_IN_MAX_PLY;
// Static evaluations are clamped inside this range so that they never look like mates.
constexpr Value VALUE_EVAL_MAX = 20000;

constexpr Value mate_in(int ply) { return VALUE_MATE - ply; }
constexpr Value mated_in(int ply) { return -VALUE_MATE + ply; }
constexpr bool is_mate_score(Value v) { return v >= VALUE_MATE_IN_MAX_PLY || v <= VALUE_MATED_IN_MAX_PLY; }
constexpr Value tb_win_in(int ply) { return VALUE_TB - ply; }
constexpr Value tb_loss_in(int ply) { return -VALUE_TB + ply; }
// A mate or a tablebase result: a proven outcome rather than an evaluation.
constexpr bool is_decisive(Value v) { return v >= VALUE_TB_WIN_IN_MAX_PLY || v <= VALUE_TB_LOSS_IN_MAX_PLY; }

// Score: the endgame value in the upper 16 bits, the middlegame value in the lower 16 (the
// lower half is signed, so the upper half absorbs its borrow; eg_value undoes that).
enum Score : int { SCORE_ZERO };

constexpr Score S(int mg, int eg) { return Score(int(unsigned(eg) << 16) + mg); }
constexpr Value mg_value(Score s) { return Value(int16_t(uint16_t(unsigned(s)))); }
constexpr Value eg_value(Score s) { return Value(int16_t(uint16_t(unsigned(s + 0x8000) >> 16))); }

constexpr Score operator+(Score a, Score b) { return Score(int(a) + int(b)); }
constexpr Score operator-(Score a, Score b) { return Score(int(a) - int(b)); }
constexpr Score operator-(Score a) { return Score(-int(a)); }
constexpr Score operator*(Score a, int n) { return Score(int(a) * n); }
constexpr Score operator*(int n, Score a) { return Score(int(a) * n); }
inline Score& operator+=(Score& a, Score b) { return a = a + b; }
inline Score& operator-=(Score& a, Score b) { return a = a - b; }

}  // namespace pythia
