// Comparison of a table in memory with the reference tables, shared by the tests and by
// bench/tb_truth (scripts/verify-truth).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tablebase/format/table_set.h"

namespace pythia::truth {

struct CompareOptions {
    uint64_t stride = 1;      // compare DTM and WDL of every stride-th index
    uint64_t dtz_stride = 1;  // and DTZ of every dtz_stride-th (fathom's DTZ probe is slow)
    uint64_t offset = 0;      // first index (so that samples of different runs differ)
    bool dtm = true;          // compare DTM with Gaviota
    bool syzygy = true;       // compare WDL and DTZ with Syzygy
    int threads = 1;          // each compares a contiguous part of the index (the probers are thread-safe)
};

struct CompareResult {
    uint64_t positions = 0, dtz_checked = 0;
    uint64_t dtm_mismatches = 0, wdl_mismatches = 0, dtz_mismatches = 0;
    uint64_t dtz_off_by_one = 0;        // within Syzygy's rounding: counted, not a mismatch
    std::vector<std::string> examples;  // a few mismatches with FEN and both values
};

// Requires init_gaviota and init_syzygy to have succeeded.
CompareResult compare_table(const tb::TableValues& t, const CompareOptions& options);

}  // namespace pythia::truth
