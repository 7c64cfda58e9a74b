#include "tablebase/generate/forward_values.h"

#include "tablebase/format/parallel.h"
#include "tablebase/probe/captures.h"
#include "tablebase/probe/successor_values.h"

namespace pythia::tb {

void ForwardValues::compute(const Placement& p, const TbBoard& b, Color us, Value& dtm, Value& dtz) {
    const TableIndex& index = table_.index;
    const ValueArray& next_dtm = table_.dtm[~us];
    const ValueArray& next_dtz = table_.dtz[~us];
    auto lookup = [&](const PieceOn* pcs, int n, Color side, Value& sdtm, Value& sdtz) {
        if (!with_self_.lookup(pcs, n, side, sdtm, sdtz)) sdtm = sdtz = VALUE_ILLEGAL;
    };
    // The token: the successor's index in this table, or UINT64_MAX for a subtable.
    auto prepare = [&](const TbMove& m) -> uint64_t {
        if (m.captured_slot >= 0 || m.promotion != NO_PIECE_TYPE) return UINT64_MAX;
        // The full encoding of the moved placement, not the generator's incremental one.
        Placement q = p;
        q[m.slot] = m.to;
        const uint64_t j = index.encode(q);
        __builtin_prefetch(&next_dtm[j]);
        __builtin_prefetch(&next_dtz[j]);
        return j;
    };
    auto successor = [&](const TbMove& m, uint64_t j, Value& sdtm, Value& sdtz) {
        if (j != UINT64_MAX) {
            sdtm = next_dtm[j];
            sdtz = next_dtz[j];
            return true;
        }
        PieceOn after[MAX_PIECES];
        const int n = pieces_after(b, m, after);
        const bool promotes = m.promotion != NO_PIECE_TYPE;
        auto& route = routes_[m.captured_slot + 1][promotes ? m.slot + 1 : 0][promotes ? m.promotion : 0];
        if (!route) route = with_self_.route(after, n);
        if (!with_self_.lookup(*route, after, n, ~us, sdtm, sdtz)) sdtm = sdtz = VALUE_ILLEGAL;
        return true;
    };
    values_from_moves(b, us, prepare, successor, lookup, dtm, dtz);
}

TableSet with_subtables(const TableValues& table, const TableSet& subtables) {
    TableSet set = subtables;
    set.add(std::shared_ptr<const TableValues>(&table, [](const TableValues*) {}));
    return set;
}

void recover_side(TableValues& table, Color side, const TableSet& subtables, int threads) {
    const TableIndex& index = table.index;
    const uint64_t n = index.size();
    table.dtm[side].resize(n);
    table.dtz[side].resize(n);
    const TableSet with_self = with_subtables(table, subtables);
    parallel_for(n, threads, uint64_t(1) << 16, [&](uint64_t begin, uint64_t end, int) {
        ForwardValues forward(table, with_self);
        for (uint64_t i = begin; i < end; ++i) {
            Placement p;
            TbBoard b;
            bool legal = index.decode(i, p);
            if (legal) {
                b.set(index, p);
                legal = !b.in_check(~side);  // else not a position: the side not to move is in check
            }
            if (!legal) {
                table.dtm[side][i] = table.dtz[side][i] = VALUE_ILLEGAL;
                continue;
            }
            forward.compute(p, b, side, table.dtm[side][i], table.dtz[side][i]);
        }
    });
}

Value leaving_move_dtm(const TbBoard& b, Color us, const TableSet& subtables) {
    const std::optional<Value> best =
        best_leaving_move_dtm(b, us, [&](const PieceOn* after, int k) -> std::optional<Value> {
            Value sdtm, sdtz;
            if (!subtables.lookup(after, k, ~us, sdtm, sdtz)) return std::nullopt;
            return sdtm;
        });
    return best.value_or(VALUE_ILLEGAL);
}

void resolve_leaving_moves(TableValues& table, Color side, const TableSet& subtables, int threads,
                           const PositionBits* wdl_draws) {
    const TableIndex& index = table.index;
    ValueArray& dtm = table.dtm[side];
    parallel_for(index.size(), threads, uint64_t(1) << 16, [&](uint64_t begin, uint64_t end, int) {
        for (uint64_t i = begin; i < end; ++i) {
            Placement p;
            if (!index.decode(i, p)) continue;
            TbBoard b;
            b.set(index, p);
            if (b.in_check(~side)) continue;  // not a position
            const Value best = leaving_move_dtm(b, side, subtables);
            // A stored WDL draw is low only where such a move wins (the WDL's resolving moves are
            // among them): otherwise the position is a draw, whatever its DTM holds.
            if (wdl_draws && test_bit(*wdl_draws, i) && !is_win(best))
                dtm[i] = VALUE_UNKNOWN;
            else if (best != VALUE_ILLEGAL && value_rank(best) > value_rank(dtm[i]))
                dtm[i] = best;
        }
    });
}

}  // namespace pythia::tb
