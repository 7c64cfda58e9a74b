// Reading whole tables back: for the generator, which keeps the tables it converts into in
// memory, and for checking files before generating them again.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "tablebase/format/table_set.h"

namespace pythia::tb {

// True if both files of `material` are in `dir`, pass every header and checksum check, and
// come from the same write. Otherwise false with the reason in `why` (left empty when neither
// file exists: a table not generated yet).
bool table_files_valid(const std::filesystem::path& dir, const Material& material, std::string* why = nullptr);

// What loaded values will be read for.
enum class LoadFor {
    // Every index (verifying or rewriting the table): entries that are no legal position are
    // marked VALUE_ILLEGAL, exactly as the generator leaves them.
    EVERY_POSITION,
    // Only the moves that convert into it (a subtable: the generator and the verifier look up
    // the positions after legal captures and promotions). Entries that are no legal position
    // keep the "don't care" value the file stored: marking them decodes every index, which was
    // half the time of loading a table whose file is in the page cache. Each side is held for
    // conversions (keep_for_conversions: the DTM, and the DTZ only as its WDL).
    CONVERSIONS,
};

// The exact DTM and DTZ of the positions of the table, as generated (see LoadFor for the
// entries that are no legal position). Reads only the DTM/DTZ file. nullptr with a message
// naming the file and the problem if it is missing or refused. `threads` 0: all cores.
// `sides` (bits 1 << WHITE, 1 << BLACK) picks the sides to move to load; the others stay empty.
// A side the file leaves out is recovered by one ply of moves from the other
// side and the tables its captures and promotions lead into, and a DTM section left to captures
// and promotions is completed from them: `subtables`, with every side they are looked up with,
// which must be given when reading_needs_subtables says so (load_table_with_subtables reads them
// for a table read on its own). `recovered` (if given) is set to the side so recovered, if any.
std::shared_ptr<TableValues> load_table_values(const std::filesystem::path& dir, const Material& material,
                                               std::string* error = nullptr, int threads = 0, uint8_t sides = 3,
                                               LoadFor purpose = LoadFor::EVERY_POSITION,
                                               const TableSet* subtables = nullptr,
                                               std::optional<Color>* recovered = nullptr);

// Whether reading `sides` of the table stored in `dir` (load_table_values) needs the tables it
// converts into: to recover a side the file leaves out, or to complete a DTM section left to
// captures and promotions. False with a message naming the file if it is missing or refused.
bool reading_needs_subtables(const std::filesystem::path& dir, const Material& material, uint8_t sides, bool& needs,
                             std::string* error = nullptr);

// The WDL file's stored symbols (WDL + 2) of every index, for both sides to move, and, per side,
// the section's flags: whether the file leaves positions low that captures or queen promotions
// resolve (FLAG_CAPTURE_RESOLVED, FLAG_PROMOTIONS_RESOLVED, see FORMAT.md). Entries
// that are no legal position hold whatever compressed best. For `tb verify`. False with a
// message naming the file if it is missing or refused.
bool load_wdl_symbols(const std::filesystem::path& dir, const Material& material, std::array<ValueArray, COLOR_NB>& out,
                      std::array<uint8_t, COLOR_NB>& flags, std::string* error = nullptr, int threads = 0);

// Where the WDL file in `dir` stores a draw for `side` to move (bit per index): what a DTM section
// with FLAG_DRAWS_IN_WDL needs to be read. Fails with the WDL file's problem, or if it is not of
// the write `write_id` (that of the DTM/DTZ file).
bool stored_wdl_draws(const std::filesystem::path& dir, const Material& material, Color side, uint64_t write_id,
                      PositionBits& out, std::string* error = nullptr, int threads = 0);

}  // namespace pythia::tb
