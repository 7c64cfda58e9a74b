// `bench`: a fixed set of positions searched to a fixed depth with one thread and a cleared
// table for each position. The node count is deterministic: it identifies the search's
// behaviour (commit messages carry it as "Bench: N"), while nps measures speed.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string_view>
#include <vector>

namespace pythia {

constexpr int BENCH_DEFAULT_DEPTH = 13;

const std::vector<std::string_view>& bench_positions();

struct BenchResult {
    uint64_t nodes = 0;
    uint64_t nps = 0;
};

// Prints a header line ("Pythia <version> bench: ..."), one line per position and, last,
// exactly "<N> nodes <M> nps".
BenchResult run_bench(int depth, std::ostream& out);

}  // namespace pythia
