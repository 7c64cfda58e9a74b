#include "eval/evaluate.h"

#include <algorithm>
#include <cstring>

#include "eval/terms.h"

namespace pythia {

namespace {

using eval_detail::MASKS;
using eval_detail::Terms;

constexpr int PHASE_WEIGHT[PIECE_TYPE_NB] = {0, 0, 1, 1, 2, 4, 0};

template <bool TRACE>
class Evaluation {
public:
    Evaluation(const Position& pos, const PawnEntry& pawns, Terms<TRACE>& terms)
        : pos_(pos), pawns_(pawns), t_(terms) {}

    // Returns the blended value from White's side and records phase and scale.
    Value run(int& phase, int& scale);

private:
    void material_and_squares();
    template <PieceType PT>
    void pieces(Color c);
    void king_safety(Color c);
    void threats(Color c);
    void passed_pawns(Color c);
    int endgame_scale(Value eg) const;

    const Position& pos_;
    const PawnEntry& pawns_;
    Terms<TRACE>& t_;
    Bitboard attacked_by_[COLOR_NB][PIECE_TYPE_NB] = {};  // [c][0]: by any piece of c
    Bitboard attacked_twice_[COLOR_NB] = {};
    Bitboard mobility_area_[COLOR_NB] = {};
    Bitboard king_zone_[COLOR_NB] = {};
    int king_attackers_[COLOR_NB] = {};               // pieces of c attacking the enemy zone
    int zone_attacks_[COLOR_NB][PIECE_TYPE_NB] = {};  // zone squares attacked, by piece type
};

template <bool TRACE>
void Evaluation<TRACE>::material_and_squares() {
    const EvalParams& P = PARAMS;
    for (Bitboard b = pos_.pieces(); b;) {
        const Square s = pop_lsb(b);
        const Piece p = pos_.piece_on(s);
        const Color c = color_of(p);
        const PieceType pt = type_of(p);
        t_.add(P.piece_value[pt], c);
        t_.add(P.psqt[pt][relative_square(c, s)], c);
    }
}

template <bool TRACE>
template <PieceType PT>
void Evaluation<TRACE>::pieces(Color c) {
    const EvalParams& P = PARAMS;
    const Color them = ~c;
    const Bitboard occupied = pos_.pieces();
    for (Bitboard b = pos_.pieces(c, PT); b;) {
        const Square s = pop_lsb(b);
        const Bitboard attacks = attacks_bb(PT, s, occupied);
        attacked_twice_[c] |= attacked_by_[c][0] & attacks;
        attacked_by_[c][PT] |= attacks;
        attacked_by_[c][0] |= attacks;

        if (Bitboard zone = attacks & king_zone_[them]) {
            ++king_attackers_[c];
            zone_attacks_[c][PT] += popcount(zone);
        }
        const int mobility = popcount(attacks & mobility_area_[c]);
        if constexpr (PT == KNIGHT) {
            t_.add(P.knight_mobility[mobility], c);
            // Outpost: defended by a pawn and out of reach of every enemy pawn.
            if (relative_rank(c, s) >= RANK_4 && relative_rank(c, s) <= RANK_6 &&
                (pawn_attacks(them, s) & pos_.pieces(c, PAWN)) && !(pawns_.attack_span[them] & square_bb(s)))
                t_.add(P.knight_outpost, c);
        }
        if constexpr (PT == BISHOP) t_.add(P.bishop_mobility[mobility], c);
        if constexpr (PT == ROOK) {
            t_.add(P.rook_mobility[mobility], c);
            const Bitboard file = file_bb(file_of(s));
            if (!(file & pos_.pieces(c, PAWN)))
                t_.add(file & pos_.pieces(them, PAWN) ? P.rook_semi_open_file : P.rook_open_file, c);
        }
        if constexpr (PT == QUEEN) t_.add(P.queen_mobility[mobility], c);
    }
}

template <bool TRACE>
void Evaluation<TRACE>::king_safety(Color c) {
    // Terms for colour c as the attacker of the enemy king, plus c's own shelter.
    const EvalParams& P = PARAMS;
    const Color them = ~c;
    if (king_attackers_[c] >= 2 && pos_.count(c, QUEEN))
        for (PieceType pt : {KNIGHT, BISHOP, ROOK, QUEEN})
            if (zone_attacks_[c][pt]) t_.add(P.king_zone_attack[pt], c, zone_attacks_[c][pt]);

    // Safe checks: a square from which a piece of c would check, that c attacks and the
    // defender neither occupies nor covers.
    const Square ksq = pos_.king_square(them);
    const Bitboard occupied = pos_.pieces();
    const Bitboard safe = ~pos_.pieces(c) & ~attacked_by_[them][0];
    const Bitboard bishop_lines = bishop_attacks(ksq, occupied), rook_lines = rook_attacks(ksq, occupied);
    if (knight_attacks(ksq) & attacked_by_[c][KNIGHT] & safe) t_.add(P.safe_check[KNIGHT], c);
    if (bishop_lines & attacked_by_[c][BISHOP] & safe) t_.add(P.safe_check[BISHOP], c);
    if (rook_lines & attacked_by_[c][ROOK] & safe) t_.add(P.safe_check[ROOK], c);
    if ((bishop_lines | rook_lines) & attacked_by_[c][QUEEN] & safe) t_.add(P.safe_check[QUEEN], c);

    // Shelter and storm on the three files around c's own king (kept off the board's edge).
    const Square own = pos_.king_square(c);
    const int centre = std::clamp(file_of(own), 1, 6);
    const Bitboard ours = pos_.pieces(c, PAWN), theirs = pos_.pieces(them, PAWN);
    for (int f = centre - 1; f <= centre + 1; ++f) {
        // Pawns on this file not behind the king.
        const Square level = make_square(f, rank_of(own));
        const Bitboard not_behind = MASKS.forward_file[c][level] | square_bb(level);
        const Bitboard shield = ours & not_behind, storm = theirs & not_behind;
        const int shield_rank = shield ? relative_rank(c, c == WHITE ? lsb(shield) : msb(shield)) : 0;
        const int storm_rank = storm ? relative_rank(c, c == WHITE ? lsb(storm) : msb(storm)) : 0;
        t_.add(P.pawn_shelter[shield_rank], c);
        t_.add(P.pawn_storm[storm_rank], c);
    }
}

template <bool TRACE>
void Evaluation<TRACE>::threats(Color c) {
    const EvalParams& P = PARAMS;
    const Color them = ~c;
    const Bitboard enemies = pos_.pieces(them) & ~pos_.pieces(them, KING);
    const Bitboard by_pawns = attacked_by_[c][PAWN] & enemies & ~pos_.pieces(PAWN);
    const Bitboard weak = enemies & ~attacked_by_[them][PAWN];
    const Bitboard by_minors =
        (attacked_by_[c][KNIGHT] | attacked_by_[c][BISHOP]) & (weak | pos_.pieces(them, ROOK, QUEEN));
    const Bitboard by_rooks = attacked_by_[c][ROOK] & ((weak & ~attacked_by_[them][0]) | pos_.pieces(them, QUEEN));
    const Bitboard hanging = enemies & attacked_by_[c][0] & ~attacked_by_[them][0] & ~pos_.pieces(PAWN);
    for (Bitboard b = by_pawns; b;) t_.add(P.threat_by_pawn[type_of(pos_.piece_on(pop_lsb(b)))], c);
    for (Bitboard b = by_minors; b;) t_.add(P.threat_by_minor[type_of(pos_.piece_on(pop_lsb(b)))], c);
    for (Bitboard b = by_rooks; b;) t_.add(P.threat_by_rook[type_of(pos_.piece_on(pop_lsb(b)))], c);
    if (hanging) t_.add(P.hanging, c, popcount(hanging));
}

template <bool TRACE>
void Evaluation<TRACE>::passed_pawns(Color c) {
    const EvalParams& P = PARAMS;
    const Color them = ~c;
    for (Bitboard b = pawns_.passed[c]; b;) {
        const Square s = pop_lsb(b);
        const int rank = relative_rank(c, s);
        const Square stop = s + pawn_push(c);
        t_.add(P.passed_our_king_distance[distance(pos_.king_square(c), stop)], c);
        t_.add(P.passed_their_king_distance[distance(pos_.king_square(them), stop)], c);
        if (pos_.empty(stop) && !(attacked_by_[them][0] & square_bb(stop))) t_.add(P.passed_free_advance[rank], c);
    }
}

// Out of SCALE_NORMAL: how much of the endgame value the stronger side can realise.
template <bool TRACE>
int Evaluation<TRACE>::endgame_scale(Value eg) const {
    const Color strong = eg > 0 ? WHITE : BLACK, weak = ~strong;
    auto non_pawn = [&](Color c) {
        return 3 * (pos_.count(c, KNIGHT) + pos_.count(c, BISHOP)) + 5 * pos_.count(c, ROOK) + 9 * pos_.count(c, QUEEN);
    };
    const int strong_npm = non_pawn(strong), weak_npm = non_pawn(weak);
    if (!pos_.count(strong, PAWN)) {
        // Without pawns, an advantage of at most a minor piece rarely wins; a lone minor or
        // two knights never force mate.
        if (strong_npm <= 3 || (strong_npm == 6 && pos_.count(strong, KNIGHT) == 2)) return 0;
        if (strong_npm - weak_npm <= 3) return 16;
    }
    // Opposite-coloured bishops.
    if (pos_.count(WHITE, BISHOP) == 1 && pos_.count(BLACK, BISHOP) == 1) {
        const Bitboard bishops = pos_.pieces(BISHOP);
        if ((bishops & DARK_SQUARES) && (bishops & ~DARK_SQUARES))
            return non_pawn(WHITE) == 3 && non_pawn(BLACK) == 3 ? 32 : 48;
    }
    return SCALE_NORMAL;
}

template <bool TRACE>
Value Evaluation<TRACE>::run(int& phase, int& scale) {
    const EvalParams& P = PARAMS;
    for (Color c : {WHITE, BLACK}) {
        const Square ksq = pos_.king_square(c);
        attacked_by_[c][KING] = king_attacks(ksq);
        attacked_by_[c][PAWN] = pawns_.attacks[c];
        attacked_twice_[c] = attacked_by_[c][KING] & attacked_by_[c][PAWN];
        attacked_by_[c][0] = attacked_by_[c][KING] | attacked_by_[c][PAWN];
        king_zone_[c] = king_attacks(ksq) | square_bb(ksq);
    }
    for (Color c : {WHITE, BLACK}) mobility_area_[c] = ~(pos_.pieces(c, PAWN, KING) | pawns_.attacks[~c]);

    material_and_squares();
    for (Color c : {WHITE, BLACK}) {
        pieces<KNIGHT>(c);
        pieces<BISHOP>(c);
        pieces<ROOK>(c);
        pieces<QUEEN>(c);
        if (pos_.count(c, BISHOP) >= 2) t_.add(P.bishop_pair, c);
    }
    for (Color c : {WHITE, BLACK}) {
        king_safety(c);
        threats(c);
        passed_pawns(c);
    }
    t_.add(P.tempo, pos_.side_to_move());

    phase = 0;
    for (PieceType pt : {KNIGHT, BISHOP, ROOK, QUEEN}) phase += PHASE_WEIGHT[pt] * popcount(pos_.pieces(pt));
    phase = std::min(phase, PHASE_MAX);
    const Value mg = mg_value(t_.score), eg = eg_value(t_.score);
    scale = endgame_scale(eg);
    return (mg * phase + eg * (PHASE_MAX - phase) * scale / SCALE_NORMAL) / PHASE_MAX;
}

Value from_side_to_move(const Position& pos, Value white_value) {
    white_value = std::clamp(white_value, -VALUE_EVAL_MAX, VALUE_EVAL_MAX);
    return pos.side_to_move() == WHITE ? white_value : -white_value;
}

}  // namespace

Value evaluate(const Position& pos, PawnTable& pawns) {
    if (pos.has_insufficient_material()) return VALUE_DRAW;
    Terms<false> terms;
    const PawnEntry& entry = pawns.probe(pos);
    terms.score = entry.score;
    int phase, scale;
    Value v = Evaluation<false>(pos, entry, terms).run(phase, scale);
    return from_side_to_move(pos, v);
}

Value evaluate_traced(const Position& pos, EvalTrace& trace) {
    std::memset(&trace, 0, sizeof trace);
    if (pos.has_insufficient_material()) {
        trace.drawn = true;
        trace.scale = SCALE_NORMAL;
        return VALUE_DRAW;
    }
    Terms<true> terms;
    terms.trace = &trace;
    PawnEntry entry;
    eval_detail::evaluate_pawns(pos, entry, terms);
    Value v = Evaluation<true>(pos, entry, terms).run(trace.phase, trace.scale);
    return from_side_to_move(pos, v);
}

double traced_value(const EvalTrace& trace, const EvalParams& params) {
    if (trace.drawn) return 0;
    const Score* w = reinterpret_cast<const Score*>(&params);
    double mg = 0, eg = 0;
    for (int i = 0; i < EVAL_PARAM_COUNT; ++i) {
        const int n = trace.coeff[i][WHITE] - trace.coeff[i][BLACK];
        if (n) {
            mg += n * mg_value(w[i]);
            eg += n * eg_value(w[i]);
        }
    }
    return (mg * trace.phase + eg * (PHASE_MAX - trace.phase) * trace.scale / SCALE_NORMAL) / PHASE_MAX;
}

}  // namespace pythia
