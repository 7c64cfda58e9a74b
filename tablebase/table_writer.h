// Writing a generated table to its two files (see FORMAT.md), atomically: each file is written
// under a temporary name in the same folder, flushed to disk, then renamed into place.
#pragma once

#include <array>
#include <filesystem>
#include <string>

#include "tablebase/file_format.h"
#include "tablebase/table_set.h"

namespace pythia::tb {

struct GenerationInfo {
    double seconds = 0;  // generation time, shown by `tb info`
    int threads = 1;     // the generator's threads; the writer compresses with as many
    // The tables that captures lead into (the generator's subtables). With them, the WDL file
    // leaves "don't care" the positions where a capture already achieves the value (the prober
    // searches captures), which makes it much smaller; without them WDL is stored exactly.
    // For a table that records those positions itself (a generated one), an empty set will
    // do: it is searched only when the record is missing (a table loaded from files).
    const TableSet* subtables = nullptr;
    // How WDL sections are compressed: PAIRS, or format version 1's LZ4 blocks (for tests of
    // `tb recompress` and for comparisons).
    Codec wdl_codec = Codec::PAIRS;
    // How DTM and DTZ sections are compressed: LZ4 blocks, or PAIRS (sections of up to 8-bit
    // codes; wider ones stay LZ4). PAIRS files are 14 % smaller and probe faster, but Re-Pair on
    // these streams is slow: it would double the 3-4-piece set's generation time and add over an
    // hour to the 5-piece set's (GENERATOR.md). So the generator writes LZ4 and `pythia tb
    // recompress` turns the files into PAIRS ones afterwards, when the time is there.
    Codec distance_codec = Codec::LZ4;
    // Try every storage order of each section on samples and keep the smallest (format version
    // 4, storage_order.h). It makes 5-piece files much smaller but costs minutes per table, so the
    // generator leaves it to `pythia tb rewrite`; without it every section keeps the index's order.
    bool choose_storage_order = false;
    // The generator's threads for the statistics when the table is written again later (`tb
    // rewrite`); 0: `threads`.
    int generation_threads = 0;
    // Store the DTM and DTZ of one side to move only, the one that takes fewer bytes (format
    // version 5). The reader recovers the other side by one ply of moves: the loader from the
    // subtables, the prober with a probe of every move instead of one read. On the ten 5-piece
    // tables measured the DTM/DTZ files were 59 % smaller (FORMAT.md); `tb rewrite --one-side`.
    bool one_side_distances = false;
    // Leave to the reader the DTM that a capture or promotion achieves (format version 6,
    // FLAG_MOVES_RESOLVED): there the stored DTM may be any value no better, chosen to compress
    // best, and the reader takes the best of it and those moves (captures.h). Needs `subtables`
    // with the DTM of every table the moves lead into; `tb rewrite --resolve-dtm`.
    bool moves_resolved_dtm = false;
    // With `moves_resolved_dtm`, also leave the draws to the WDL file (format version 10,
    // FLAG_DRAWS_IN_WDL): a draw whose stored WDL is a draw may hold any DTM (the reader reads a
    // draw there unless a capture or promotion wins). The stored WDL is that of the WDL file
    // written with it; with `distance_file_only`, `stored_wdl_draws`: where the WDL file kept
    // stores a draw, per side (table_loader.h, stored_wdl_draws), without which draws are stored.
    bool draws_in_wdl = true;
    // For tests: the draws left to the WDL file hold the best value stored exactly elsewhere in
    // their section (its quickest win if it has one) instead of the value that compresses best,
    // so that a reader that took them for a bound would read wrong values.
    bool worst_case_free_draws = false;
    // For tests: the pair codec's block sizes to try for DTM (empty: the writer's own choice).
    std::vector<uint32_t> dtm_pair_block_bytes;
    // For tests: the DTZ sections' context (nullopt: the one that compresses best), so that the
    // reader's way through each can be checked.
    std::optional<Context> dtz_context;
    const std::array<PositionBits, COLOR_NB>* stored_wdl_draws = nullptr;
    // Also leave low in WDL the positions whose value a quiet promotion to a queen achieves
    // (format version 7, FLAG_PROMOTIONS_RESOLVED), in each section of a table with pawns where
    // that makes it smaller; the writer encodes such a section both ways and keeps the smaller.
    // Needs the same as the captures: a record from the generator or `subtables`.
    bool promotion_resolved_wdl = true;
    // Write the WDL file alone (`tb rewrite --wdl-only`): the DTM/DTZ file is not touched, so
    // `write_id` must be that file's, and the options above for DTM and DTZ do not apply.
    bool wdl_file_only = false;
    // Write the DTM/DTZ file alone (`tb rewrite --dtm-only`): the WDL file is not touched, so
    // `write_id` must be that file's. Excludes `wdl_file_only`.
    bool distance_file_only = false;
    // The id that pairs the two files (FileHeader::write_id); 0: a new random one. `tb rewrite`
    // keeps the old files' id, so that the old WDL file and the new DTM/DTZ file (with the same
    // values) still pair if it stops between moving the two into place.
    uint64_t write_id = 0;
};

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

// Writes <dir>/<MATERIAL>.pytw and <dir>/<MATERIAL>.pytd (only the first with
// `info.wdl_file_only`, only the second with `info.distance_file_only`), creating `dir` if needed. Returns
// false with a message naming the file and the problem if it cannot.
bool write_table_files(const TableValues& table, const std::filesystem::path& dir, const GenerationInfo& info,
                       std::string* error = nullptr);

struct RecompressResult {
    bool already_current = false;  // every section already used the current codec: untouched
    uint64_t old_bytes = 0, new_bytes = 0;
};

// Rewrites <dir>/<MATERIAL>.pytw or .pytd (`kind`) with the current codecs (PAIRS for every
// section of up to 8-bit codes), keeping every stored code, the statistics and the write id (so
// the two files still pair): upgrades older files without generating the table again. The new
// sections are decoded and compared with the old ones before the file is replaced, and the new
// file is opened and checked after. `version` (LARGE_GRAMMAR_VERSION to FORMAT_VERSION): the
// format version to write, for readers of an older one (and tests of reading old files); a file
// already of that version, its pair sections included, is left alone.
bool recompress_table_file(const std::filesystem::path& dir, const Material& material, FileKind kind, int threads,
                           RecompressResult* result, std::string* error, uint32_t version = FORMAT_VERSION);

}  // namespace pythia::tb
