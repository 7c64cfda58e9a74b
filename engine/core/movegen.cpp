#include "engine/core/movegen.h"

namespace pythia {

namespace {

constexpr bool wants_noisy(GenType t) { return t != GenType::QUIET; }
constexpr bool wants_quiet(GenType t) { return t != GenType::NOISY; }

// Queen promotions count as noisy, under-promotions as quiet (quiescence skips them).
template <GenType T>
Move* add_promotions(Move* out, Square from, Square to) {
    if constexpr (wants_noisy(T)) *out++ = Move::make(from, to, Move::PROMOTION, QUEEN);
    if constexpr (wants_quiet(T)) {
        *out++ = Move::make(from, to, Move::PROMOTION, ROOK);
        *out++ = Move::make(from, to, Move::PROMOTION, BISHOP);
        *out++ = Move::make(from, to, Move::PROMOTION, KNIGHT);
    }
    return out;
}

template <Color Us, GenType T>
Move* generate_pawn_moves(const Position& pos, Move* out, Bitboard pawns, Bitboard check_mask) {
    constexpr Color Them = ~Us;
    constexpr int Up = Us == WHITE ? 8 : -8;
    constexpr int UpLeft = Us == WHITE ? 7 : -9;   // towards the a-file
    constexpr int UpRight = Us == WHITE ? 9 : -7;  // towards the h-file
    constexpr Bitboard Rank7 = Us == WHITE ? rank_bb(RANK_7) : rank_bb(RANK_2);
    constexpr Bitboard Rank3 = Us == WHITE ? rank_bb(RANK_3) : rank_bb(RANK_6);

    const Bitboard empty = ~pos.pieces();
    const Bitboard enemies = pos.pieces(Them) & check_mask;
    const Bitboard on7 = pawns & Rank7, not7 = pawns & ~Rank7;

    if constexpr (wants_quiet(T)) {
        Bitboard single = shift<Up>(not7) & empty;
        Bitboard dbl = shift<Up>(single & Rank3) & empty & check_mask;
        single &= check_mask;
        while (single) {
            Square to = pop_lsb(single);
            *out++ = Move(to - Up, to);
        }
        while (dbl) {
            Square to = pop_lsb(dbl);
            *out++ = Move(to - 2 * Up, to);
        }
    }
    if constexpr (wants_noisy(T)) {
        Bitboard left = shift<UpLeft>(not7) & enemies, right = shift<UpRight>(not7) & enemies;
        while (left) {
            Square to = pop_lsb(left);
            *out++ = Move(to - UpLeft, to);
        }
        while (right) {
            Square to = pop_lsb(right);
            *out++ = Move(to - UpRight, to);
        }
    }
    if (on7) {
        Bitboard push = shift<Up>(on7) & empty & check_mask;
        Bitboard left = shift<UpLeft>(on7) & enemies, right = shift<UpRight>(on7) & enemies;
        while (push) {
            Square to = pop_lsb(push);
            out = add_promotions<T>(out, to - Up, to);
        }
        while (left) {
            Square to = pop_lsb(left);
            out = add_promotions<T>(out, to - UpLeft, to);
        }
        while (right) {
            Square to = pop_lsb(right);
            out = add_promotions<T>(out, to - UpRight, to);
        }
    }
    return out;
}

// Castling on one side, if the right is held, nothing stands between king, rook and their
// squares, and no square of the king's way (its destination included) is attacked. The
// rights guarantee king and rook placement (FEN validation and do_move keep them honest). In
// Chess960 the castling rook may have shielded the king's square from a slider behind it
// (rook b1, enemy queen a1, king c1), so the king's squares are tested without that rook; in
// standard chess nothing stands behind it. The caller has checked that we are not in check.
template <Color Us, bool KingSide>
Move* add_castling(const Position& pos, Move* out, Bitboard occupied, Bitboard theirs) {
    constexpr int right = castling_right(Us, KingSide);
    if (!pos.can_castle(right) || (occupied & pos.castling_path(right))) return out;
    if (pos.is_chess960()) occupied ^= square_bb(pos.castling_rook_square(right));
    for (Bitboard path = pos.castling_king_path(right); path; path &= path - 1)
        if (pos.attackers_to(lsb(path), occupied) & theirs) return out;
    *out++ = pos.castling_move(right);
    return out;
}

template <Color Us, GenType T>
Move* generate_all(const Position& pos, Move* out) {
    constexpr Color Them = ~Us;
    constexpr int Up = Us == WHITE ? 8 : -8;
    const Square ksq = pos.king_square(Us);
    const Bitboard occupied = pos.pieces(), ours = pos.pieces(Us), theirs = pos.pieces(Them);
    const Bitboard checkers = pos.checkers();

    Bitboard targets = 0;  // squares our moves may go to, by generation type
    if constexpr (wants_noisy(T)) targets |= theirs;
    if constexpr (wants_quiet(T)) targets |= ~occupied;

    // 1. King moves: to squares not attacked once the king has left its square (so that it
    //    cannot step back along a checking slider's line).
    const Bitboard without_king = occupied ^ square_bb(ksq);
    for (Bitboard b = king_attacks(ksq) & targets; b;) {
        Square to = pop_lsb(b);
        if (!(pos.attackers_to(to, without_king) & theirs)) *out++ = Move(ksq, to);
    }
    if (more_than_one(checkers)) return out;  // double check: only the king may move

    // 2. A single check must be captured or blocked.
    const Bitboard check_mask = checkers ? between_bb(ksq, lsb(checkers)) : ~0ULL;
    targets &= check_mask;

    // 3. Pinned pieces: ours, alone between our king and an enemy slider on the same line.
    Bitboard pinned = 0;
    Bitboard snipers = (rook_attacks(ksq, theirs) & pos.pieces(Them, ROOK, QUEEN)) |
                       (bishop_attacks(ksq, theirs) & pos.pieces(Them, BISHOP, QUEEN));
    while (snipers) {
        Square s = pop_lsb(snipers);
        Bitboard blockers = between_bb(ksq, s) & occupied & ~square_bb(s);
        if (blockers && !more_than_one(blockers) && (blockers & ours)) pinned |= blockers;
    }

    // 4. Pawns. Pinned pawns move only along their pin line; in check a pinned piece can
    //    never help, so it is skipped.
    out = generate_pawn_moves<Us, T>(pos, out, pos.pieces(Us, PAWN) & ~pinned, check_mask);
    if (!checkers) {
        for (Bitboard b = pos.pieces(Us, PAWN) & pinned; b;) {
            Square from = pop_lsb(b);
            Move buffer[12];
            Move* end = generate_pawn_moves<Us, T>(pos, buffer, square_bb(from), ~0ULL);
            for (Move* m = buffer; m != end; ++m)
                if (line_bb(ksq, from) & square_bb(m->to())) *out++ = *m;
        }
    }

    // 5. En passant, tested by looking at the board after the capture: it removes two pieces
    //    from one rank, which no pin mask describes.
    if (wants_noisy(T) && pos.ep_square() != SQ_NONE) {
        const Square ep = pos.ep_square(), captured = ep - Up;
        if (check_mask & (square_bb(ep) | square_bb(captured))) {
            for (Bitboard b = pawn_attacks(Them, ep) & pos.pieces(Us, PAWN); b;) {
                Square from = pop_lsb(b);
                Bitboard after = (occupied ^ square_bb(from) ^ square_bb(captured)) | square_bb(ep);
                if (!(rook_attacks(ksq, after) & pos.pieces(Them, ROOK, QUEEN)) &&
                    !(bishop_attacks(ksq, after) & pos.pieces(Them, BISHOP, QUEEN)))
                    *out++ = Move::make(from, ep, Move::EN_PASSANT);
            }
        }
    }

    // 6. Knights (a pinned knight cannot move at all) and sliders.
    for (Bitboard b = pos.pieces(Us, KNIGHT) & ~pinned; b;) {
        Square from = pop_lsb(b);
        for (Bitboard a = knight_attacks(from) & targets; a;) *out++ = Move(from, pop_lsb(a));
    }
    for (Bitboard b = pos.pieces(Us, BISHOP, QUEEN); b;) {
        Square from = pop_lsb(b);
        Bitboard a = bishop_attacks(from, occupied) & targets;
        if (pinned & square_bb(from)) a &= line_bb(ksq, from);
        while (a) *out++ = Move(from, pop_lsb(a));
    }
    for (Bitboard b = pos.pieces(Us, ROOK, QUEEN); b;) {
        Square from = pop_lsb(b);
        Bitboard a = rook_attacks(from, occupied) & targets;
        if (pinned & square_bb(from)) a &= line_bb(ksq, from);
        while (a) *out++ = Move(from, pop_lsb(a));
    }

    // 7. Castling: not out of, through or into check (add_castling).
    if (wants_quiet(T) && !checkers) {
        out = add_castling<Us, true>(pos, out, occupied, theirs);
        out = add_castling<Us, false>(pos, out, occupied, theirs);
    }
    return out;
}

template <GenType T>
Move* generate_for_side(const Position& pos, Move* out) {
    return pos.side_to_move() == WHITE ? generate_all<WHITE, T>(pos, out) : generate_all<BLACK, T>(pos, out);
}

}  // namespace

Move* generate(const Position& pos, Move* out, GenType type) {
    switch (type) {
        case GenType::NOISY:
            return generate_for_side<GenType::NOISY>(pos, out);
        case GenType::QUIET:
            return generate_for_side<GenType::QUIET>(pos, out);
        default:
            return generate_for_side<GenType::ALL>(pos, out);
    }
}

}  // namespace pythia
