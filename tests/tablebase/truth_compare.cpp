#include "truth_compare.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "tablebase/probe/tb_board.h"
#include "truth.h"

namespace pythia::truth {

using namespace pythia::tb;

namespace {

// The indices [begin, end) of the comparison.
CompareResult compare_part(const TableValues& t, const CompareOptions& options, uint64_t begin, uint64_t end) {
    CompareResult c;
    auto note = [&](const TbBoard& b, Color stm, const std::string& what) {
        if (c.examples.size() < 5) c.examples.push_back(to_fen(b, stm) + ": " + what);
    };
    const uint64_t stride = std::max<uint64_t>(1, options.stride);
    const uint64_t dtz_stride = std::max<uint64_t>(1, options.dtz_stride);
    const uint64_t first = options.offset % stride;
    for (uint64_t i = begin + (first + stride - begin % stride) % stride; i < end; i += stride) {
        Placement p;
        if (!t.index.decode(i, p)) continue;
        TbBoard b;
        b.set(t.index, p);
        for (Color stm : {WHITE, BLACK}) {
            const Value dtm = t.dtm[stm][i], dtz = t.dtz[stm][i];
            if (is_illegal(dtm)) continue;
            ++c.positions;
            const bool mated = is_loss(dtm) && distance_of(dtm) == 0;
            auto g = options.dtm ? gaviota_dtm(b.pieces, b.n, stm) : std::nullopt;
            if (options.dtm && (!g || g->plies != signed_distance(dtm) || g->mated != mated)) {
                ++c.dtm_mismatches;
                note(b, stm,
                     "DTM " + std::to_string(signed_distance(dtm)) + (mated ? " (mated)" : "") + ", Gaviota " +
                         (g ? std::to_string(g->plies) + (g->mated ? " (mated)" : "") : "none"));
            }
            if (!options.syzygy) continue;
            auto w = syzygy_wdl(b.pieces, b.n, stm);
            if (!w || *w != wdl_of_dtz(dtz)) {
                ++c.wdl_mismatches;
                note(b, stm,
                     "WDL " + std::to_string(wdl_of_dtz(dtz)) + ", Syzygy " + (w ? std::to_string(*w) : "none"));
            }
            if ((i / stride) % dtz_stride) continue;
            ++c.dtz_checked;
            auto z = syzygy_dtz(b.pieces, b.n, stm);
            const int ours = signed_distance(dtz);
            if (!z || std::abs(*z - ours) > 1 || (*z > 0) != (ours > 0) || (*z < 0) != (ours < 0)) {
                ++c.dtz_mismatches;
                note(b, stm, "DTZ " + std::to_string(ours) + ", Syzygy " + (z ? std::to_string(*z) : "none"));
            } else if (*z != ours) {
                ++c.dtz_off_by_one;
            }
        }
    }
    return c;
}

}  // namespace

CompareResult compare_table(const TableValues& t, const CompareOptions& options) {
    const int threads = std::max(1, options.threads);
    const uint64_t n = t.index.size();
    std::vector<CompareResult> parts(threads);
    std::vector<std::thread> workers;
    for (int w = 0; w < threads; ++w)
        workers.emplace_back([&, w] { parts[w] = compare_part(t, options, n * w / threads, n * (w + 1) / threads); });
    for (std::thread& w : workers) w.join();
    CompareResult c;
    for (const CompareResult& p : parts) {
        c.positions += p.positions;
        c.dtz_checked += p.dtz_checked;
        c.dtm_mismatches += p.dtm_mismatches;
        c.wdl_mismatches += p.wdl_mismatches;
        c.dtz_mismatches += p.dtz_mismatches;
        c.dtz_off_by_one += p.dtz_off_by_one;
        for (const std::string& e : p.examples)
            if (c.examples.size() < 5) c.examples.push_back(e);
    }
    return c;
}

}  // namespace pythia::truth
