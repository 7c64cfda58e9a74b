// Spill files: a generated (or loaded) table held for conversions (its DTM values and cursed
// bits, keep_for_conversions), LZ4-compressed as they are in memory, for the generation driver
// to read back within one run instead of decoding the table's compact files again.
//
// Why: a 5-piece table's files store one side to move and leave DTM to the moves that leave
// the table, so loading one back for a later table recovers the other side and resolves those
// moves by searching every position: 114 s for KRPvKR's four 5-piece subtables, and the whole
// 3-5-piece set's run loads 33 G positions (`tb generate --all 5 --dry-run`), hours of work.
// A spill file is read at LZ4's speed. It is scratch, not a format: a run removes its spill
// files once no later table needs them, and a spill file that is missing, truncated, corrupt or
// of another table is ignored (the caller falls back to the table's files). Each names the write
// of the table's files it holds the values of (TableFile::write_id), so that a run started
// again after a stop can take over the spill files of the run it follows where the folder still
// holds those same files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "tablebase/format/table_set.h"

namespace pythia::tb {

// Writes the sides to move `t` holds, as held for conversions (the DTM, and the cursed bits made
// from the DTZ if `t` has it), to `path`, atomically (a temporary name, then renamed), with the
// write id of the table's files (0: none written yet). False with `error` set on failure.
bool write_spill_file(const std::filesystem::path& path, const TableValues& t, uint64_t write_id, std::string* error);

// The sides in `sides` (bits 1 << WHITE, 1 << BLACK) of `material`'s table from a spill file,
// held for conversions, the others left empty; nullptr (with `why`) if the file is absent, is not that
// table's, lacks one of the sides or fails its checksums.
std::shared_ptr<TableValues> read_spill_file(const std::filesystem::path& path, const Material& material, uint8_t sides,
                                             std::string* why);

// True if `path` is a spill file of `material`'s table holding the sides in `sides` (its header
// alone is read: read_spill_file may still find it corrupt).
bool spill_file_holds(const std::filesystem::path& path, const Material& material, uint8_t sides);

// The write id of the table files whose values the spill file `path` of `material` holds (0:
// none was written when it was spilled); nullopt if `path` is no spill file of that table.
std::optional<uint64_t> spill_file_write_id(const std::filesystem::path& path, const Material& material);

}  // namespace pythia::tb
