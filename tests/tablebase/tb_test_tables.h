// Table files for the file-format and probing tests: every 3- and 4-piece table, generated and
// written once per build tree (PYTHIA_TEST_TABLES_DIR) and shared by all test processes, which
// take a lock while the first of them writes it.
#pragma once

#include <filesystem>
#include <string>

#include "engine/core/position.h"

namespace pythia::test {

// The folder with the tables, generated first if needed.
const std::filesystem::path& test_tables_dir();

// A fresh empty folder under the system's temporary folder, removed when the process ends.
std::filesystem::path scratch_dir(const std::string& name);

// Copies `file` of the test tables to `dir` (under its own name or `as`).
std::filesystem::path copy_table_file(const std::string& file, const std::filesystem::path& dir,
                                      const std::string& as = "");

// A position from a FEN that must be legal.
Position position(const std::string& fen);

}  // namespace pythia::test
