// tb-truth: compares stored tables with the independent ones in the truth folder, position by
// position (scripts/verify-truth runs it on every 3- and 4-piece table).
//
//   tb-truth [--dir D] [--truth T] [--stride N] [--dtz-stride N] [--threads T] [MATERIAL...]
//
// --truth names another truth folder (with gaviota/ and syzygy/ subfolders), e.g. one holding
// 5-piece tables (bench/tb-check-5). A table whose truth files are absent there is reported
// and skipped; one with only Gaviota's or only Syzygy's file is compared with that one.
// DTM (Gaviota) and WDL (Syzygy) are compared for every stride-th index, DTZ (Syzygy, within
// its one-ply rounding) for every dtz-stride-th of those: fathom's DTZ probe costs about half a
// millisecond, so a full DTZ comparison of all 35 tables takes many hours.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tablebase/generate/table_loader.h"
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
        if ((a == "--dir" || a == "--truth" || a == "--stride" || a == "--dtz-stride" || a == "--threads") &&
            i + 1 < argc) {
            std::string v = argv[++i];
            if (a == "--dir")
                dir = v;
            else if (a == "--truth")
                truth::set_truth_dir(v);
            else if (a == "--stride")
                options.stride = std::stoull(v);
            else if (a == "--threads")
                options.threads = std::max(1, std::atoi(v.c_str()));
            else
                options.dtz_stride = std::stoull(v);
        } else if (auto m = Material::parse(a)) {
            tables.push_back(m->normalized());
        } else {
            std::fprintf(stderr,
                         "usage: tb-truth [--dir D] [--truth T] [--stride N] [--dtz-stride N] [--threads T] "
                         "[MATERIAL...]\n");
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
                tables.size(), dir.c_str(), (unsigned long long)options.stride, (unsigned long long)options.dtz_stride);
    uint64_t positions = 0, dtz_checked = 0, bad = 0, off_by_one = 0, skipped = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const Material& m : tables) {
        const truth::TruthFiles have = truth::truth_files(m);
        if (!have.gaviota && !have.syzygy) {
            std::printf("%-8s skipped: no Gaviota or Syzygy file for it in the truth folder\n", m.name().c_str());
            ++skipped;
            continue;
        }
        truth::CompareOptions table_options = options;
        table_options.dtm = have.gaviota;
        table_options.syzygy = have.syzygy;
        std::string error;
        auto t = load_table_values(dir, m, &error);
        if (!t) {
            std::printf("%-8s cannot load: %s\n", m.name().c_str(), error.c_str());
            ++bad;
            continue;
        }
        auto r = truth::compare_table(*t, table_options);
        positions += r.positions;
        dtz_checked += r.dtz_checked;
        off_by_one += r.dtz_off_by_one;
        bad += r.dtm_mismatches + r.wdl_mismatches + r.dtz_mismatches;
        auto count = [](bool compared, uint64_t n) { return compared ? std::to_string(n) : std::string("(no file)"); };
        std::printf(
            "%-8s %10llu positions: DTM %s wrong, WDL %s wrong; DTZ %llu checked, %llu wrong, %llu one ply off\n",
            m.name().c_str(), (unsigned long long)r.positions, count(have.gaviota, r.dtm_mismatches).c_str(),
            count(have.syzygy, r.wdl_mismatches).c_str(), (unsigned long long)r.dtz_checked,
            (unsigned long long)r.dtz_mismatches, (unsigned long long)r.dtz_off_by_one);
        for (const auto& e : r.examples) std::printf("    %s\n", e.c_str());
        std::fflush(stdout);
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "total: %llu positions, %llu DTZ checked (%llu one ply off, Syzygy's rounding), %llu wrong, "
        "%llu tables without truth files, %.0f s\n",
        (unsigned long long)positions, (unsigned long long)dtz_checked, (unsigned long long)off_by_one,
        (unsigned long long)bad, (unsigned long long)skipped, s);
    return bad ? 1 : 0;
}
