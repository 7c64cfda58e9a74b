// The DTM and DTZ50 that a position's legal moves give it, one ply forward: a win in n has a move
// to a loss in n - 1 and none shorter, a loss in n only moves to wins, the longest in n - 1, a
// draw no winning move; mate and stalemate where there is no move. The generator reaches the
// same values backwards. `tb verify` checks every stored value against this rule, and a table
// stored for one side to move only recovers the other side's values by it,
// in the loader for whole tables and in the prober for one position.
#pragma once

#include "tablebase/format/table_set.h"
#include "tablebase/probe/move_values.h"
#include "tablebase/probe/tb_board.h"

namespace pythia::tb {

// More than any position of up to five pieces has (four queens and a king: 4 * 27 + 8).
constexpr int MAX_TB_MOVES = 128;

// Values of the position `b` with `us` to move, from its side's view.
//  - `prepare(move)` is called for every legal move first and returns a token for it: a caller
//    reading large arrays starts the reads of every move there, so that their cache misses
//    overlap.
//  - `successor(move, token, dtm, dtz)` then gives the values of the position after the move,
//    from its side to move (the opponent's), without its en passant replies; false if unknown.
//  - `lookup(pieces, n, side, dtm, dtz)` gives the values after an en passant reply to a double
//    step (pieces_after's list with the capture made); it sets `failed` on its own if unknown.
// Returns false if a successor was unknown (the values are then meaningless).
template <typename Prepare, typename Successor, typename Lookup>
bool values_from_moves(const TbBoard& b, Color us, Prepare&& prepare, Successor&& successor, Lookup&& lookup,
                       Value& best_dtm, Value& best_dtz) {
    TbMove moves[MAX_TB_MOVES];
    uint64_t tokens[MAX_TB_MOVES];
    int count = 0;
    for_each_legal_move(b, us, [&](const TbMove& m) {
        moves[count] = m;
        tokens[count] = prepare(m);
        ++count;
    });
    if (count == 0) {
        best_dtm = best_dtz = b.in_check(us) ? loss_in(0) : VALUE_UNKNOWN;
        return true;
    }
    for (int k = 0; k < count; ++k) {
        const TbMove& m = moves[k];
        Value sdtm, sdtz;
        if (!successor(m, tokens[k], sdtm, sdtz)) return false;
        int wdl = wdl_of_dtz(sdtz);
        if (m.double_step) {  // the reply may capture en passant
            PieceOn after[MAX_PIECES];
            const int n = pieces_after(b, m, after);
            improve_with_en_passant(after, n, ~us, Square((m.from + m.to) / 2), m.to, sdtm, wdl, lookup);
        }
        const Value dtm = value_from_mover(sdtm);
        const Value dtz = m.zeroing(b) ? dtz_of_zeroing_move(wdl) : value_from_mover(sdtz);
        if (k == 0 || value_rank(dtm) > value_rank(best_dtm)) best_dtm = dtm;
        if (k == 0 || value_rank(dtz) > value_rank(best_dtz)) best_dtz = dtz;
    }
    return true;
}

}  // namespace pythia::tb
