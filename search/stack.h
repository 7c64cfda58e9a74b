// What the search remembers about each ply of the current line.
#pragma once

#include "engine/core/types.h"
#include "eval/score.h"
#include "search/history.h"

namespace pythia {

struct SearchStack {
    int ply = 0;
    Move move;  // the move being searched from this node
    Piece moved_piece = NO_PIECE;
    ContinuationTable* continuation = nullptr;  // history of replies to `move`
    Move killers[2];
    Move excluded;  // skipped by a singular-extension search
    Value static_eval = VALUE_NONE;
    bool in_check = false;
    int move_count = 0;
};

}  // namespace pythia
