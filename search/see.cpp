#include "search/see.h"

namespace pythia {

bool see_ge(const Position& pos, Move m, Value threshold) {
    // Castling, en passant and promotions are scored as neutral exchanges.
    if (m.kind() != Move::NORMAL) return VALUE_ZERO >= threshold;

    const Square from = m.from(), to = m.to();
    // What we win if the opponent does not recapture, minus what we lose if they do.
    int swap = SEE_VALUE[type_of(pos.piece_on(to))] - threshold;
    if (swap < 0) return false;
    swap = SEE_VALUE[type_of(pos.piece_on(from))] - swap;
    if (swap <= 0) return true;

    Bitboard occupied = pos.pieces() ^ square_bb(from) ^ square_bb(to);
    Color side = pos.side_to_move();
    Bitboard attackers = pos.attackers_to(to, occupied);
    const Bitboard diagonal = pos.pieces(BISHOP, QUEEN), straight = pos.pieces(ROOK, QUEEN);
    int result = 1;

    while (true) {
        side = ~side;
        attackers &= occupied;
        Bitboard ours = attackers & pos.pieces(side);
        if (!ours) break;
        result ^= 1;
        // The least valuable attacker recaptures; removing it may reveal a slider behind.
        Bitboard b;
        if ((b = ours & pos.pieces(PAWN))) {
            if ((swap = SEE_VALUE[PAWN] - swap) < result) break;
            occupied ^= square_bb(lsb(b));
            attackers |= bishop_attacks(to, occupied) & diagonal;
        } else if ((b = ours & pos.pieces(KNIGHT))) {
            if ((swap = SEE_VALUE[KNIGHT] - swap) < result) break;
            occupied ^= square_bb(lsb(b));
        } else if ((b = ours & pos.pieces(BISHOP))) {
            if ((swap = SEE_VALUE[BISHOP] - swap) < result) break;
            occupied ^= square_bb(lsb(b));
            attackers |= bishop_attacks(to, occupied) & diagonal;
        } else if ((b = ours & pos.pieces(ROOK))) {
            if ((swap = SEE_VALUE[ROOK] - swap) < result) break;
            occupied ^= square_bb(lsb(b));
            attackers |= rook_attacks(to, occupied) & straight;
        } else if ((b = ours & pos.pieces(QUEEN))) {
            if ((swap = SEE_VALUE[QUEEN] - swap) < result) break;
            occupied ^= square_bb(lsb(b));
            attackers |= (bishop_attacks(to, occupied) & diagonal) | (rook_attacks(to, occupied) & straight);
        } else {
            // Only the king is left: it may capture only if the other side has no attacker left.
            return (attackers & ~pos.pieces(side)) ? result ^ 1 : result;
        }
    }
    return bool(result);
}

}  // namespace pythia
