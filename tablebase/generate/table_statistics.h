// What `pythia tb info` shows, computed once when a table is written and stored in its WDL
// file: legal positions and outcomes per side to move, the longest DTM and DTZ with an example.
#pragma once

#include <string>

#include "tablebase/format/file_format.h"
#include "tablebase/format/table_set.h"

namespace pythia::tb {

TableStatistics compute_statistics(const TableValues& table, int threads);

// The FEN of a table index with `stm` to move (no castling, no en passant), or an empty string
// for an index that is not a position.
std::string index_fen(const TableIndex& index, uint64_t i, Color stm);

}  // namespace pythia::tb
