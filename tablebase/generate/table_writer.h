// Writing a generated table to its two files (see FORMAT.md), atomically: each file is written
// under a temporary name in the same folder, flushed to disk, then renamed into place.
#pragma once

#include <array>
#include <filesystem>
#include <string>

#include "tablebase/format/file_format.h"
#include "tablebase/format/table_set.h"

namespace pythia::tb {

struct WrittenBounds;

// How a table is written. Every file has the one form of FORMAT.md: WDL and DTM/DTZ sections in
// the pair codec (LZ4 blocks only for codes of more than 8 bits). What varies with the table's
// size is decided by `final_form`.
struct GenerationInfo {
    double seconds = 0;  // generation time, shown by `tb info`
    int threads = 1;     // the generator's threads; the writer compresses with as many
    // The tables that captures and promotions lead into (the generator's subtables). With them,
    // the WDL file leaves "don't care" the positions where a capture (or a queen promotion)
    // already achieves the value (the prober searches those moves), which makes it much smaller;
    // without them WDL is stored exactly. A generated table records the positions captures and
    // promotions resolve itself (TableValues), so for it an empty set will do; a table loaded
    // from files needs them, for the writer to search those moves.
    const TableSet* subtables = nullptr;
    // The compact form (final_form sets it for tables of COMPACT_MIN_PIECES and more; the tests
    // also on smaller ones). Three things go together:
    // - Each section is stored in the order of the index digits that makes it smallest, chosen by
    //   encoding samples in every order: on KBNvKN 46 % smaller WDL sections, but it is most of
    //   the writer's time. Otherwise sections keep the index's own order.
    // - The DTM and DTZ of one side to move only are stored, the one that takes fewer bytes. The
    //   reader recovers the other side by one ply of moves: the loader from the subtables, the
    //   prober with a probe of every move instead of one read.
    // - The DTM that a capture or promotion achieves is left to the reader (FLAG_MOVES_RESOLVED):
    //   there the stored DTM may be any value no better, chosen to compress best, and the reader
    //   takes the best of it and those moves (captures.h); and the draws are left to the WDL file
    //   (FLAG_DRAWS_IN_WDL). This needs `subtables` with the DTM of every table the moves lead
    //   into; without them the DTM is stored exact.
    bool compact = false;
};

// Tables of at least this many pieces are stored in the compact form: chosen storage orders, one
// side to move and a resolved DTM. Smaller tables keep the index's order (the choice would take
// most of the 3-4-piece set's generation time for a few hundred KiB), both sides and an exact
// DTM: a 5-piece probe's captures and promotions end in them, and an exact value there ends the
// chain at one read, for 5.8 MiB more than a resolved DTM over the 35 3-4-piece tables
// (FORMAT.md, "Why this layout").
constexpr int COMPACT_MIN_PIECES = 5;

// How `material` is written: the one form of the format for a table of its size.
inline GenerationInfo final_form(const Material& material, double seconds, int threads, const TableSet* subtables) {
    GenerationInfo info;
    info.seconds = seconds;
    info.threads = threads;
    info.subtables = subtables;
    info.compact = material.total() >= COMPACT_MIN_PIECES;
    return info;
}

// Positions of `table` (bit per index, per side to move) where a resolving capture (captures.h)
// achieves the WDL value, so the stored value may be anything lower: the prober takes the better
// of the stored value and those captures. Found by searching every legal, not lost position's
// captures in `subtables`; the generator records the same as it goes (TableValues).
std::array<PositionBits, COLOR_NB> search_capture_resolved(const TableValues& table, const TableSet& subtables,
                                                           int threads);

// The same for quiet promotions to a queen (FLAG_PROMOTIONS_RESOLVED): positions whose WDL
// such a promotion achieves. Empty arrays for a table without pawns.
std::array<PositionBits, COLOR_NB> search_promotion_resolved(const TableValues& table, const TableSet& subtables,
                                                             int threads);

// Positions of `table` (bit per index, per side to move) whose DTM a capture or promotion
// achieves (captures.h, best_leaving_move_dtm), looked up in `subtables`.
std::array<PositionBits, COLOR_NB> search_moves_resolved_dtm(const TableValues& table, const TableSet& subtables,
                                                             int threads);

// Writes <dir>/<MATERIAL>.pytw and <dir>/<MATERIAL>.pytd, creating `dir` if needed. Returns
// false with a message naming the file and the problem if it cannot. `bounds` (if given): where
// the files leave a value to the reader, for the check of what was written (write_check.h).
bool write_table_files(const TableValues& table, const std::filesystem::path& dir, const GenerationInfo& info,
                       std::string* error = nullptr, WrittenBounds* bounds = nullptr);

}  // namespace pythia::tb
