// `tb verify`: an independent check of a stored table. Every legal position's DTM and DTZ must
// be exactly what its moves give (a win in n has a move to a loss in n - 1 and none shorter; a
// loss in n has only moves to wins, the longest in n - 1; a draw has no winning move and a
// drawing one; mate and stalemate where there is no move), computed here by forward move
// generation rather than by the generator's backward induction.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "tablebase/format/table_set.h"

namespace pythia::tb {

// A value as the reports name it: "win in 7", "loss in 0", "draw", "illegal".
std::string describe(Value v);

struct VerifyReport {
    uint64_t positions = 0;  // legal positions checked (both sides to move)
    uint64_t mismatches = 0;
    std::vector<std::string> examples;  // a few mismatches, as "FEN: what was expected"
};

// Checks `table` against itself and `subtables` (every table it converts into). `recomputed`
// (bits 1 << WHITE, 1 << BLACK): the sides to move whose values are computed again from their
// moves. A side left out has its legal positions counted only: the loader recovered it by
// exactly this computation from the other side (recover_side), so computing it again could only
// agree, while checking the other side against it checks both.
// `one_in` > 1: only the positions whose index hashes (with `seed`) to a multiple of it, a
// sample that the same seed draws again.
VerifyReport verify_table(const TableValues& table, const TableSet& subtables, int threads, uint8_t recomputed = 3,
                          uint32_t one_in = 1, uint64_t seed = 0);

// Checks a table's WDL file against its DTZ (which verify_table checks): at every legal position
// the value the prober answers must be the WDL of the DTZ. That is max(stored, best resolving
// move) where the side's section `flags` have FLAG_CAPTURE_RESOLVED (with queen promotions among
// the moves if FLAG_PROMOTIONS_RESOLVED), the stored value otherwise. `stored`: the file's
// symbols (WDL + 2) by index; `table` must mark illegal entries (LoadFor::EVERY_POSITION);
// `subtables` are looked up for the moves.
VerifyReport verify_wdl(const TableValues& table, const std::array<ValueArray, COLOR_NB>& stored,
                        const std::array<uint8_t, COLOR_NB>& flags, const TableSet& subtables, int threads);

}  // namespace pythia::tb
