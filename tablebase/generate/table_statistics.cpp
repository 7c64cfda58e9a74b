#include "tablebase/generate/table_statistics.h"

#include <cstring>
#include <mutex>

#include "engine/core/random_position.h"
#include "tablebase/format/parallel.h"

namespace pythia::tb {

namespace {

constexpr uint64_t NONE = UINT64_MAX;

// Keeps the larger distance; on a tie the smaller index, so the example does not depend on
// how the work was split between threads.
void keep_longest(uint16_t& best, uint64_t& best_index, int d, uint64_t i) {
    if (d > best || (d == best && i < best_index)) {
        best = uint16_t(d);
        best_index = i;
    }
}

void merge(SideStatistics& to, const SideStatistics& from) {
    to.legal += from.legal;
    for (int k = 0; k < 5; ++k) to.wdl_count[k] += from.wdl_count[k];
    to.mated += from.mated;
    if (from.longest_dtm_win_index != NONE)
        keep_longest(to.longest_dtm_win, to.longest_dtm_win_index, from.longest_dtm_win, from.longest_dtm_win_index);
    if (from.longest_dtm_loss_index != NONE)
        keep_longest(to.longest_dtm_loss, to.longest_dtm_loss_index, from.longest_dtm_loss,
                     from.longest_dtm_loss_index);
    if (from.longest_dtz_win_index != NONE)
        keep_longest(to.longest_dtz_win, to.longest_dtz_win_index, from.longest_dtz_win, from.longest_dtz_win_index);
    if (from.longest_dtz_loss_index != NONE)
        keep_longest(to.longest_dtz_loss, to.longest_dtz_loss_index, from.longest_dtz_loss,
                     from.longest_dtz_loss_index);
}

SideStatistics empty_side() {
    SideStatistics s;
    std::memset(&s, 0, sizeof s);
    s.longest_dtm_win_index = s.longest_dtm_loss_index = NONE;
    s.longest_dtz_win_index = s.longest_dtz_loss_index = NONE;
    return s;
}

}  // namespace

TableStatistics compute_statistics(const TableValues& t, int threads) {
    TableStatistics stats;
    std::memset(&stats, 0, sizeof stats);
    const uint64_t n = t.index.size();
    for (Color c : {WHITE, BLACK}) {
        SideStatistics total = empty_side();
        std::mutex m;
        parallel_for(n, threads, 1 << 20, [&](uint64_t begin, uint64_t end, int) {
            SideStatistics s = empty_side();
            for (uint64_t i = begin; i < end; ++i) {
                const Value dtm = t.dtm[c][i], dtz = t.dtz[c][i];
                if (dtm == VALUE_ILLEGAL) continue;
                ++s.legal;
                ++s.wdl_count[wdl_of_dtz(dtz) + 2];
                if (dtm == loss_in(0)) ++s.mated;
                if (is_win(dtm)) keep_longest(s.longest_dtm_win, s.longest_dtm_win_index, distance_of(dtm), i);
                if (is_loss(dtm)) keep_longest(s.longest_dtm_loss, s.longest_dtm_loss_index, distance_of(dtm), i);
                if (is_win(dtz)) keep_longest(s.longest_dtz_win, s.longest_dtz_win_index, distance_of(dtz), i);
                if (is_loss(dtz)) keep_longest(s.longest_dtz_loss, s.longest_dtz_loss_index, distance_of(dtz), i);
            }
            std::lock_guard<std::mutex> lock(m);
            merge(total, s);
        });
        stats.side[c] = total;
    }
    return stats;
}

std::string index_fen(const TableIndex& index, uint64_t i, Color stm) {
    Placement p;
    if (!index.decode(i, p)) return {};
    char board[64];
    std::memset(board, 0, sizeof board);
    for (int k = 0; k < index.num_slots(); ++k) {
        const char letter = " PNBRQK"[index.slot(k).type];
        board[p[k]] = index.slot(k).color == WHITE ? letter : char(letter + ('a' - 'A'));
    }
    std::string fen = placement_fen(board) + (stm == WHITE ? " w - - 0 1" : " b - - 0 1");
    return fen;
}

}  // namespace pythia::tb
