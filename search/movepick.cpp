#include "search/movepick.h"

#include "search/params.h"
#include "search/see.h"

namespace pythia {

using namespace search_params;

namespace {

constexpr int GOOD_CAPTURE = 1 << 28;
constexpr int KILLER = 1 << 27;
constexpr int UNDER_PROMOTION = -(1 << 20);
constexpr int BAD_CAPTURE = -(1 << 28);

}  // namespace

MovePicker::MovePicker(const Position& pos, Move tt_move, const History& history, const SearchStack* ss, Move counter,
                       bool noisy_only)
    : pos_(pos), tt_move_(tt_move), tt_pending_(false) {
    Move list[MAX_MOVES];
    const GenType type = noisy_only && !pos.in_check() ? GenType::NOISY : GenType::ALL;
    Move* end = generate(pos, list, type);
    for (Move* m = list; m != end; ++m) {
        if (*m == tt_move)
            tt_pending_ = true;  // the TT move is legal here: it goes first
        else
            moves_[count_++] = {*m, 0};
    }
    score_moves(history, ss, counter);
}

void MovePicker::score_moves(const History& history, const SearchStack* ss, Move counter) {
    const Color us = pos_.side_to_move();
    for (int i = 0; i < count_; ++i) {
        const Move m = moves_[i].move;
        const Piece mover = pos_.moved_piece(m);
        const bool capture = pos_.is_capture(m);
        if (m.kind() == Move::PROMOTION && m.promotion() != QUEEN) {
            moves_[i].score = UNDER_PROMOTION;
        } else if (capture || m.kind() == Move::PROMOTION) {
            const PieceType victim = m.kind() == Move::EN_PASSANT ? PAWN : type_of(pos_.piece_on(m.to()));
            moves_[i].score = GOOD_CAPTURE + ORDER_MVV_WEIGHT * SEE_VALUE[victim] +
                              (m.kind() == Move::PROMOTION ? ORDER_PROMOTION_BONUS : 0) +
                              history.capture[mover][m.to()][victim] / ORDER_CAPTURE_HISTORY_DIVISOR;
        } else if (m == ss->killers[0]) {
            moves_[i].score = KILLER + 2;
        } else if (m == ss->killers[1]) {
            moves_[i].score = KILLER + 1;
        } else if (m == counter) {
            moves_[i].score = KILLER;
        } else {
            moves_[i].score = history.quiet[us][m.from()][m.to()] + (*(ss - 1)->continuation)[mover][m.to()] +
                              (*(ss - 2)->continuation)[mover][m.to()];
        }
    }
}

Move MovePicker::next() {
    if (tt_pending_) {
        tt_pending_ = false;
        return tt_move_;
    }
    while (current_ < count_) {
        int best = current_;
        for (int i = current_ + 1; i < count_; ++i)
            if (moves_[i].score > moves_[best].score) best = i;
        // A capture that loses material waits until after the quiet moves.
        if (moves_[best].score >= GOOD_CAPTURE - ORDER_CAPTURE_BAND && !see_ge(pos_, moves_[best].move, 0)) {
            moves_[best].score = BAD_CAPTURE + moves_[best].score - GOOD_CAPTURE;
            continue;
        }
        std::swap(moves_[best], moves_[current_]);
        return moves_[current_++].move;
    }
    return Move::none();
}

}  // namespace pythia
