// A whole table's values computed forward from their moves (successor_values.h): the positions
// after quiet moves are read from the table itself, the others from its subtables. `tb verify`
// compares every stored value with this; the loader fills in by it the side to move that a
// one-sided file leaves out.
#pragma once

#include <optional>

#include "tablebase/format/table_set.h"
#include "tablebase/probe/tb_board.h"

namespace pythia::tb {

// For one worker thread: it keeps the routes of the lists of pieces left by captures and
// promotions.
class ForwardValues {
public:
    // `with_self`: the subtables and `table` itself (with_subtables), for en passant replies.
    ForwardValues(const TableValues& table, const TableSet& with_self) : table_(table), with_self_(with_self) {}

    // The values of the position `p` (set up in `b`) with `us` to move, which must be legal.
    // A successor missing from the tables reads VALUE_ILLEGAL.
    void compute(const Placement& p, const TbBoard& b, Color us, Value& dtm, Value& dtz);

private:
    const TableValues& table_;
    const TableSet& with_self_;
    // By (captured slot + 1, promoting slot + 1, promotion piece type): which slot is captured
    // and which promotes to what fix the pieces left and their order, so one route serves every
    // position of the table.
    std::optional<TableRoute> routes_[MAX_PIECES + 1][MAX_PIECES + 1][PIECE_TYPE_NB];
};

// `subtables` with `table` added (not owned: it must outlive the set).
TableSet with_subtables(const TableValues& table, const TableSet& subtables);

// Fills table.dtm[side] and table.dtz[side] from the other side's values and `subtables` (every
// table `table` converts into, with the sides they are looked up with): every legal position
// gets its exact values, every other entry VALUE_ILLEGAL.
void recover_side(TableValues& table, Color side, const TableSet& subtables, int threads);

// The best DTM a capture or promotion of `us` reaches in `b` (best_leaving_move_dtm, captures.h),
// each looked up in `subtables`: VALUE_ILLEGAL if there is none, or if a table is missing.
Value leaving_move_dtm(const TbBoard& b, Color us, const TableSet& subtables);

// Raises table.dtm[side] to what a capture or promotion achieves where that is better: the
// exact DTM of a section stored with FLAG_MOVES_RESOLVED. `subtables` has every table those
// moves lead into, with the sides they are looked up with. Entries that are no legal position
// are left as they are. With `wdl_draws` (FLAG_DRAWS_IN_WDL: where the WDL file stores a draw),
// such a position is a draw unless one of those moves wins.
void resolve_leaving_moves(TableValues& table, Color side, const TableSet& subtables, int threads,
                           const PositionBits* wdl_draws = nullptr);

}  // namespace pythia::tb
