// The check of a table just written, before its files take their place (write_checked_table):
// it proves what the writer did, that the files decode to the values the generator holds in
// memory, at the cost of one decode of each section. The generator's own work is proved
// elsewhere: whole by `pythia tb verify` (check_stored_table) and the truth tests, and here on
// a seeded sample.
//
//   1. Every section, decoded whole and walked in storage order, against the values in memory:
//      exact where the writer stored a value exactly, within the stated bound where it left the
//      value to the reader (WDL no higher where a resolving capture or queen promotion achieves
//      it, DTM no better where a capture or promotion does), anything where it is a don't-care
//      (no legal position; a draw whose DTM the WDL file gives; a DTZ of a draw).
//   2. The prober itself (Tablebases, the engine's reader) on a sample of legal positions of
//      both sides to move: WDL, DTZ and DTM equal to the values in memory. This covers what the
//      reader derives: the lifted WDL, the resolved DTM, the side to move the file leaves out.
//   3. A sample of the positions against their moves (verify_table on one position in
//      CONSISTENCY_SAMPLE), so that a generator fault is caught before it is stored as well.
//      It needs the tables the moves convert into, so it runs on its own (check_moves_sample)
//      while they are at hand: the generation driver runs it right after a generation, and the
//      write that follows holds the table alone.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tablebase/format/table_set.h"

namespace pythia::tb {

// Where the writer left a value to the reader, per side to move (bit per index; empty: none).
// The writer fills it (write_table_files) and the check reads it: a stored value may differ
// from the exact one only there, and only as the section's flags allow.
struct WrittenBounds {
    std::array<PositionBits, COLOR_NB> wdl_capture;    // WDL achieved by a resolving capture
    std::array<PositionBits, COLOR_NB> wdl_promotion;  // WDL achieved by a quiet queen promotion
    std::array<PositionBits, COLOR_NB> dtm_moves;      // DTM achieved by a capture or promotion
};

// One position in this many is checked against its moves at write time (step 3), chosen by a
// hash of its index and the seed, so a rerun checks the same ones.
constexpr uint32_t CONSISTENCY_SAMPLE = 32;
// Legal positions per side to move probed through the prober (step 2), at most.
constexpr uint64_t PROBER_SAMPLE = 4096;

// Step 3: the positions of the sample against their moves, and how long it took.
struct MovesSample {
    uint64_t sampled = 0;  // legal positions checked against their moves
    uint64_t inconsistent = 0;
    std::vector<std::string> examples;
    double seconds = 0;
};
// Checks one position in CONSISTENCY_SAMPLE of `table` (chosen by `seed`) against its moves, in
// the table and in `subtables` (every table it converts into, with the sides it looks up).
MovesSample check_moves_sample(const TableValues& table, const TableSet& subtables, int threads, uint64_t seed = 0);

struct WriteCheck {
    bool ok = false;
    std::string problem;             // a file missing, refused or corrupt (then nothing else ran)
    uint64_t decoded = 0;            // stored values compared (every position of every section)
    uint64_t decode_mismatches = 0;  // of those, outside what the writer was allowed to store
    uint64_t probed = 0;             // positions probed through the prober, both sides
    uint64_t probe_mismatches = 0;
    uint64_t sampled = 0;  // legal positions checked against their moves
    uint64_t inconsistent = 0;
    std::vector<std::string> examples;
    std::string summary() const;
};

// Checks the table `table` written with `bounds` into `staging` (its two files), reading the
// tables it converts into, as the prober finds them, from `staging` first and then `dir` (step
// 2); `moves` is step 3's result (check_moves_sample), which the check's result includes.
WriteCheck check_written_table(const std::filesystem::path& staging, const std::filesystem::path& dir,
                               const TableValues& table, const WrittenBounds& bounds, const MovesSample& moves,
                               int threads, uint64_t seed = 0);

}  // namespace pythia::tb
