// Writing a stored table again from its own files, with everything the writer can do that the
// generator leaves out for speed: the pair codec for every section and the best storage order of
// each (GenerationInfo::choose_storage_order). The values and the write id are those of the
// old files; the new files are checked against the old values before they replace the old ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "tablebase/material.h"

namespace pythia::tb {

struct RewriteResult {
    uint64_t old_wdl_bytes = 0, old_distance_bytes = 0;
    uint64_t new_wdl_bytes = 0, new_distance_bytes = 0;
};

struct RewriteOptions {
    int threads = 0;  // 0: all cores
    // Store DTM and DTZ for one side to move only (GenerationInfo::one_side_distances) in tables
    // of at least `one_side_min_pieces` pieces; otherwise both sides are stored, also when the
    // old file had one.
    bool one_side_distances = false;
    int one_side_min_pieces = 0;
    // Leave to the reader the DTM that captures and promotions achieve
    // (GenerationInfo::moves_resolved_dtm) in tables of at least `resolve_dtm_min_pieces`
    // pieces; every other DTM is stored exactly.
    bool moves_resolved_dtm = false;
    int resolve_dtm_min_pieces = 0;
    // Rewrite the WDL file alone (GenerationInfo::wdl_file_only), with the same write id so that
    // it still pairs with the DTM/DTZ file, which stays as it is: minutes less per 5-piece table
    // than a whole rewrite, for the file the search keeps in memory. Excludes the two above.
    bool wdl_only = false;
    // Rewrite the DTM/DTZ file alone (GenerationInfo::distance_file_only), with the same write id
    // so that it still pairs with the WDL file, which stays as it is: for a set whose WDL files
    // are already rewritten, it skips the WDL's searches, encoding and check. Excludes `wdl_only`.
    bool distances_only = false;
};

// What `tb rewrite --one-side` leaves with both sides: the 3-4-piece tables. A 5-piece DTM
// probe's captures lead into them, and a side left out there is recovered by probing its every
// move, again and again; both sides of all 35 cost 11.1 MiB of DTM (FORMAT.md, "Reads in
// lockstep, and both sides of the 3-4-piece tables").
constexpr int ONE_SIDE_MIN_PIECES = 5;

// True if the rewrite stores one side to move of `m` (RewriteOptions::one_side_distances).
inline bool one_side_for(const Material& m, const RewriteOptions& options) {
    return options.one_side_distances && m.total() >= options.one_side_min_pieces;
}

// What `tb rewrite --resolve-dtm` leaves exact: the 3-4-piece tables. A 5-piece probe resolves
// its captures and promotions into them, and a position there whose stored DTM is a bound has
// its own captures resolved in turn; an exact one ends the chain at one read, which its bound's
// read already is. It costs 5.8 MiB of DTM (19.9 -> 25.7 MiB for the 35 tables; FORMAT.md,
// "Shorter root rankings").
constexpr int RESOLVE_DTM_MIN_PIECES = 5;

// True if the rewrite leaves the DTM of `m` to captures and promotions (RewriteOptions::moves_resolved_dtm).
inline bool resolve_dtm_for(const Material& m, const RewriteOptions& options) {
    return options.moves_resolved_dtm && m.total() >= options.resolve_dtm_min_pieces;
}

// Bytes a rewrite of `material` holds at its peak, an estimate: the table's DTM and DTZ of both
// sides, read back once more for the check (16 bytes a position), the codes and blocks being
// written, and the subtables it loads (DTM and DTZ of the sides looked up).
size_t rewrite_memory(const Material& material);

// Whether the files of `material` in `dir` already have the form a rewrite with `options` gives
// them: of the current format version, from one write, every section in the pair codec, one side
// or both as asked, DTM resolved or not as asked. The generator writes its DTM and DTZ with LZ4,
// which tells its files apart; its WDL sections are already pairs, so a rewrite of the WDL file
// alone is never taken as done. `tb recompress` writes pairs of both sides, exact, in the index's
// order: a file of that form counts as rewritten only with some other order. `tb rewrite`
// skips such tables, so that a rewrite of a whole set that was stopped carries on where it stopped.
bool already_rewritten(const std::filesystem::path& dir, const Material& material, const RewriteOptions& options);

// Rewrites <dir>/<MATERIAL>.pytw and .pytd (the first alone with `wdl_only`, the second alone with
// `distances_only`). Needs the tables its captures and promotions lead
// into in `dir` (for the WDL's capture-resolved positions), like the generator. Every DTM and DTZ
// of the new files must equal the old one, and every stored WDL the exact one, or lower only
// where a capture decides; otherwise the old files stay and the result is false with a message
// naming the file.
bool rewrite_table_files(const std::filesystem::path& dir, const Material& material, const RewriteOptions& options,
                         RewriteResult* result, std::string* error);

}  // namespace pythia::tb
