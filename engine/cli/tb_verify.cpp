// `pythia tb verify [MATERIAL...|--all] [--dir D] [--threads T] [--wdl-only]`: the check that
// `tb generate` runs on every table it writes (table_check.h), on stored tables.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "engine/cli/tb_args.h"
#include "tablebase/generate/table_check.h"
#include "tablebase/generate/table_loader.h"

namespace pythia::cli {

int tb_verify_command(const Args& args) {
    using namespace pythia::tb;
    bool wdl_only = false;
    TableArgs a =
        parse_table_args(args, [&](const std::string& flag) { return flag == "--wdl-only" && (wdl_only = true); });
    if (a.all_stored || a.tables.empty()) {
        a.tables.clear();
        for (const Material& m : all_materials(5))
            if (table_files_valid(a.dir, m)) a.tables.push_back(m);
        if (a.tables.empty()) {
            std::cerr << "pythia tb verify: no valid tables in " << a.dir << '\n';
            return EXIT_FAILED;
        }
    }
    int failures = 0;
    for (const Material& m : a.tables) {
        const auto start = std::chrono::steady_clock::now();
        TableSet subtables;
        std::string error;
        TableCheck check;
        if (!load_subtables(a.dir, m, subtables, &error, a.threads))
            check.problem = "a subtable: " + error;
        else
            check = check_stored_table(a.dir, m, subtables, a.threads, wdl_only);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%-8s %s (%.1f s)\n", m.name().c_str(), check.summary(wdl_only).c_str(), s);
        for (const std::string& e : check.examples) std::printf("    %s\n", e.c_str());
        if (!check.ok) ++failures;
        std::fflush(stdout);
    }
    std::printf("%zu tables verified, %d failed\n", a.tables.size(), failures);
    return failures ? EXIT_FAILED : EXIT_OK;
}

}  // namespace pythia::cli
