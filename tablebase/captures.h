// Legal captures on a table board (TbBoard), promotions with capture included; no en passant
// (table positions have no en passant right). The WDL files leave a position "don't care"
// where a capture already achieves its value, so the writer and the prober both need them.
#pragma once

#include "tablebase/tb_board.h"

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

}  // namespace pythia::tb
