// Reading whole tables back: for the generator, which keeps the tables it converts into in
// memory, and for checking files before generating them again.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "tablebase/table_set.h"

namespace pythia::tb {

// True if both files of `material` are in `dir`, pass every header and checksum check, and
// come from the same write. Otherwise false with the reason in `why`.
bool table_files_valid(const std::filesystem::path& dir, const Material& material, std::string* why = nullptr);

// The exact DTM and DTZ of every position of the table, as generated: VALUE_ILLEGAL where the
// index is not a legal position. Reads only the DTM/DTZ file. nullptr with a message naming
// the file and the problem if it is missing or refused. `threads` 0: all cores. `sides`
// (bits 1 << WHITE, 1 << BLACK) picks the sides to move to load; the others stay empty.
std::shared_ptr<TableValues> load_table_values(const std::filesystem::path& dir, const Material& material,
                                               std::string* error = nullptr, int threads = 0, uint8_t sides = 3);

}  // namespace pythia::tb
