// `pythia bench [depth]`: the bench of engine/uci/bench.h from the command line.
#include <iostream>

#include "engine/cli/command.h"
#include "engine/uci/bench.h"

namespace pythia::cli {

int bench_command(const Args& args) {
    if (args.size() > 1) throw UsageError("one depth at most");
    const int depth = args.empty() ? BENCH_DEFAULT_DEPTH : parse_number("the depth", args[0], 1, 64);
    run_bench(depth, std::cout);
    return EXIT_OK;
}

}  // namespace pythia::cli
