// Move ordering: the transposition-table move, then captures that do not lose material (best
// victim first, refined by capture history), killers and the counter-move, quiet moves by
// history, and last the losing captures and under-promotions.
#pragma once

#include "engine/core/movegen.h"
#include "search/history.h"
#include "search/stack.h"

namespace pythia {

class MovePicker {
public:
    // All legal moves, or (noisy_only, for quiescence outside check) the noisy ones.
    MovePicker(const Position& pos, Move tt_move, const History& history, const SearchStack* ss, Move counter,
               bool noisy_only);

    // The next move, Move::none() when none is left.
    Move next();
    int size() const { return count_; }

private:
    struct ScoredMove {
        Move move;
        int score;
    };
    void score_moves(const History& history, const SearchStack* ss, Move counter);

    const Position& pos_;
    Move tt_move_;
    bool tt_pending_;
    ScoredMove moves_[MAX_MOVES];
    int count_ = 0, current_ = 0;
};

}  // namespace pythia
