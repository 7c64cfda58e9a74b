// Legal move generation. Every move produced is legal: pins, checks and en passant
// discoveries are resolved here, so callers never need a separate legality test.
#pragma once

#include "engine/core/position.h"

namespace pythia {

enum class GenType {
    ALL,    // every legal move
    NOISY,  // captures, en passant and queen promotions (the moves quiescence search tries)
    QUIET,  // everything else: quiet moves, castling, under-promotions
};

// Writes the legal moves of the given kind to `out` and returns one past the last.
Move* generate(const Position& pos, Move* out, GenType type = GenType::ALL);

class MoveList {
public:
    explicit MoveList(const Position& pos, GenType type = GenType::ALL) : end_(generate(pos, moves_, type)) {}

    const Move* begin() const { return moves_; }
    const Move* end() const { return end_; }
    int size() const { return int(end_ - moves_); }
    bool empty() const { return end_ == moves_; }
    Move operator[](int i) const { return moves_[i]; }
    bool contains(Move m) const {
        for (Move x : *this)
            if (x == m) return true;
        return false;
    }

private:
    Move moves_[MAX_MOVES];
    Move* end_;
};

// True if m is a legal move in pos (checked against the generator; not for hot paths).
inline bool is_legal(const Position& pos, Move m) { return m.is_ok() && MoveList(pos).contains(m); }

}  // namespace pythia
