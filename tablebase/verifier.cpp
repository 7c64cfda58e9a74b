#include "tablebase/verifier.h"

#include <mutex>
#include <thread>

#include "tablebase/move_values.h"

namespace pythia::tb {

namespace {

std::string describe(Value v) {
    if (is_illegal(v)) return "illegal";
    if (is_win(v)) return "win in " + std::to_string(distance_of(v));
    if (is_loss(v)) return "loss in " + std::to_string(distance_of(v));
    return "draw";
}

}  // namespace

VerifyReport verify_table(const TableValues& table, const TableSet& subtables, int threads) {
    const TableIndex& index = table.index;
    // Lookups go through the generic path: material, colour flip and full encoding.
    TableSet with_self = subtables;
    std::shared_ptr<const TableValues> self(&table, [](const TableValues*) {});
    with_self.add(self);
    auto lookup = [&](const PieceOn* pcs, int n, Color side, Value& dtm, Value& dtz) {
        if (!with_self.lookup(pcs, n, side, dtm, dtz)) dtm = dtz = VALUE_ILLEGAL;
    };

    VerifyReport report;
    std::mutex mutex;
    auto check_range = [&](uint64_t begin, uint64_t end) {
        VerifyReport local;
        for (uint64_t i = begin; i < end; ++i) {
            Placement p;
            if (!index.decode(i, p)) continue;
            TbBoard b;
            b.set(index, p);
            for (Color us : {WHITE, BLACK}) {
                if (b.in_check(~us)) continue;  // not a position: the side not to move is in check
                ++local.positions;
                Value best_dtm = VALUE_UNKNOWN, best_dtz = VALUE_UNKNOWN;
                bool any = false;
                int moves = for_each_legal_move(b, us, [&](const TbMove& m) {
                    PieceOn after[MAX_PIECES];
                    const int k = pieces_after(b, m, after);
                    Value sdtm, sdtz;
                    lookup(after, k, ~us, sdtm, sdtz);
                    int wdl = wdl_of_dtz(sdtz);
                    if (m.double_step)
                        improve_with_en_passant(after, k, ~us, Square((m.from + m.to) / 2), m.to, sdtm, wdl, lookup);
                    const Value dtm = value_from_mover(sdtm);
                    const Value dtz = m.zeroing(b) ? dtz_of_zeroing_move(wdl) : value_from_mover(sdtz);
                    if (!any || value_rank(dtm) > value_rank(best_dtm)) best_dtm = dtm;
                    if (!any || value_rank(dtz) > value_rank(best_dtz)) best_dtz = dtz;
                    any = true;
                });
                if (moves == 0) best_dtm = best_dtz = b.in_check(us) ? loss_in(0) : VALUE_UNKNOWN;
                const Value dtm = table.dtm[us][i], dtz = table.dtz[us][i];
                if (dtm != best_dtm || dtz != best_dtz) {
                    ++local.mismatches;
                    if (local.examples.size() < 5)
                        local.examples.push_back(to_fen(b, us) + ": DTM " + describe(dtm) + " (moves give " +
                                                 describe(best_dtm) + "), DTZ " + describe(dtz) + " (moves give " +
                                                 describe(best_dtz) + ")");
                }
            }
        }
        std::lock_guard<std::mutex> lock(mutex);
        report.positions += local.positions;
        report.mismatches += local.mismatches;
        for (auto& e : local.examples)
            if (report.examples.size() < 10) report.examples.push_back(std::move(e));
    };

    const int n = std::max(1, threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < n; ++t)
        pool.emplace_back(check_range, index.size() * t / n, index.size() * (t + 1) / n);
    for (auto& t : pool) t.join();
    return report;
}

}  // namespace pythia::tb
