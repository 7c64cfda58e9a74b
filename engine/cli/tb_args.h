// Arguments that the `tb` verbs over stored tables share: materials, --all [N], --dir, --threads.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/cli/command.h"
#include "engine/core/data_paths.h"
#include "tablebase/format/material.h"
#include "tablebase/format/table_set.h"
#include "tablebase/generate/generator.h"

namespace pythia::cli {

struct TableArgs {
    std::vector<tb::Material> tables;                     // normalised; with --all N every table of up to N pieces
    bool all_stored = false;                              // --all without a number
    std::filesystem::path dir = default_tablebase_dir();  // engine/core/data_paths.h
    int threads = 1;                                      // default: every core
};

// Parses `args`. `flag(arg)` may take a verb's own flags (returning true); anything else that
// starts with "--" or names no material of 3 to 6 pieces is a UsageError.
TableArgs parse_table_args(const Args& args, const std::function<bool(const std::string&)>& flag = {});

// Takes `--memory GiB` (the bytes of tables a command may hold in memory at once) out of `args`:
// `budget` gets it, or default_memory_budget() (two thirds of the machine's) without one.
// Returns the other arguments. A size that is not a positive number of GiB is a UsageError.
Args take_memory_budget(const Args& args, size_t& budget);
// A UsageError if `budget` is more than the machine's memory and swap: the kernel would kill
// the run part way through a table. (A dry run may plan for a larger machine.)
void check_budget_fits_machine(size_t budget);

// How `tb generate` makes each table (tb_generate.cpp): unset, generate_table in this process;
// pythia-mpi (engine/mpi_main.cpp) shares each one among the ranks of an MPI job.
using TableGeneration = std::function<std::shared_ptr<const tb::TableValues>(const tb::Material&, const tb::TableSet&,
                                                                             const tb::GenerationOptions&)>;
void set_table_generation(TableGeneration generation);

}  // namespace pythia::cli
