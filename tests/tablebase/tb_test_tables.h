// Table files for the file-format and probing tests: every 3- and 4-piece table, generated and
// written once per build tree (PYTHIA_TEST_TABLES_DIR) and shared by all test processes, which
// take a lock while the first of them writes it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/position.h"
#include "table_file_bytes.h"
#include "tablebase/format/table_file.h"
#include "tablebase/format/table_set.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/probe/tablebases.h"

namespace pythia::test {

// The folder with the tables, generated first if needed.
const std::filesystem::path& test_tables_dir();

// The test tables opened for probing, once per process.
const tb::Tablebases& test_tablebases();

// A fresh empty folder under the system's temporary folder, removed when the process ends.
std::filesystem::path scratch_dir(const std::string& name);

// A folder of test files written once and shared by the test processes, like the test tables:
// `write` fills an empty folder (with copy_test_tables_into and write_again, say), the first
// process that asks does it while the others wait on a lock, and the folder is kept in the
// build tree (beside PYTHIA_TEST_TABLES_DIR) until the test executable is rebuilt or the test
// tables change: its key is the executable's identity, the test tables' files and light mode.
// So the files are what this build's writer writes, made once per build instead of once per
// test process (each TEST_CASE is a process of its own under ctest). `name` names what `write`
// makes; the folder and its files are for reading only (a test that changes a file copies it).
std::filesystem::path shared_written_dir(const std::string& name,
                                         const std::function<void(const std::filesystem::path&)>& write);

// Copies every test table file into `dir`.
void copy_test_tables_into(const std::filesystem::path& dir);

// Copies `file` of the test tables to `dir` (under its own name or `as`).
std::filesystem::path copy_table_file(const std::string& file, const std::filesystem::path& dir,
                                      const std::string& as = "");

// A fresh scratch folder `name` holding a copy of every test table file.
std::filesystem::path copy_of_test_tables(const std::string& name);

// Opens the `kind` file of table `name` in `dir`; throws with the reader's message if it cannot.
std::unique_ptr<tb::TableFile> open_table_file(const std::filesystem::path& dir, const char* name, tb::FileKind kind);

// Entries of side `c` whose DTM or DTZ differ between two loads of one table (only legal
// positions of `expected` with `legal_only`: a table loaded for conversions keeps don't-cares
// elsewhere, and is compared by its DTZ's WDL). A count, not a comparison of the arrays: Catch
// would print millions of values.
uint64_t differing_entries(const tb::TableValues& got, const tb::TableValues& expected, Color c, bool legal_only);

// Generates `names` and their dependencies (all kept in memory) and writes each to `dir` with
// `info`'s settings, the tables generated before it as its subtables. Throws if a write fails.
tb::TableSet generate_and_write(const std::vector<const char*>& names, const std::filesystem::path& dir,
                                tb::GenerationInfo info);

// Table `name` of `dir`, both sides of every position, with the tables it converts into loaded
// into `subtables` (two threads). Throws with the loader's message if it cannot.
std::shared_ptr<tb::TableValues> load_with_subtables(const std::filesystem::path& dir, const char* name,
                                                     tb::TableSet& subtables);
// Writes table `name` of `dir` again into `dir` from its own values, with `info`'s settings (two
// threads, the tables of `dir` as its subtables). Throws with the loader's or the writer's
// message if it cannot.
void write_again(const std::filesystem::path& dir, const char* name, tb::GenerationInfo info);

// Tables the tests write again in the compact form of 5-piece tables (GenerationInfo::compact):
// KQvKP; KPvKP, which promotes into it (a recovery that probes another recovery) and has en
// passant; KRvKP, the largest, left out in light mode.
const std::vector<const char*>& compact_tables();

// The test tables with compact_tables() and KPvK written again in the compact form, each after
// the tables it leads into: written once per build and shared (shared_written_dir).
const std::filesystem::path& compact_dir();

// read_bytes, write_bytes and fix_checksums: table_file_bytes.h.
// A table file's bytes with another format version in the header, checksums fixed.
std::vector<uint8_t> with_version(std::vector<uint8_t> bytes, uint32_t version);
// Clears the flag `clear` of every section whose flags have `where`, then fixes the checksums.
// Returns how many sections it changed.
int clear_section_flag(std::vector<uint8_t>& bytes, uint8_t where, uint8_t clear);
// Writes `bytes` to `file` and opens it as table `name`'s file of `kind`: the reader's reason to
// refuse it, or "opened".
std::string refusal(const std::filesystem::path& file, const std::vector<uint8_t>& bytes, const char* name,
                    tb::FileKind kind);

// A position from a FEN that must be legal.
Position position(const std::string& fen);

}  // namespace pythia::test
