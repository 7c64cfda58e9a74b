// `tb probe --syzygy S`: the answer from Syzygy files for a position Pythia's own tables do not
// hold (tablebase/probe/syzygy.h), printed like the own tables' answer but without DTM, and
// marked as Syzygy's.
#pragma once

#include "engine/core/position.h"
#include "tablebase/probe/syzygy.h"

namespace pythia::cli {

// Prints the position's WDL and DTZ50 and every legal move's; false when Syzygy cannot answer
// (nothing printed then).
bool print_syzygy_answer(const tb::SyzygyTables& syzygy, const Position& pos);

}  // namespace pythia::cli
