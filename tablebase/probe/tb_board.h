// A light board over a table placement, for the generator and the prober: bitboards by colour
// and type, attack tests, and the pieces as a list. No castling and no en passant right: table
// positions have neither (en passant is handled where a double step is made).
#pragma once

#include <string>

#include "engine/core/bitboard.h"
#include "engine/core/random_position.h"
#include "tablebase/format/table_set.h"

namespace pythia::tb {

struct TbBoard {
    PieceOn pieces[MAX_PIECES];
    int n = 0;
    Bitboard by_color[COLOR_NB] = {};
    Bitboard by_type[PIECE_TYPE_NB] = {};
    Bitboard all = 0;

    void set(const TableIndex& index, const Placement& p) {
        n = index.num_slots();
        for (int i = 0; i < n; ++i) pieces[i] = {index.slot(i).color, index.slot(i).type, p[i]};
        rebuild();
    }
    // From a list of pieces (a position the prober was given, or the pieces after a move).
    void set(const PieceOn* list, int count) {
        n = count;
        for (int i = 0; i < n; ++i) pieces[i] = list[i];
        rebuild();
    }
    void rebuild() {
        by_color[WHITE] = by_color[BLACK] = all = 0;
        for (auto& b : by_type) b = 0;
        for (int i = 0; i < n; ++i) {
            Bitboard b = square_bb(pieces[i].square);
            by_color[pieces[i].color] |= b;
            by_type[pieces[i].type] |= b;
            all |= b;
        }
    }
    Square king(Color c) const { return lsb(by_color[c] & by_type[KING]); }

    // Is s attacked by colour `by`, with occupancy `occ` and ignoring the pieces in `gone`?
    bool attacked(Square s, Color by, Bitboard occ, Bitboard gone = 0) const {
        Bitboard them = by_color[by] & ~gone;
        return (pawn_attacks(~by, s) & by_type[PAWN] & them) || (knight_attacks(s) & by_type[KNIGHT] & them) ||
               (king_attacks(s) & by_type[KING] & them) ||
               (bishop_attacks(s, occ) & (by_type[BISHOP] | by_type[QUEEN]) & them) ||
               (rook_attacks(s, occ) & (by_type[ROOK] | by_type[QUEEN]) & them);
    }
    bool in_check(Color c) const { return attacked(king(c), ~c, all); }

    int slot_on(Square s) const {
        for (int i = 0; i < n; ++i)
            if (pieces[i].square == s) return i;
        return -1;
    }
};

// FEN of a table position (no castling, no en passant, clocks 0 1).
inline std::string to_fen(const TbBoard& b, Color stm) {
    char grid[64];
    for (char& c : grid) c = 0;
    for (int i = 0; i < b.n; ++i)
        grid[b.pieces[i].square] = " PNBRQK"[b.pieces[i].type] + (b.pieces[i].color == BLACK ? 32 : 0);
    const std::string fen = placement_fen(grid);
    return fen + (stm == WHITE ? " w - - 0 1" : " b - - 0 1");
}

// One legal move on a TbBoard, described by slots so that the successor is easy to build.
struct TbMove {
    int slot;  // the moving piece
    Square from, to;
    int captured_slot;    // -1 if none
    PieceType promotion;  // NO_PIECE_TYPE if none
    bool double_step;

    bool zeroing(const TbBoard& b) const { return captured_slot >= 0 || b.pieces[slot].type == PAWN; }
};

// What makes a move of side `us` legal, found once a position rather than once a move (the
// generator scans every position of a table, and testing each move's target against every enemy
// piece was a quarter of its initialisation): the squares the opponent attacks with our king
// lifted off the board, our pinned pieces, and where a move other than the king's must land.
struct Legality {
    Square ksq;
    Bitboard danger;    // the king may not step here (attacked through its own square too)
    Bitboard pinned;    // ours, on a line between our king and an enemy slider
    Bitboard evasions;  // everywhere out of check; the checker and the squares between in check;
                        // nothing in double check

