// Ranking every move of a root position by the tables: WDL under the 50-move rule, DTZ50, DTM.
#include "tablebase/probe/table_entry.h"

namespace pythia::tb {

Value dtm_of_move(Value after) { return value_from_mover(after); }

Value dtz_of_move(bool zeroing, int wdl_after, Value dtz_after) {
    return zeroing ? dtz_of_zeroing_move(wdl_after) : value_from_mover(dtz_after);
}

std::optional<std::vector<RootMove>> Tablebases::rank_root_moves(const Position& root, bool successor_dtz) const {
    const int n = root.count_all();
    if (root.castling_rights() || n > MAX_PIECES || (n > max_pieces_ && n > 2)) return std::nullopt;
    Position pos = root;
    std::vector<RootMove> moves;
    for (Move m : MoveList(root)) {
        RootMove rm;
        rm.move = m;
        rm.zeroing = root.is_capture(m) || type_of(root.moved_piece(m)) == PAWN;
        pos.do_move(m);
        const std::optional<ProbeResult> after =
            probe_position(pos, rm.zeroing && !successor_dtz ? NEED_WDL | NEED_DTM : NEED_ALL);
        pos.undo_move();
        if (!after) return std::nullopt;
        rm.after = *after;
        rm.wdl = -after->wdl;
        if (after->dtm) rm.dtm = dtm_of_move(*after->dtm);
        if (rm.zeroing)
            rm.dtz = dtz_of_move(true, after->wdl, VALUE_UNKNOWN);
        else if (after->dtz)
            rm.dtz = dtz_of_move(false, after->wdl, *after->dtz);
        rm.wdl50 = rm.wdl;
        // A non-zeroing move carries the halfmove clock on: the zeroing must come in time.
        if (!rm.zeroing && rm.dtz && std::abs(rm.wdl) == 2 && root.rule50() + distance_of(*rm.dtz) > 100)
            rm.wdl50 = rm.wdl / 2;
        moves.push_back(rm);
    }
    std::stable_sort(moves.begin(), moves.end(), [](const RootMove& a, const RootMove& b) {
        if (a.wdl50 != b.wdl50) return a.wdl50 > b.wdl50;
        const int da = a.dtm ? value_rank(*a.dtm) : -1000000, db = b.dtm ? value_rank(*b.dtm) : -1000000;
        if (da != db) return da > db;
        const int za = a.dtz ? dtz_rank(*a.dtz) : -1000000, zb = b.dtz ? dtz_rank(*b.dtz) : -1000000;
        return za > zb;
    });
    return moves;
}

}  // namespace pythia::tb
