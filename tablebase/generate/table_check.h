// The check of a stored table (`pythia tb verify`): every DTM and DTZ read back from the files
// (with what they leave to the reader recovered) against its moves, and the WDL file against
// the DTZ. And the write of a table that `tb generate` makes: staged, checked (write_check.h),
// moved into place.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tablebase/format/table_set.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/generate/write_check.h"

namespace pythia::tb {

struct TableCheck {
    bool ok = false;
    std::string problem;          // a file missing or refused (then nothing was compared)
    uint64_t positions = 0;       // legal positions whose DTM and DTZ were checked, both sides
    uint64_t inconsistent = 0;    // of those, DTM or DTZ not what the moves give
    uint64_t wdl_positions = 0;   // legal positions whose WDL was checked
    uint64_t wdl_mismatches = 0;  // WDL that the prober would answer differently from the DTZ
    std::vector<std::string> examples;
    // "ok: 1234 positions, 0 inconsistent; WDL file: 0 differ from DTZ" or what failed.
    std::string summary(bool wdl_only) const;
};

// Checks the table `material` stored in `dir`. `subtables` holds every table it converts into,
// with the sides to move Material::successor_sides names (load_subtables, or the generator's).
// `wdl_only`: the WDL file against the DTZ alone. `read` (if given) gets the table's values as
// read for the check (every position, both sides), for later tables that convert into it.
TableCheck check_stored_table(const std::filesystem::path& dir, const Material& material, const TableSet& subtables,
                              int threads, bool wdl_only = false, std::shared_ptr<const TableValues>* read = nullptr);

// Writes `table` as `info` says into a staging folder inside `dir`, checks what was written
// there (check_written_table, write_check.h: every section decoded against the values in
// memory, the prober on a sample, with `moves`, the sample of its moves checked before), and
// only then moves its two files into `dir`: a table in `dir` is complete and checked, or absent
// (a stop between the two moves leaves files of two writes, which table_files_valid refuses).
// The tables it converts into are read from `dir`. A table whose moves sample failed is not
// written. False with a message naming the table and what failed; `check` (if given) gets the
// check's report either way, `times` (if given) the wall seconds of the two stages (the moves
// sample's counted in the check's).
struct WriteTimes {
    double write = 0, check = 0;
};
bool write_checked_table(const TableValues& table, const std::filesystem::path& dir, const GenerationInfo& info,
                         const MovesSample& moves, WriteCheck* check = nullptr, std::string* error = nullptr,
                         WriteTimes* times = nullptr);

}  // namespace pythia::tb
