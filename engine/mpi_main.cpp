// pythia-mpi: `tb generate` with each table's generation shared among the ranks of an MPI job
// (tablebase/generate/distributed_generation.h). Rank 0 runs the command as `pythia tb generate`
// does: the order of the tables, their subtables, the writes and checks, the progress. Every
// rank solves its part of each table (generator.cpp: each owns a run of every slice's king
// pairs), one thread each; rank 0 writes the files, the same as pythia's.
//   mpirun --bind-to none -np N pythia-mpi tb generate <MATERIAL...|--all N> [--dir D] [--threads T] [--memory GiB]
// (--bind-to none: with no more ranks than cores mpirun binds each rank to one core, and rank 0's
// writer threads then share it: KQRvKR written in 45 instead of 25 s with two ranks.)
#include <mpi.h>
#include <sys/resource.h>

#include <cstdio>
#include <string>

#include <spdlog/spdlog.h>

#include "engine/cli/command.h"
#include "engine/cli/tb_args.h"
#include "engine/uci/logging.h"
#include "tablebase/generate/distributed_generation.h"
#include "tablebase/generate/mpi_process_group.h"

namespace {

// A rank that fails cannot leave the others waiting in a collective call: the job ends.
[[noreturn]] void abort_job(const char* what) {
    spdlog::error("pythia-mpi: {}", what);
    MPI_Abort(MPI_COMM_WORLD, pythia::cli::EXIT_FAILED);
    std::abort();
}

}  // namespace

int main(int argc, char** argv) {
    using namespace pythia;
    int provided = 0;
    // Only the main thread calls MPI: the solve runs there; the writer's threads never do.
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return cli::EXIT_FAILED;
    init_logging();
    int status = cli::EXIT_OK;
    {
        tb::MpiProcessGroup group(MPI_COMM_WORLD);
        const bool generate = argc >= 3 && std::string(argv[1]) == "tb" && std::string(argv[2]) == "generate";
        if (!generate) {
            if (group.rank() == 0)
                std::fprintf(
                    stderr,
                    "usage: mpirun --bind-to none -np N pythia-mpi tb generate <MATERIAL...|--all N> [--dir D] "
                    "[--threads T] [--memory GiB]\n");
            status = cli::EXIT_USAGE;
        } else if (group.rank() == 0) {
            cli::set_table_generation(
                [&](const tb::Material& m, const tb::TableSet& subtables,
                    const tb::GenerationOptions& options) -> std::shared_ptr<const tb::TableValues> {
                    try {
                        return tb::generate_on_group(group, m, subtables, options);
                    } catch (const std::exception& e) {
                        abort_job(e.what());
                    }
                });
            status = cli::run_command_line(argc, argv);
            tb::release_group(group);
        } else {
            try {
                tb::serve_group(group, tb::GenerationOptions{});
            } catch (const std::exception& e) {
                abort_job(e.what());
            }
        }
        // Each rank's own peak: what the partition saved it (a table's values stay on rank 0).
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        if (status == cli::EXIT_OK)
            spdlog::info("pythia-mpi: rank {} of {}: peak memory {:.2f} GiB", group.rank(), group.size(),
                         usage.ru_maxrss / 1024.0 / 1024.0);
    }
    MPI_Finalize();
    return status;
}
