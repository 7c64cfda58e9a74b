#include "eval/nnue/accumulator.h"

#include "eval/nnue/simd.h"

namespace pythia::nnue {

namespace {

// A search line is at most MAX_PLY moves deep (quiescence included); a few spare entries.
constexpr int STACK_SIZE = MAX_PLY + 8;

// The feature transformer's row of a piece, its stride N when the width is known at compile time.
template <int N>
const int16_t* row(const Network& net, Color c, View view, Piece piece, Square sq) {
    return net.feature_weights.data() + size_t(feature_index(c, view, piece, sq)) * size_t(N ? N : net.hidden);
}

// One perspective of `out` from `in` and the move's dirty pieces, in that perspective's view.
template <int N>
void apply(const Network& net, Color c, View view, const Accumulator& in, const DirtyPieces& d, Accumulator& out) {
    const int16_t* add[2];
    const int16_t* sub[2];
    for (int i = 0; i < d.n_added; ++i) add[i] = row<N>(net, c, view, d.added[i].piece, d.added[i].square);
    for (int i = 0; i < d.n_removed; ++i) sub[i] = row<N>(net, c, view, d.removed[i].piece, d.removed[i].square);
    simd::add_sub_rows<N>(net.hidden, in.values[c], out.values[c], add, d.n_added, sub, d.n_removed);
}

// Where c's king stood before the move of `d`, given where it stands after.
Square king_before(const DirtyPieces& d, Color c, Square after) {
    for (int i = 0; i < d.n_removed; ++i)
        if (d.removed[i].piece == make_piece(c, KING)) return d.removed[i].square;
    return after;
}

template <int N>
void refresh_perspective(const Network& net, const Position& pos, Color c, Accumulator& out) {
    const View view = net.view(c, pos.king_square(c));
    const int16_t* add[1];
    simd::add_sub_rows<N>(net.hidden, net.feature_bias.data(), out.values[c], add, 0, nullptr, 0);
    for (Bitboard b = pos.pieces(); b;) {
        const Square s = pop_lsb(b);
        add[0] = row<N>(net, c, view, pos.piece_on(s), s);
        simd::add_sub_rows<N>(net.hidden, out.values[c], out.values[c], add, 1, nullptr, 0);
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

void refresh(const Network& net, const Position& pos, Color c, Accumulator& out) {
    simd::with_width(net.hidden, [&](auto width) { refresh_perspective<width()>(net, pos, c, out); });
}

AccumulatorStack::AccumulatorStack() : entries_(STACK_SIZE) {}

void AccumulatorStack::reset() {
    top_ = 0;
    entries_[0].computed[WHITE] = entries_[0].computed[BLACK] = false;
}

void AccumulatorStack::push(const Position& before, Move m) {
    Entry& e = entries_[++top_];
    e.dirty = dirty_pieces(before, m);
    e.computed[WHITE] = e.computed[BLACK] = false;
}

void AccumulatorStack::push_null() {
    Entry& e = entries_[++top_];
    e.dirty = DirtyPieces{};
    e.computed[WHITE] = e.computed[BLACK] = false;
}

template <int N, bool ViewsChange>
const Accumulator& AccumulatorStack::update(const Network& net, const Position& pos) {
    Entry& top = entries_[top_];
    if constexpr (!ViewsChange) {
        // One view for ever: both perspectives are computed together, in one walk.
        if (top.computed[WHITE]) return top.acc;
        int base = top_ - 1;
        while (base >= 0 && !entries_[base].computed[WHITE]) --base;
        if (base < 0) {
            for (Color c : {WHITE, BLACK}) refresh_perspective<N>(net, pos, c, top.acc);
            top.computed[WHITE] = top.computed[BLACK] = true;
            return top.acc;
        }
        for (int i = base + 1; i <= top_; ++i) {
            for (Color c : {WHITE, BLACK})
                apply<N>(net, c, View{}, entries_[i - 1].acc, entries_[i].dirty, entries_[i].acc);
            entries_[i].computed[WHITE] = entries_[i].computed[BLACK] = true;
        }
        return top.acc;
    }
    for (Color c : {WHITE, BLACK}) {
        if (top.computed[c]) continue;
        // Down to the nearest entry computed for this perspective, through entries in the same
        // view; from scratch when there is none (a new root, or the king changed the view). The
        // king's square below an entry is where that entry's move took it from, if it moved.
        Square king = pos.king_square(c);
        const View view = net.view(c, king);
        int base = top_;
        while (base > 0 && !entries_[base].computed[c]) {
            king = king_before(entries_[base].dirty, c, king);
            if (net.view(c, king) != view) break;
            --base;
        }
        if (!entries_[base].computed[c]) {
            refresh_perspective<N>(net, pos, c, top.acc);
        } else {
            for (int i = base + 1; i <= top_; ++i) {
                apply<N>(net, c, view, entries_[i - 1].acc, entries_[i].dirty, entries_[i].acc);
                entries_[i].computed[c] = true;
            }
        }
        top.computed[c] = true;
    }
    return top.acc;
}

// Defined after update<> so that every compiler sees the template before instantiating it from
// the generic lambda (clang does not go back for a member template defined later).
const Accumulator& AccumulatorStack::current(const Network& net, const Position& pos) {
    return simd::with_width(net.hidden, [&](auto width) -> const Accumulator& {
        return net.plain() ? update<width(), false>(net, pos) : update<width(), true>(net, pos);
    });
}

}  // namespace pythia::nnue
