#include "tablebase/verifier.h"

#include <mutex>
#include <optional>

#include "tablebase/captures.h"
#include "tablebase/move_values.h"
#include "tablebase/parallel.h"

namespace pythia::tb {

namespace {

// More than any position of up to five pieces has (four queens and a king: 4 * 27 + 8).
constexpr int MAX_MOVES = 128;

// Adds a worker's counts and examples (at most 10 in all) to the whole report.
void add_to(VerifyReport& report, VerifyReport& part) {
    report.positions += part.positions;
    report.mismatches += part.mismatches;
    for (auto& e : part.examples)
        if (report.examples.size() < 10) report.examples.push_back(std::move(e));
}

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
    auto check_range = [&](uint64_t begin, uint64_t end, int /*worker*/) {
        VerifyReport local;
        // Lookups after captures and promotions, by (captured slot + 1, promoting slot + 1,
        // promotion piece type): which slot is captured and which promotes to what fix the
        // pieces left and their order, so one route serves every position of the table.
        std::optional<TableRoute> routes[MAX_PIECES + 1][MAX_PIECES + 1][PIECE_TYPE_NB];
        for (uint64_t i = begin; i < end; ++i) {
            Placement p;
            if (!index.decode(i, p)) continue;
            TbBoard b;
            b.set(index, p);
            for (Color us : {WHITE, BLACK}) {
                if (b.in_check(~us)) continue;  // not a position: the side not to move is in check
                ++local.positions;
                // First pass: every legal move, and for the moves that keep the material the
                // successor's index, fetched ahead so that the cache misses of all moves
                // overlap (the table is far larger than the cache).
                struct Pending {
                    TbMove move;
                    uint64_t same_table_index;  // UINT64_MAX: the successor is in a subtable
                };
                Pending pending[MAX_MOVES];
                int count = 0;
                const ValueArray& next_dtm = table.dtm[~us];
                const ValueArray& next_dtz = table.dtz[~us];
                const int moves = for_each_legal_move(b, us, [&](const TbMove& m) {
                    Pending& e = pending[count++];
                    e.move = m;
                    e.same_table_index = UINT64_MAX;
                    if (m.captured_slot < 0 && m.promotion == NO_PIECE_TYPE) {
                        // The full encoding of the moved placement, not the generator's
                        // incremental one.
                        Placement q = p;
                        q[m.slot] = m.to;
                        e.same_table_index = index.encode(q);
                        __builtin_prefetch(&next_dtm[e.same_table_index]);
                        __builtin_prefetch(&next_dtz[e.same_table_index]);
                    }
                });
                Value best_dtm = VALUE_UNKNOWN, best_dtz = VALUE_UNKNOWN;
                for (int k = 0; k < count; ++k) {
                    const TbMove& m = pending[k].move;
                    const uint64_t j = pending[k].same_table_index;
                    // The pieces after the move, for a subtable or the en passant replies.
                    PieceOn after[MAX_PIECES];
                    const int n = j == UINT64_MAX || m.double_step ? pieces_after(b, m, after) : 0;
                    Value sdtm, sdtz;
                    if (j != UINT64_MAX) {
                        sdtm = next_dtm[j];
                        sdtz = next_dtz[j];
                    } else {
                        const bool promotes = m.promotion != NO_PIECE_TYPE;
                        auto& route = routes[m.captured_slot + 1][promotes ? m.slot + 1 : 0][promotes ? m.promotion : 0];
                        if (!route) route = with_self.route(after, n);
                        if (!with_self.lookup(*route, after, n, ~us, sdtm, sdtz)) sdtm = sdtz = VALUE_ILLEGAL;
                    }
                    int wdl = wdl_of_dtz(sdtz);
                    if (m.double_step)  // the reply may capture en passant
                        improve_with_en_passant(after, n, ~us, Square((m.from + m.to) / 2), m.to, sdtm, wdl, lookup);
                    const Value dtm = value_from_mover(sdtm);
                    const Value dtz = m.zeroing(b) ? dtz_of_zeroing_move(wdl) : value_from_mover(sdtz);
                    if (k == 0 || value_rank(dtm) > value_rank(best_dtm)) best_dtm = dtm;
                    if (k == 0 || value_rank(dtz) > value_rank(best_dtz)) best_dtz = dtz;
                }
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
        add_to(report, local);
    };

    // Chunks taken in turn, so that a worker slowed by other load does not hold up the rest.
    parallel_for(index.size(), threads, uint64_t(1) << 16, check_range);
    return report;
}

VerifyReport verify_wdl(const TableValues& table, const std::array<ValueArray, COLOR_NB>& stored,
                        const std::array<bool, COLOR_NB>& capture_resolved, const TableSet& subtables, int threads) {
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
                if (capture_resolved[us] && answer < expected) {
                    // The prober's search: the resolving captures may lift a low stored value.
                    Placement p;
                    index.decode(i, p);
                    b.set(index, p);
                    const std::optional<int> best =
                        best_resolving_capture(b, us, 2, [&](const PieceOn* after, int k) -> std::optional<int> {
                            Value sdtm, sdtz;
                            if (!subtables.lookup(after, k, ~us, sdtm, sdtz)) return std::nullopt;
                            return wdl_of_dtz(sdtz);
                        });
                    if (best) answer = std::max(answer, *best);
                    if (answer == expected) continue;
                }
                ++local.mismatches;
                if (local.examples.size() < 5) {
                    Placement p;
                    index.decode(i, p);
                    b.set(index, p);
                    local.examples.push_back(to_fen(b, us) + ": WDL file gives " + std::to_string(answer) +
                                             ", DTZ " + describe(table.dtz[us][i]) + " gives " +
                                             std::to_string(expected));
                }
            }
        }
        std::lock_guard<std::mutex> lock(mutex);
        add_to(report, local);
    });
    return report;
}

}  // namespace pythia::tb
