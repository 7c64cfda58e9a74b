#include "eval/nnue/accumulator.h"

#include "eval/nnue/simd.h"

namespace pythia::nnue {

namespace {

// A search line is at most MAX_PLY moves deep (quiescence included); a few spare entries.
constexpr int STACK_SIZE = MAX_PLY + 8;

const int16_t* row(const Network& net, Color perspective, Piece piece, Square sq) {
    return net.feature_weights + feature_index(perspective, piece, sq) * HIDDEN;
}

void apply(const Network& net, const Accumulator& in, const DirtyPieces& d, Accumulator& out) {
    for (Color c : {WHITE, BLACK}) {
        const int16_t* add[2];
        const int16_t* sub[2];
        for (int i = 0; i < d.n_added; ++i) add[i] = row(net, c, d.added[i].piece, d.added[i].square);
        for (int i = 0; i < d.n_removed; ++i) sub[i] = row(net, c, d.removed[i].piece, d.removed[i].square);
        simd::add_sub_rows(in.values[c], out.values[c], add, d.n_added, sub, d.n_removed);
    }
}

}  // namespace

DirtyPieces dirty_pieces(const Position& before, Move m) {
    DirtyPieces d;
    const Color us = before.side_to_move();
    const Square from = m.from(), to = m.to();
    const Piece moved = before.piece_on(from);
    auto add = [&d](Piece p, Square s) { d.added[d.n_added++] = {p, s}; };
    auto remove = [&d](Piece p, Square s) { d.removed[d.n_removed++] = {p, s}; };
    if (m.kind() == Move::CASTLING) {
        // Standard chess: the move is the king's, the rook jumps over it (position.cpp).
        const bool king_side = to > from;
        const Piece rook = make_piece(us, ROOK);
        remove(moved, from);
        add(moved, to);
        remove(rook, relative_square(us, king_side ? SQ_H1 : SQ_A1));
        add(rook, relative_square(us, king_side ? SQ_F1 : SQ_D1));
        return d;
    }
    remove(moved, from);
    add(m.kind() == Move::PROMOTION ? make_piece(us, m.promotion()) : moved, to);
    const Square captured_on = m.kind() == Move::EN_PASSANT ? to - pawn_push(us) : to;
    if (const Piece captured = before.piece_on(captured_on); captured != NO_PIECE) remove(captured, captured_on);
    return d;
}

void refresh(const Network& net, const Position& pos, Accumulator& out) {
    for (Color c : {WHITE, BLACK}) {
        const int16_t* add[1];
        simd::add_sub_rows(net.feature_bias, out.values[c], add, 0, nullptr, 0);
        for (Bitboard b = pos.pieces(); b;) {
            const Square s = pop_lsb(b);
            add[0] = row(net, c, pos.piece_on(s), s);
            simd::add_sub_rows(out.values[c], out.values[c], add, 1, nullptr, 0);
        }
    }
}

AccumulatorStack::AccumulatorStack() : entries_(STACK_SIZE) {}

void AccumulatorStack::reset() {
    top_ = 0;
    entries_[0].computed = false;
}

void AccumulatorStack::push(const Position& before, Move m) {
    Entry& e = entries_[++top_];
    e.dirty = dirty_pieces(before, m);
    e.computed = false;
}

void AccumulatorStack::push_null() {
    Entry& e = entries_[++top_];
    e.dirty = DirtyPieces{};
    e.computed = false;
}

const Accumulator& AccumulatorStack::current(const Network& net, const Position& pos) {
    Entry& top = entries_[top_];
    if (top.computed) return top.acc;
    int base = top_ - 1;
    while (base >= 0 && !entries_[base].computed) --base;
    if (base < 0) {
        // Nothing computed on this line yet (a new root): from scratch.
        refresh(net, pos, top.acc);
    } else {
        for (int i = base + 1; i <= top_; ++i) {
            apply(net, entries_[i - 1].acc, entries_[i].dirty, entries_[i].acc);
            entries_[i].computed = true;
        }
    }
    top.computed = true;
    return top.acc;
}

}  // namespace pythia::nnue
