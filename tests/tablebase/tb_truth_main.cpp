// tb-truth: compares stored tables with the independent ones in the truth folder, position by
// position (scripts/verify-truth runs it on every 3- and 4-piece table).
//
//   tb-truth [--dir D] [--stride N] [--dtz-stride N] [MATERIAL...]
//
// DTM (Gaviota) and WDL (Syzygy) are compared for every stride-th index, DTZ (Syzygy, within
// its one-ply rounding) for every dtz-stride-th of those: fathom's DTZ probe costs about half a
// millisecond, so a full DTZ comparison of all 35 tables takes many hours.
#include <chrono>
#include <cstdio>
#include <string>

#include "tablebase/table_loader.h"
#include "truth.h"
#include "truth_compare.h"

using namespace pythia;
using namespace pythia::tb;

int main(int argc, char** argv) {
    std::string dir = PYTHIA_DEFAULT_TB_DIR;
    truth::CompareOptions options;
    std::vector<Material> tables;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if ((a == "--dir" || a == "--stride" || a == "--dtz-stride") && i + 1 < argc) {
            std::string v = argv[++i];
            if (a == "--dir") dir = v;
            else if (a == "--stride") options.stride = std::stoull(v);
            else options.dtz_stride = std::stoull(v);
        } else if (auto m = Material::parse(a)) {
            tables.push_back(m->normalized());
        } else {
            std::fprintf(stderr, "usage: tb-truth [--dir D] [--stride N] [--dtz-stride N] [MATERIAL...]\n");
            return 2;
        }
    }
    if (tables.empty()) tables = all_materials(4);
    std::string why;
    if (!truth::init_gaviota(&why) || !truth::init_syzygy(&why)) {
        std::fprintf(stderr, "tb-truth: %s\n", why.c_str());
        return 1;
    }
    std::printf("comparing %zu tables in %s: DTM and WDL every %llu-th index, DTZ every %llu-th of those\n",
                tables.size(), dir.c_str(), (unsigned long long)options.stride,
                (unsigned long long)options.dtz_stride);
    uint64_t positions = 0, dtz_checked = 0, bad = 0, off_by_one = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const Material& m : tables) {
        std::string error;
        auto t = load_table_values(dir, m, &error);
        if (!t) {
            std::printf("%-8s cannot load: %s\n", m.name().c_str(), error.c_str());
            ++bad;
            continue;
        }
        auto r = truth::compare_table(*t, options);
        positions += r.positions;
        dtz_checked += r.dtz_checked;
        off_by_one += r.dtz_off_by_one;
        bad += r.dtm_mismatches + r.wdl_mismatches + r.dtz_mismatches;
        std::printf("%-8s %10llu positions: DTM %llu wrong, WDL %llu wrong; DTZ %llu checked, %llu wrong, %llu one ply off\n",
                    m.name().c_str(), (unsigned long long)r.positions, (unsigned long long)r.dtm_mismatches,
                    (unsigned long long)r.wdl_mismatches, (unsigned long long)r.dtz_checked,
                    (unsigned long long)r.dtz_mismatches, (unsigned long long)r.dtz_off_by_one);
        for (const auto& e : r.examples) std::printf("    %s\n", e.c_str());
        std::fflush(stdout);
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("total: %llu positions, %llu DTZ checked (%llu one ply off, Syzygy's rounding), %llu wrong, %.0f s\n",
                (unsigned long long)positions, (unsigned long long)dtz_checked, (unsigned long long)off_by_one,
                (unsigned long long)bad, s);
    return bad ? 1 : 0;
}
