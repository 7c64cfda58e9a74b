#include "eval/pawns.h"

#include "eval/terms.h"

namespace pythia {

namespace eval_detail {

PawnMasks::PawnMasks() {
    for (int f = 0; f < 8; ++f) adjacent_files[f] = (f > 0 ? file_bb(f - 1) : 0) | (f < 7 ? file_bb(f + 1) : 0);
    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        for (Color c : {WHITE, BLACK}) {
            Bitboard ahead = 0;
            for (int r = rank_of(s) + (c == WHITE ? 1 : -1); r >= 0 && r <= 7; r += (c == WHITE ? 1 : -1))
                ahead |= rank_bb(r);
            forward_file[c][s] = ahead & file_bb(file_of(s));
            attack_span[c][s] = ahead & adjacent_files[file_of(s)];
            passed_span[c][s] = forward_file[c][s] | attack_span[c][s];
        }
    }
}

const PawnMasks MASKS;

template <bool TRACE>
void evaluate_pawns(const Position& pos, PawnEntry& e, Terms<TRACE>& t) {
    const EvalParams& P = PARAMS;
    for (Color c : {WHITE, BLACK}) {
        const Color them = ~c;
        const Bitboard ours = pos.pieces(c, PAWN), theirs = pos.pieces(them, PAWN);
        e.attacks[c] = c == WHITE ? pawn_attacks_bb<WHITE>(ours) : pawn_attacks_bb<BLACK>(ours);
        e.passed[c] = 0;
        e.attack_span[c] = 0;
        for (Bitboard b = ours; b;) {
            const Square s = pop_lsb(b);
            const int rank = relative_rank(c, s);
            const Bitboard neighbours = ours & MASKS.adjacent_files[file_of(s)];
            const Square stop = s + pawn_push(c);
            e.attack_span[c] |= MASKS.attack_span[c][s];

            const bool isolated = !neighbours;
            const bool doubled = MASKS.forward_file[c][s] & ours;  // the rear pawn pays
            const Bitboard supporters = pawn_attacks(them, s) & ours;
            const Bitboard phalanx = neighbours & rank_bb(rank_of(s));
            // Backward: no pawn beside or behind can ever defend it, and its stop square is
            // attacked by an enemy pawn, so it cannot advance to safety either.
            const bool backward = !isolated && !(neighbours & ~MASKS.attack_span[c][s] & ~phalanx) && !phalanx &&
                                  (pawn_attacks(c, stop) & theirs);
            const bool passed = !(MASKS.passed_span[c][s] & theirs) && !doubled;

            if (isolated) t.add(P.isolated_pawn, c);
            if (doubled) t.add(P.doubled_pawn, c);
            if (backward) t.add(P.backward_pawn, c);
            if (supporters || phalanx) t.add(P.connected_pawn[rank], c);
            if (passed) {
                e.passed[c] |= square_bb(s);
                t.add(P.passed_pawn[rank], c);
            }
        }
    }
}

template void evaluate_pawns<false>(const Position&, PawnEntry&, Terms<false>&);
template void evaluate_pawns<true>(const Position&, PawnEntry&, Terms<true>&);

}  // namespace eval_detail

const PawnEntry& PawnTable::probe(const Position& pos) {
    PawnEntry& e = entries_[pos.pawn_key() & (entries_.size() - 1)];
    if (e.key == pos.pawn_key() && (e.key || !pos.pieces(PAWN))) return e;
    eval_detail::Terms<false> terms;
    eval_detail::evaluate_pawns(pos, e, terms);
    e.score = terms.score;
    e.key = pos.pawn_key();
    return e;
}

}  // namespace pythia
