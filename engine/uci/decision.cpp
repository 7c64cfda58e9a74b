#include "engine/uci/decision.h"

namespace pythia {

SearchLimits decide_move(const DecisionContext& context, SearchLimits limits) {
    // Step 1. Opening book (book/, options OwnBook and BookFile): a legal book move for this
    // position goes to limits.search_moves, with an `info string book move ...`.

    // Step 2. Tablebases at the root (tablebase/): with no castling rights and few enough
    // pieces, the move the tables choose (see ARCHITECTURE.md, "Playing from the tables").

    // Step 3. Search, over every legal move or the GUI's `searchmoves`.
    (void)context;
    return limits;
}

}  // namespace pythia
