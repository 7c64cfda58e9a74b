#include "engine/cli/tb_args.h"

#include <sys/sysinfo.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "tablebase/generate/generation_driver.h"

namespace pythia::cli {

TableArgs parse_table_args(const Args& args, const std::function<bool(const std::string&)>& flag) {
    TableArgs out;
    out.threads = int(std::max(1u, std::thread::hardware_concurrency()));
    int all = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const char* what) -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError(a + " needs " + what);
            return args[++i];
        };
        if (a == "--dir") {
            out.dir = value("a folder");
        } else if (a == "--threads") {
            out.threads = parse_number(a, value("a number"), 1, 256);
        } else if (a == "--all") {
            if (i + 1 < args.size() && std::isdigit(static_cast<unsigned char>(args[i + 1][0])))
                all = parse_number(a, args[++i], 3, 5);
            else
                out.all_stored = true;
        } else if (flag && flag(a)) {
            continue;
        } else if (a.starts_with("-")) {
            throw UsageError("unknown option '" + a + "'");
        } else {
            auto m = tb::Material::parse(a);
            if (!m || m->total() < 3 || m->total() > tb::MAX_PIECES)
                throw UsageError("'" + a + "' is not a material of 3 to 6 pieces such as KQvKR");
            out.tables.push_back(m->normalized());
        }
    }
    if (all)
        for (const tb::Material& m : tb::all_materials(all)) out.tables.push_back(m);
    return out;
}

namespace {

// The machine's memory and swap in bytes, 0 where it cannot tell.
size_t machine_memory_bytes() {
    struct sysinfo info {};
    if (sysinfo(&info) != 0) return 0;
    return (size_t(info.totalram) + size_t(info.totalswap)) * size_t(info.mem_unit);
}

}  // namespace

Args take_memory_budget(const Args& args, size_t& budget) {
    budget = tb::default_memory_budget();
    Args rest;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] != "--memory") {
            rest.push_back(args[i]);
            continue;
        }
        if (i + 1 == args.size()) throw UsageError("--memory needs a size in GiB");
        char* end = nullptr;
        const double gib = std::strtod(args[++i].c_str(), &end);
        if (end == args[i].c_str() || *end || !(gib > 0) || gib > 1 << 20)
            throw UsageError("--memory: '" + args[i] + "' is not a size in GiB such as 12 or 0.5");
        budget = size_t(gib * double(1 << 30));
    }
    return rest;
}

void check_budget_fits_machine(size_t budget) {
    if (const size_t machine = machine_memory_bytes(); machine && budget > machine) {
        char text[160];
        std::snprintf(text, sizeof text, "--memory %.1f: more than this machine's %.1f GiB of memory and swap",
                      double(budget) / double(1 << 30), double(machine) / double(1 << 30));
        throw UsageError(text);
    }
}

}  // namespace pythia::cli
