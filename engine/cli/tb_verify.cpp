// `pythia tb verify [MATERIAL...|--all] [--dir D] [--threads T] [--memory GiB] [--wdl-only]`: the
// check that `tb generate` runs on every table it writes (table_check.h), on stored tables.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "engine/cli/tb_args.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_check.h"
#include "tablebase/generate/table_loader.h"

namespace pythia::cli {

int tb_verify_command(const Args& args) {
    using namespace pythia::tb;
    bool wdl_only = false;
    size_t memory_budget = 0;  // for the tables kept for later ones and the check under way
    const Args rest = take_memory_budget(args, memory_budget);
    check_budget_fits_machine(memory_budget);
    TableArgs a =
        parse_table_args(rest, [&](const std::string& flag) { return flag == "--wdl-only" && (wdl_only = true); });
    if (a.all_stored || a.tables.empty()) {
        std::vector<Material> stored;
        for (const Material& m : all_materials(5))
            if (table_files_valid(a.dir, m)) stored.push_back(m);
        if (stored.empty()) {
            std::cerr << "pythia tb verify: no valid tables in " << a.dir << '\n';
            return EXIT_FAILED;
        }
        // Dependency order, so that a table checked is at hand for those that convert into it.
        a.tables.clear();
        for (const Material& m : with_dependencies(stored))
            if (std::find(stored.begin(), stored.end(), m) != stored.end()) a.tables.push_back(m);
    }
    TableCache cache(a.dir, a.tables, a.threads, memory_budget);
    int failures = 0;
    for (size_t i = 0; i < a.tables.size(); ++i) {
        const Material& m = a.tables[i];
        const auto start = std::chrono::steady_clock::now();
        cache.make_room(i);
        TableSet subtables;
        std::string error;
        TableCheck check;
        std::shared_ptr<const TableValues> read;
        if (!cache.subtables(i, subtables, &error))
            check.problem = "a subtable: " + error;
        else
            check = check_stored_table(a.dir, m, subtables, a.threads, wdl_only, &read);
        if (read) cache.offer(i, std::move(read));
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%-8s %s (%.1f s)\n", m.name().c_str(), check.summary(wdl_only).c_str(), s);
        for (const std::string& e : check.examples) std::printf("    %s\n", e.c_str());
        if (!check.ok) ++failures;
        std::fflush(stdout);
    }
    // Each table is read once for its check; the cache reads the subtables not checked here, and
    // those it had to let go of within the memory budget, again.
    std::printf("%zu tables verified, %d failed; %zu tables read in all\n", a.tables.size(), failures,
                a.tables.size() + cache.reads());
    return failures ? EXIT_FAILED : EXIT_OK;
}

}  // namespace pythia::cli
