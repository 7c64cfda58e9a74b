#include "engine/uci/decision.h"

namespace pythia {

SearchLimits decide_move(const DecisionContext& context, SearchLimits limits) {
    // Step 1. Opening book (book/, options OwnBook, BookFile, BookVariety, BookDepth): a legal
    // book move for this position goes to limits.search_moves, with an `info string book move`.
    // Not when the GUI asks for analysis (infinite, ponder, searchmoves, mate search).
    const bool analysis = limits.infinite || limits.ponder || limits.mate || !limits.search_moves.empty();
    if (context.book && !analysis) {
        BookDecision b = context.book->decide(context.position);
        if (!b.info.empty()) context.info_string(b.info);
        if (b.move) {
            limits.search_moves = {b.move};
            return limits;
        }
    }

    // Step 2. Tablebases at the root (tablebase/): with no castling rights and few enough
    // pieces, the move the tables choose (see ARCHITECTURE.md, "Playing from the tables").

    // Step 3. Search, over every legal move or the GUI's `searchmoves`.
    (void)context;
    return limits;
}

}  // namespace pythia
