// Values of tablebase positions while generating and in memory: one 16-bit word per position
// and side to move, the same encoding for DTM and for DTZ.
//
//   0x0000            undecided; a draw once generation is over
//   0x2000 | s        undecided, but if it turns out lost, lost in at least s plies
//   0x4000 | d        win in d plies (final)
//   0x6000 | d        win in d plies unless a shorter one is found (pending)
//   0x8000 | d        loss in d plies (final; d = 0: checkmated)
//   0xA000 | d        loss in d plies, to be finalised when the search reaches d (pending)
//   0xFFFF            no legal position (don't care)
//
// DTZ values count plies to the next zeroing move the way Syzygy does: a zeroing move into a
// position the opponent loses under the 50-move rule counts 1, into one the opponent loses only
// without it (a blessed loss) counts 101; so DTZ <= 100 means a win under the 50-move rule and
// DTZ > 100 a cursed win (and likewise for losses).
#pragma once

#include <cstdint>

namespace pythia::tb {

using Value = uint16_t;

constexpr Value VALUE_UNKNOWN = 0x0000;
constexpr Value VALUE_ILLEGAL = 0xFFFF;
constexpr Value KIND_MASK = 0xE000;
constexpr Value DIST_MASK = 0x1FFF;
constexpr Value KIND_LOSS_SEED = 0x2000;
constexpr Value KIND_WIN = 0x4000;
constexpr Value KIND_PENDING_WIN = 0x6000;
constexpr Value KIND_LOSS = 0x8000;
constexpr Value KIND_PENDING_LOSS = 0xA000;
constexpr int MAX_DISTANCE = DIST_MASK;

constexpr Value win_in(int plies) { return Value(KIND_WIN | plies); }
constexpr Value loss_in(int plies) { return Value(KIND_LOSS | plies); }
constexpr int distance_of(Value v) { return v & DIST_MASK; }
constexpr bool is_illegal(Value v) { return v == VALUE_ILLEGAL; }
// VALUE_ILLEGAL's kind bits are 0xE000: neither a win nor a loss. One comparison each, so that
// passes over every position of a table test them without a branch.
constexpr bool is_win(Value v) { return (v & KIND_MASK) == KIND_WIN; }
constexpr bool is_loss(Value v) { return (v & KIND_MASK) == KIND_LOSS; }
static_assert(!is_win(VALUE_ILLEGAL) && !is_loss(VALUE_ILLEGAL));
constexpr bool is_draw(Value v) { return v == VALUE_UNKNOWN || (v & KIND_MASK) == KIND_LOSS_SEED; }
constexpr bool is_final(Value v) { return is_win(v) || is_loss(v); }

// Signed plies from the side to move: +d win in d, -d loss in d, 0 draw (and -0 = mated is
// told apart by is_loss). For DTZ, |d| > 100 marks a cursed win or blessed loss.
constexpr int signed_distance(Value v) { return is_win(v) ? distance_of(v) : is_loss(v) ? -distance_of(v) : 0; }

// Five-valued WDL of a final DTZ value: 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss.
constexpr int wdl_of_dtz(Value v) {
    if (is_win(v)) return distance_of(v) <= 100 ? 2 : 1;
    if (is_loss(v)) return distance_of(v) <= 100 ? -2 : -1;
    return 0;
}

// True for a cursed win or a blessed loss (wdl_of_dtz +-1), without a branch: DTZ values are a
// coin toss to the branch predictor in the passes over every position that ask this.
constexpr bool cursed_or_blessed(Value dtz) { return (is_win(dtz) | is_loss(dtz)) & (distance_of(dtz) > 100); }

}  // namespace pythia::tb
