// Legal captures and promotions on a table board (TbBoard); no en passant (table positions
// have no en passant right). The files leave a position's value to the reader where such a
// move already achieves it (WDL: captures and queen promotions; DTM: every capture and
// promotion), so the writer, the loader and the prober all need them.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <optional>

#include "tablebase/probe/move_values.h"
#include "tablebase/probe/tb_board.h"

namespace pythia::tb {

// Calls f(move) for each legal capture of side `us`; stops early when f returns true.
// Returns true if it was stopped.
template <typename F>
bool for_each_legal_capture(const TbBoard& b, Color us, F&& f) {
    const Color them = ~us;
    const Square ksq = b.king(us);
    const Bitboard victims = b.by_color[them] & ~b.by_type[KING];
    for (int i = 0; i < b.n; ++i) {
        const PieceOn& pc = b.pieces[i];
        if (pc.color != us) continue;
        const Square from = pc.square;
        Bitboard targets = (pc.type == PAWN ? pawn_attacks(us, from) : attacks_bb(pc.type, from, b.all)) & victims;
        while (targets) {
            const Square to = pop_lsb(targets);
            const Bitboard occ = b.all ^ square_bb(from);
            if (b.attacked(pc.type == KING ? to : ksq, them, occ, square_bb(to))) continue;
            TbMove m{i, from, to, b.slot_on(to), NO_PIECE_TYPE, false};
            if (pc.type == PAWN && relative_rank(us, to) == RANK_8) {
                for (PieceType promo : {QUEEN, ROOK, BISHOP, KNIGHT}) {
                    m.promotion = promo;
                    if (f(m)) return true;
                }
            } else if (f(m)) {
                return true;
            }
        }
    }
    return false;
}

// The captures the WDL files rely on: those of the most valuable piece that can be legally
// captured (queen, rook, bishop, knight, pawn), by any capturer. Writer and prober must agree on
// this set; limiting it to one victim type saves probes and costs about 2 % of WDL size.
template <typename F>
bool for_each_resolving_capture(const TbBoard& b, Color us, F&& f) {
    int top = NO_PIECE_TYPE;
    for_each_legal_capture(b, us, [&](const TbMove& m) {
        top = std::max<int>(top, b.pieces[m.captured_slot].type);
        return top == QUEEN;
    });
    if (top == NO_PIECE_TYPE) return false;
    return for_each_legal_capture(b, us,
                                  [&](const TbMove& m) { return b.pieces[m.captured_slot].type == top && f(m); });
}

// The moves a WDL section relies on: the resolving captures and, in a section flagged
// FLAG_PROMOTIONS_RESOLVED (`promotions`), every quiet promotion to a queen. An under-promotion
// rarely does better than a queen, and leaving it out saves three probes per pawn.
template <typename F>
bool for_each_resolving_move(const TbBoard& b, Color us, bool promotions, F&& f) {
    if (for_each_resolving_capture(b, us, f)) return true;
    return promotions && for_each_quiet_promotion(b, us, {QUEEN}, f);
}

// The best WDL (from `us`'s view) that a resolving move reaches, searched until one reaches
// `enough`. `wdl_after(pieces, n, best)` gives the WDL after the move from the opponent's view
// (`best`: the best so far, -3 before any, for a caller that searches within a window), or
// nullopt when it is unknown (a table missing). Returns nullopt if a move's value was unknown
// before `enough` was reached, -3 if there is no resolving move. The writer, the prober and
// the verifier all decide which positions the moves resolve with it.
template <typename WdlAfter>
std::optional<int> best_resolving_move(const TbBoard& b, Color us, bool promotions, int enough, WdlAfter&& wdl_after) {
    int best = -3;
    bool missing = false;
    for_each_resolving_move(b, us, promotions, [&](const TbMove& m) {
        PieceOn after[MAX_PIECES];
        const int k = pieces_after(b, m, after);
        const std::optional<int> v = wdl_after(after, k, best);
        if (!v) {
            missing = true;
            return true;
        }
        best = std::max(best, -*v);
        return best >= enough;
    });
    if (missing) return std::nullopt;
    return best;
}

// Calls f(move) for each legal promotion of `us` without a capture, to each piece type of
// `pieces`; stops early when f returns true. Returns true if it was stopped.
template <typename F>
bool for_each_quiet_promotion(const TbBoard& b, Color us, std::initializer_list<PieceType> pieces, F&& f) {
    const Square ksq = b.king(us);
    for (int i = 0; i < b.n; ++i) {
        const PieceOn& pc = b.pieces[i];
        if (pc.color != us || pc.type != PAWN || relative_rank(us, pc.square) != RANK_7) continue;
        const Square to = pc.square + pawn_push(us);
        if (b.all & square_bb(to)) continue;
        if (b.attacked(ksq, ~us, (b.all ^ square_bb(pc.square)) | square_bb(to))) continue;
        TbMove m{i, pc.square, to, -1, NO_PIECE_TYPE, false};
        for (PieceType promo : pieces) {
            m.promotion = promo;
            if (f(m)) return true;
        }
    }
    return false;
}

// Calls f(move) for each legal move of `us` that leaves the table: every capture (promotions
// with capture included) and every promotion. A DTM section flagged FLAG_MOVES_RESOLVED stores
// a value no better than the exact one where such a move already achieves it, so the writer, the
// loader and the prober all take the best of the stored value and these moves.
template <typename F>
void for_each_leaving_move(const TbBoard& b, Color us, F&& f) {
    for_each_legal_capture(b, us, [&](const TbMove& m) {
        f(m);
        return false;
    });
    for_each_quiet_promotion(b, us, {QUEEN, ROOK, BISHOP, KNIGHT}, [&](const TbMove& m) {
        f(m);
        return false;
    });
}

// Whether `us` has a move that leaves the table (one of for_each_leaving_move's): stops at the first.
inline bool has_leaving_move(const TbBoard& b, Color us) {
    auto any = [](const TbMove&) { return true; };
    return for_each_legal_capture(b, us, any) || for_each_quiet_promotion(b, us, {QUEEN}, any);
}

// The best DTM (from `us`'s view) that a move leaving the table reaches. `dtm_after(pieces, n)`
// gives the DTM after the move from the opponent's view, or nullopt when it is unknown (a table
// missing). Returns nullopt if one was unknown, VALUE_ILLEGAL if there is no such move.
template <typename DtmAfter>
std::optional<Value> best_leaving_move_dtm(const TbBoard& b, Color us, DtmAfter&& dtm_after) {
    Value best = VALUE_ILLEGAL;
    bool missing = false;
    for_each_leaving_move(b, us, [&](const TbMove& m) {
        if (missing) return;
        PieceOn after[MAX_PIECES];
        const int k = pieces_after(b, m, after);
        const std::optional<Value> v = dtm_after(after, k);
        if (!v) {
            missing = true;
            return;
        }
        const Value mine = value_from_mover(*v);
        if (best == VALUE_ILLEGAL || value_rank(mine) > value_rank(best)) best = mine;
    });
    if (missing) return std::nullopt;
    return best;
}

}  // namespace pythia::tb
