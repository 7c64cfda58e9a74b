#include "tablebase/generate/verifier.h"

#include <mutex>
#include <optional>

#include "tablebase/format/file_format.h"
#include "tablebase/format/parallel.h"
#include "tablebase/generate/forward_values.h"
#include "tablebase/probe/captures.h"
#include "tablebase/probe/move_values.h"

namespace pythia::tb {

namespace {

// Adds a worker's counts and examples (at most 10 in all) to the whole report.
void add_to(VerifyReport& report, VerifyReport& part) {
    report.positions += part.positions;
    report.mismatches += part.mismatches;
    for (auto& e : part.examples)
        if (report.examples.size() < 10) report.examples.push_back(std::move(e));
}

// A 64-bit mix (splitmix64's finaliser): a sample by index that is spread over the whole table.
uint64_t sample_hash(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace

std::string describe(Value v) {
    if (is_illegal(v)) return "illegal";
    if (is_win(v)) return "win in " + std::to_string(distance_of(v));
    if (is_loss(v)) return "loss in " + std::to_string(distance_of(v));
    return "draw";
}

VerifyReport verify_table(const TableValues& table, const TableSet& subtables, int threads, uint8_t recomputed,
                          uint32_t one_in, uint64_t seed) {
    const TableIndex& index = table.index;
    const TableSet with_self = with_subtables(table, subtables);

    VerifyReport report;
    std::mutex mutex;
    auto check_range = [&](uint64_t begin, uint64_t end, int /*worker*/) {
        VerifyReport local;
        ForwardValues forward(table, with_self);
        for (uint64_t i = begin; i < end; ++i) {
            if (one_in > 1 && sample_hash(i ^ seed) % one_in) continue;
            Placement p;
            if (!index.decode(i, p)) continue;
            TbBoard b;
            b.set(index, p);
            for (Color us : {WHITE, BLACK}) {
                if (b.in_check(~us)) continue;  // not a position: the side not to move is in check
                ++local.positions;
                if (!(recomputed & (1 << us))) continue;
                Value best_dtm, best_dtz;
                forward.compute(p, b, us, best_dtm, best_dtz);
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
        add_to(report, local);
    };

    // Chunks taken in turn, so that a worker slowed by other load does not hold up the rest.
    parallel_for(index.size(), threads, uint64_t(1) << 16, check_range);
    return report;
}

VerifyReport verify_wdl(const TableValues& table, const std::array<ValueArray, COLOR_NB>& stored,
                        const std::array<uint8_t, COLOR_NB>& flags, const TableSet& subtables, int threads) {
    const TableIndex& index = table.index;
    VerifyReport report;
    std::mutex mutex;
    parallel_for(index.size(), threads, uint64_t(1) << 16, [&](uint64_t begin, uint64_t end, int) {
        VerifyReport local;
        for (uint64_t i = begin; i < end; ++i) {
            for (Color us : {WHITE, BLACK}) {
                if (table.dtz[us][i] == VALUE_ILLEGAL) continue;
                ++local.positions;
                const int expected = wdl_of_dtz(table.dtz[us][i]);
                int answer = int(stored[us][i]) - 2;
                if (answer == expected) continue;
                TbBoard b;
                if ((flags[us] & FLAG_CAPTURE_RESOLVED) && answer < expected) {
                    // The prober's search: the resolving moves may lift a low stored value.
                    Placement p;
                    index.decode(i, p);
                    b.set(index, p);
                    const std::optional<int> best = best_resolving_move(
                        b, us, flags[us] & FLAG_PROMOTIONS_RESOLVED, 2,
                        [&](const PieceOn* after, int k, int) { return subtables.lookup_wdl(after, k, ~us); });
                    if (best) answer = std::max(answer, *best);
                    if (answer == expected) continue;
                }
                ++local.mismatches;
                if (local.examples.size() < 5) {
                    Placement p;
                    index.decode(i, p);
                    b.set(index, p);
                    local.examples.push_back(to_fen(b, us) + ": WDL file gives " + std::to_string(answer) + ", DTZ " +
                                             describe(table.dtz[us][i]) + " gives " + std::to_string(expected));
                }
            }
        }
        std::lock_guard<std::mutex> lock(mutex);
        add_to(report, local);
    });
    return report;
}

}  // namespace pythia::tb
