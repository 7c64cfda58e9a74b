// Retrograde generation of one table: DTM, and DTZ50 with the five-valued WDL it implies.
//
// A table is solved one slice at a time (a pawnless table is one slice; a pawn table has one
// slice per pawn configuration, most advanced first). Inside a slice the only moves are those
// of kings and pieces that capture nothing: reversible moves, so their predecessors are found by
// "un-moving" a piece. Every other move (a capture, a pawn move, a promotion) leads to a
// position that is already solved: in a smaller table, another table of the same size (a
// promotion), or an earlier slice of this one. Those moves are "conversions": their values
// are looked up once, when the slice is initialised.
//
// The solver then proceeds by distance, one ply at a time. A position whose successor is lost
// in d plies is won in d + 1; a position all of whose moves lead to wins is lost in one more
// than the longest of them. Values from conversions are "pending" until the solver reaches
// their distance, so a shorter path found through the slice always replaces them. This is what
// makes every DTM exact and not merely an upper bound.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "tablebase/format/table_set.h"

namespace pythia::tb {

class ProcessGroup;

struct GenerationOptions {
    int threads = 1;
    // The processes this generation is shared among (process_group.h), each solving its part of
    // every slice, or nullptr: this process alone. Process 0 gets the whole table; the others a
    // table with their part of it only (with pawns and more than 8 processes: every slice's
    // values, which the later ones look up).
    ProcessGroup* group = nullptr;
    // 64-bit position ids in the solver even where the slices need no more than 32 bits (which
    // they do up to 2^30 positions): the tests compare the two.
    bool wide_ids = false;
    // Called now and then with a line of progress (for stderr).
    std::function<void(const std::string&)> progress;
};

// True if a slice of this many positions needs the solver's 64-bit position ids (each of its
// list entries 8 bytes instead of 4); no table of up to five pieces does.
bool needs_wide_position_ids(uint64_t slice_size);

// Shared among processes (ProcessGroup), a distance's frontier is worked through in rounds of at
// most this many positions a process, each ending in the exchange of the un-moves that left the
// process's king pairs: a king's 8 un-moves of 8 or 16 bytes bound a round's messages to
// 128 MB.
constexpr size_t EXCHANGE_ROUND = size_t(1) << 20;

// How a slice is split among `processes`: process p owns the king pairs [runs[p], runs[p + 1])
// (runs has processes + 1 entries, the last the number of king pairs a slice has).
std::vector<uint64_t> king_pair_runs(const TableIndex& index, int processes);

// Generates the table of `material` (normalised). Every table it converts into must be in
// `subtables` (except bare kings). Throws std::runtime_error if one is missing.
std::shared_ptr<TableValues> generate_table(const Material& material, const TableSet& subtables,
                                            const GenerationOptions& options = {});

}  // namespace pythia::tb