    Legality(const TbBoard& b, Color us) : ksq(b.king(us)), danger(0), pinned(0) {
        const Color them = ~us;
        const Bitboard theirs = b.by_color[them], occ = b.all ^ square_bb(ksq);
        Bitboard checkers = 0;
        for (int i = 0; i < b.n; ++i) {
            const PieceOn& pc = b.pieces[i];
            if (pc.color != them) continue;
            const Bitboard a = pc.type == PAWN ? pawn_attacks(them, pc.square) : attacks_bb(pc.type, pc.square, occ);
            danger |= a;
            if (a & square_bb(ksq)) checkers |= square_bb(pc.square);
        }
        evasions = !checkers ? ~Bitboard(0) : more_than_one(checkers) ? 0 : between_bb(ksq, lsb(checkers));
        Bitboard snipers = (rook_attacks(ksq, theirs) & (b.by_type[ROOK] | b.by_type[QUEEN]) & theirs) |
                           (bishop_attacks(ksq, theirs) & (b.by_type[BISHOP] | b.by_type[QUEEN]) & theirs);
        while (snipers) {
            const Square s = pop_lsb(snipers);
            const Bitboard between = between_bb(ksq, s) & b.all & ~square_bb(s);
            if (between && !more_than_one(between) && (between & b.by_color[us])) pinned |= between;
        }
    }
    bool in_check() const { return evasions != ~Bitboard(0); }
    // The squares a piece other than the king may move to from `from`.
    Bitboard allowed(Square from) const {
        return (pinned & square_bb(from)) ? evasions & line_bb(ksq, from) : evasions;
    }
};

// Calls f(move) for every legal move of side `us` (no castling, no en passant). Returns the
// number of legal moves.
template <typename F>
int for_each_legal_move(const TbBoard& b, Color us, F&& f) {
    const Color them = ~us;
    const Legality legal(b, us);
    int count = 0;
    for (int i = 0; i < b.n; ++i) {
        const PieceOn& pc = b.pieces[i];
        if (pc.color != us) continue;
        const Square from = pc.square;
        Bitboard targets;
        if (pc.type == PAWN) {
            const int up = pawn_push(us);
            targets = pawn_attacks(us, from) & b.by_color[them];
            Square one = from + up;
            if (!(b.all & square_bb(one))) {
                targets |= square_bb(one);
                if (relative_rank(us, from) == RANK_2 && !(b.all & square_bb(one + up))) targets |= square_bb(one + up);
            }
        } else {
            targets = attacks_bb(pc.type, from, b.all) & ~b.by_color[us];
        }
        targets &= pc.type == KING ? ~legal.danger : legal.allowed(from);
        while (targets) {
            const Square to = pop_lsb(targets);
            const Bitboard captured = square_bb(to) & b.by_color[them];
            TbMove m{i,
                     from,
                     to,
                     captured ? b.slot_on(to) : -1,
                     NO_PIECE_TYPE,
                     pc.type == PAWN && (int(to) ^ int(from)) == 16};
            if (pc.type == PAWN && relative_rank(us, to) == RANK_8) {
                for (PieceType promo : {QUEEN, ROOK, BISHOP, KNIGHT}) {
                    m.promotion = promo;
                    f(m);
                    ++count;
                }
            } else {
                f(m);
                ++count;
            }
        }
    }
    return count;
}

// The generator's fast move scan: every legal move of `us`, but the non-zeroing ones (quiet
// king and piece moves) are only counted, in bulk where possible: `quiet_weight(slot, to)` is
// called for each of them only when `weigh_each` says so (symmetric positions need weights).
// `convert(move)` is called for every capture and pawn move. `legal` is Legality(b, us). Returns
// the number of legal moves.
template <typename Weigh, typename Weight, typename Convert>
int scan_legal_moves(const TbBoard& b, Color us, const Legality& legal, int& quiet_count, Weigh&& weigh_each,
                     Weight&& quiet_weight, Convert&& convert) {
    const Color them = ~us;
    const Bitboard ours = b.by_color[us], theirs = b.by_color[them];
    int moves = 0;
    for (int i = 0; i < b.n; ++i) {
        const PieceOn& pc = b.pieces[i];
        if (pc.color != us) continue;
        const Square from = pc.square;
        if (pc.type == KING) {
            for (Bitboard t = king_attacks(from) & ~ours & ~legal.danger; t;) {
                const Square to = pop_lsb(t);
                const Bitboard captured = square_bb(to) & theirs;
                ++moves;
                if (captured)
                    convert(TbMove{i, from, to, b.slot_on(to), NO_PIECE_TYPE, false});
                else
                    quiet_count += weigh_each(i, to) ? quiet_weight(i, to) : 1;
            }
            continue;
        }
        const Bitboard allowed = legal.allowed(from);
        if (pc.type == PAWN) {
            const int up = pawn_push(us);
            const bool promotes = relative_rank(us, from) == RANK_7;
            auto emit = [&](Square to, int captured_slot, bool dbl) {
                if (!(allowed & square_bb(to))) return;
                if (promotes) {
                    for (PieceType promo : {QUEEN, ROOK, BISHOP, KNIGHT})
                        convert(TbMove{i, from, to, captured_slot, promo, false});
                    moves += 4;
                } else {
                    convert(TbMove{i, from, to, captured_slot, NO_PIECE_TYPE, dbl});
                    ++moves;
                }
            };
            const Square one = from + up;
            if (!(b.all & square_bb(one))) {
                emit(one, -1, false);
                if (relative_rank(us, from) == RANK_2 && !(b.all & square_bb(one + up))) emit(one + up, -1, true);
            }
            for (Bitboard c = pawn_attacks(us, from) & theirs; c;) {
                const Square to = pop_lsb(c);
                emit(to, b.slot_on(to), false);
            }
            continue;
        }
        const Bitboard targets = attacks_bb(pc.type, from, b.all) & ~ours & allowed;
        Bitboard quiet = targets & ~theirs;
        moves += popcount(quiet);
        if (weigh_each(i, SQ_NONE)) {
            while (quiet) {
                const Square to = pop_lsb(quiet);
                quiet_count += quiet_weight(i, to);
            }
        } else {
            quiet_count += popcount(quiet);
        }
        for (Bitboard c = targets & theirs; c;) {
            const Square to = pop_lsb(c);
            convert(TbMove{i, from, to, b.slot_on(to), NO_PIECE_TYPE, false});
            ++moves;
        }
    }
    return moves;
}

// The pieces after a move (captured piece removed, promotion applied) in `out`; returns n.
inline int pieces_after(const TbBoard& b, const TbMove& m, PieceOn* out) {
    int k = 0;
    for (int i = 0; i < b.n; ++i) {
        if (i == m.captured_slot) continue;
        out[k] = b.pieces[i];
        if (i == m.slot) {
            out[k].square = m.to;
            if (m.promotion != NO_PIECE_TYPE) out[k].type = m.promotion;
        }
        ++k;
    }
    return k;
}

}  // namespace pythia::tb
