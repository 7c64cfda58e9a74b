// tb-compare: do two folders hold the same tables? Every legal position of each table, both
// sides to move: the DTM and DTZ50 read back from each folder's files (what the files leave to
// the reader recovered, as `tb verify` reads them) must be equal, and each folder's WDL file
// must answer, through the prober's rule (the stored value lifted by the resolving moves its
// flags name), the WDL of that DTZ. Two writers may store different bytes for the same values
// (other storage orders, other fillings of don't-care positions); this says whether the values
// differ.
//
//   build/release/bench/tb-compare DIR_A DIR_B [MATERIAL...] [--threads T]
//
// Without MATERIAL, every table in DIR_A. Each folder must hold the tables its tables convert
// into. Exit status 0 if every table is the same, 1 if one differs or cannot be read.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tablebase/format/parallel.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/verifier.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

// Positions whose DTM or DTZ differ between the two tables (legal in either).
uint64_t value_differences(const TableValues& a, const TableValues& b, int threads) {
    std::vector<uint64_t> differ(threads + 1, 0);
    parallel_for(a.index.size(), threads, 1 << 16, [&](uint64_t begin, uint64_t end, int w) {
        for (uint64_t i = begin; i < end; ++i)
            for (Color c : {WHITE, BLACK})
                if (a.dtm[c][i] != b.dtm[c][i] || a.dtz[c][i] != b.dtz[c][i]) ++differ[w];
    });
    uint64_t n = 0;
    for (uint64_t d : differ) n += d;
    return n;
}

// Whether the WDL file in `dir` answers the WDL of `values`' DTZ everywhere.
bool wdl_answers(const fs::path& dir, const TableValues& values, int threads, std::string& report) {
    const Material& m = values.index.material();
    std::string error;
    TableSet subtables;
    std::array<ValueArray, COLOR_NB> stored;
    std::array<uint8_t, COLOR_NB> flags{};
    if (!load_subtables(dir, m, subtables, &error, threads) ||
        !load_wdl_symbols(dir, m, stored, flags, &error, threads)) {
        report = error;
        return false;
    }
    const VerifyReport r = verify_wdl(values, stored, flags, subtables, threads);
    report = std::to_string(r.mismatches) + " WDL answers differ";
    for (const std::string& e : r.examples) report += "\n    " + e;
    return r.mismatches == 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::string> positional;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--threads" && i + 1 < args.size())
            threads = std::max(1, std::atoi(args[++i].c_str()));
        else
            positional.push_back(args[i]);
    }
    if (positional.size() < 2) {
        std::fprintf(stderr, "usage: tb-compare DIR_A DIR_B [MATERIAL...] [--threads T]\n");
        return 2;
    }
    const fs::path dir_a = positional[0], dir_b = positional[1];
    std::vector<Material> tables;
    for (size_t i = 2; i < positional.size(); ++i) {
        const auto m = Material::parse(positional[i]);
        if (!m) {
            std::fprintf(stderr, "tb-compare: '%s' is not a material such as KQvKR\n", positional[i].c_str());
            return 2;
        }
        tables.push_back(m->normalized());
    }
    if (tables.empty()) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(dir_a, ec))
            if (entry.path().extension() == ".pytd")
                if (const auto m = Material::parse(entry.path().stem().string())) tables.push_back(m->normalized());
        if (ec || tables.empty()) {
            std::fprintf(stderr, "tb-compare: no tables in %s\n", dir_a.c_str());
            return 1;
        }
    }

    int differing = 0;
    uint64_t positions = 0;
    for (const Material& m : with_dependencies(tables)) {
        if (std::find(tables.begin(), tables.end(), m) == tables.end()) continue;
        std::string error_a, error_b;
        const auto a = load_table_with_subtables(dir_a, m, &error_a, threads);
        const auto b = a ? load_table_with_subtables(dir_b, m, &error_b, threads) : nullptr;
        if (!a || !b) {
            std::printf("%-8s cannot be read: %s\n", m.name().c_str(), (a ? error_b : error_a).c_str());
            ++differing;
            continue;
        }
        const uint64_t differ = value_differences(*a, *b, threads);
        std::string wdl_a, wdl_b;
        const bool same =
            differ == 0 && wdl_answers(dir_a, *a, threads, wdl_a) & wdl_answers(dir_b, *a, threads, wdl_b);
        positions += a->index.size();
        std::printf("%-8s %s: %llu positions per side, %llu with other DTM or DTZ; A: %s; B: %s\n", m.name().c_str(),
                    same ? "same" : "DIFFERENT", (unsigned long long)a->index.size(), (unsigned long long)differ,
                    wdl_a.empty() ? "-" : wdl_a.c_str(), wdl_b.empty() ? "-" : wdl_b.c_str());
        std::fflush(stdout);
        if (!same) ++differing;
    }
    std::printf("%zu tables, %llu index positions per side: %s\n", tables.size(), (unsigned long long)positions,
                differing ? (std::to_string(differing) + " differ").c_str() : "all the same");
    return differing ? 1 : 0;
}
