// The value a move gets from the value of the position it leads to: shared by the generator
// (conversions), the verifier (every move) and the prober (root moves).
#pragma once

#include <algorithm>
#include <limits>

#include "tablebase/format/value.h"
#include "tablebase/probe/tb_board.h"

namespace pythia::tb {

// The successor's value seen by the mover, one ply further away (DTM, and DTZ of a move that
// does not zero the counter).
inline Value value_from_mover(Value successor) {
    if (is_loss(successor)) return win_in(distance_of(successor) + 1);
    if (is_win(successor)) return loss_in(distance_of(successor) + 1);
    return VALUE_UNKNOWN;
}

// DTZ of a zeroing move into a position whose five-valued WDL (the opponent's) is `wdl`.
inline Value dtz_of_zeroing_move(int wdl) {
    switch (wdl) {
        case -2:
            return win_in(1);
        case -1:
            return win_in(101);
        case 1:
            return loss_in(101);
        case 2:
            return loss_in(1);
        default:
            return VALUE_UNKNOWN;
    }
}

// Orders values from the side to move's view: quick wins, then draws, then slow losses.
inline int value_rank(Value v) {
    if (is_win(v)) return 100000 - distance_of(v);
    if (is_loss(v)) return -100000 + distance_of(v);
    return 0;
}

// The value of a value_rank (its inverse on the ranks values have).
inline Value value_of_rank(int rank) {
    if (rank > 0) return win_in(100000 - rank);
    if (rank < 0) return loss_in(rank + 100000);
    return VALUE_UNKNOWN;
}

// A window of value ranks for a DTM search, as alpha-beta's: the caller needs the exact value
// only where it lies strictly between `lo` and `hi`. A value at or above `hi` may come back as
// any lower bound at or above it, one at or below `lo` as any upper bound at or below it.
struct RankWindow {
    static constexpr int NONE_BELOW = std::numeric_limits<int>::min(), NONE_ABOVE = std::numeric_limits<int>::max();
    int lo = NONE_BELOW, hi = NONE_ABOVE;
    bool exact() const { return lo == NONE_BELOW && hi == NONE_ABOVE; }
};

// The successor's rank whose value_from_mover has `mover_rank` (the inverse of that map on
// ranks, which it turns round: a mover's bound above becomes the successor's bound below).
inline int successor_rank(int mover_rank) {
    if (mover_rank == RankWindow::NONE_ABOVE) return RankWindow::NONE_BELOW;
    if (mover_rank == RankWindow::NONE_BELOW) return RankWindow::NONE_ABOVE;
    if (mover_rank > 0) return -mover_rank - 1;  // win in d <- loss in d - 1
    if (mover_rank < 0) return -mover_rank + 1;  // loss in d <- win in d - 1
    return 0;
}

// The window of a move's successor, from its side to move, where the mover's window is `w` and
// the mover already has a value of rank `best` (if `have_best`): the successor matters only
// while the move can still raise the mover's value and the mover has not reached w.hi.
inline RankWindow successor_window(RankWindow w, bool have_best, int best) {
    const int alpha = have_best ? std::max(w.lo, best) : w.lo;
    return RankWindow{successor_rank(w.hi), successor_rank(alpha)};
}

// A position reached by a double step, with `stm` to move, may also be left by capturing en
// passant. Improves `dtm` and `wdl` (the stored position's values, from stm's view) with the
// en passant captures: the better of the stored position and the captures, or the captures
// alone when the stored position has no other legal move. `lookup(pieces, n, side, dtm, dtz)`
// gives the values after a capture. Returns true if an en passant capture was legal.
template <typename Lookup>
bool improve_with_en_passant(const PieceOn* after, int n, Color stm, Square ep_square, Square pawn_sq, Value& dtm,
                             int& wdl, Lookup&& lookup) {
    TbBoard z;
    z.set(after, n);
    Bitboard capturers = pawn_attacks(~stm, ep_square) & z.by_color[stm] & z.by_type[PAWN];
    bool any = false;
    Value best_dtm = VALUE_UNKNOWN;
    int best_wdl = -3;
    while (capturers) {
        const Square from = pop_lsb(capturers);
        const Bitboard occ = (z.all ^ square_bb(from) ^ square_bb(pawn_sq)) | square_bb(ep_square);
        if (z.attacked(z.king(stm), ~stm, occ, square_bb(pawn_sq))) continue;
        PieceOn next[MAX_PIECES];
        int k = 0;
        for (int i = 0; i < n; ++i) {
            if (after[i].square == pawn_sq) continue;
            next[k] = after[i];
            if (after[i].square == from) next[k].square = ep_square;
            ++k;
        }
        Value sdtm, sdtz;
        lookup(next, k, ~stm, sdtm, sdtz);
        const Value v = value_from_mover(sdtm);
        if (!any || value_rank(v) > value_rank(best_dtm)) best_dtm = v;
        best_wdl = std::max(best_wdl, -wdl_of_dtz(sdtz));
        any = true;
    }
    if (!any) return false;
    const bool other_moves = for_each_legal_move(z, stm, [](const TbMove&) {}) > 0;
    if (!other_moves || value_rank(best_dtm) > value_rank(dtm)) dtm = best_dtm;
    if (!other_moves || best_wdl > wdl) wdl = best_wdl;
    return true;
}

}  // namespace pythia::tb
