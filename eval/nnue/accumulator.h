// The accumulators of the current search line. The search pushes one entry per move it makes
// (with the move's dirty pieces, found from the position before the move) and pops it when it
// takes the move back; an entry's accumulator is computed only when a position is evaluated
// (lazily: many nodes end before their evaluation), from the nearest computed entry below it,
// or from scratch when there is none. Each perspective is its own: a king move that changes its
// side's view (network.h: the king bucket, the mirroring) makes that perspective start from
// scratch there. engine/core knows nothing of this: the stack lives in the search worker,
// beside its Position.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/position.h"
#include "eval/nnue/network.h"

namespace pythia::nnue {

struct Accumulator {
    alignas(64) int16_t values[COLOR_NB][MAX_HIDDEN];  // indexed by perspective; a net's width used
};

// What one move does to the board: at most two pieces appear and two disappear (a capture
// with promotion: pawn and captured piece go, the new piece comes; castling: king and rook).
struct DirtyPieces {
    struct Change {
        Piece piece;
        Square square;
    };
    Change added[2], removed[2];
    int n_added = 0, n_removed = 0;
};

// The dirty pieces of `m`, legal in `before`.
DirtyPieces dirty_pieces(const Position& before, Move m);

// One perspective of the accumulator of pos, computed from nothing.
void refresh(const Network& net, const Position& pos, Color perspective, Accumulator& out);

class AccumulatorStack {
public:
    AccumulatorStack();

    // A new root: every entry is stale, the root's is computed when first needed.
    void reset();
    // Before before.do_move(m) / do_null_move(), and after the matching undo.
    void push(const Position& before, Move m);
    void push_null();
    void pop() { --top_; }

    // The accumulator of pos, the position of the top entry.
    const Accumulator& current(const Network& net, const Position& pos);

private:
    template <int N, bool ViewsChange>
    const Accumulator& update(const Network& net, const Position& pos);

    struct Entry {
        Accumulator acc;
        DirtyPieces dirty;
        bool computed[COLOR_NB] = {false, false};  // by perspective
    };
    std::vector<Entry> entries_;
    int top_ = 0;
};

}  // namespace pythia::nnue
