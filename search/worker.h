// One search thread: its copy of the position, its root moves and move-ordering statistics,
// and the alpha-beta search itself (iterative deepening, PVS, quiescence). The threads of a
// Lazy SMP search share only the transposition table and the stop flag.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/core/position.h"
#include "eval/nnue/accumulator.h"
#include "eval/pawns.h"
#include "search/history.h"
#include "search/limits.h"
#include "search/params.h"
#include "search/stack.h"
#include "search/time_manager.h"
#include "search/tt.h"

namespace pythia {

namespace tb {
class Tablebases;
class SyzygyTables;
}  // namespace tb

// How the search uses the tablebases inside the tree: Pythia's own (UCI options TBProbeLimit,
// TBProbeDepth, TB50MoveRule), then Syzygy's for what they do not cover (SyzygyProbeLimit,
// SyzygyProbeDepth, Syzygy50MoveRule). No tables, or a limit below 3: no probes.
struct TablebaseProbing {
    const tb::Tablebases* tables = nullptr;
    int piece_limit = 0;          // probe positions with at most this many pieces
    int min_depth = 1;            // and at least this remaining depth
    bool fifty_move_rule = true;  // cursed wins and blessed losses are draws

    const tb::SyzygyTables* syzygy = nullptr;
    int syzygy_piece_limit = 0;
    int syzygy_min_depth = 1;
    bool syzygy_fifty_move_rule = true;
};

struct RootMove {
    explicit RootMove(Move m) : move(m), pv{m} {}
    Move move;
    Value score = -VALUE_INFINITE;           // of the current iteration (-INF: not searched yet)
    Value previous_score = -VALUE_INFINITE;  // of the last iteration
    Bound bound = BOUND_EXACT;               // score is only a bound after an aspiration failure
    int sel_depth = 0;
    std::vector<Move> pv;
};

class Worker;

#ifdef PYTHIA_TUNE
// Recomputes what is derived from the tunable constants (the reduction table) after a tuner
// set one; the tuning build only, between searches.
void refresh_tuned_tables();
#endif

// What the threads of one search share.
struct SharedState {
    explicit SharedState(TranspositionTable& table) : tt(table) {}
    TranspositionTable& tt;
    std::atomic<bool> stop{false};
    std::atomic<bool> pondering{false};
    SearchLimits limits;
    int multipv = 1;
    TablebaseProbing tb;
    TimeManager time;
    std::function<uint64_t()> total_nodes;
    // Called by the main thread when it has PV lines to show (after each iteration, and for
    // aspiration failures of long searches).
    std::function<void(const Worker&)> report;
};

class Worker {
public:
    Worker(int id, SharedState& shared) : id_(id), shared_(shared) { clear(); }

    // Prepares a search of `root` over `moves` (legal, non-empty).
    void prepare(const Position& root, const std::vector<Move>& moves);
    void iterative_deepening();
    void clear();  // forget history (new game)

    int id() const { return id_; }
    uint64_t nodes() const { return nodes_.load(std::memory_order_relaxed); }
    uint64_t tbhits() const { return tbhits_.load(std::memory_order_relaxed); }
    const std::vector<RootMove>& root_moves() const { return root_moves_; }
    int completed_depth() const { return completed_depth_; }
    int root_depth() const { return root_depth_; }
    int multipv() const { return multipv_; }

private:
    template <bool PV>
    Value search(SearchStack* ss, Value alpha, Value beta, int depth, bool cut_node);
    template <bool PV>
    Value qsearch(SearchStack* ss, Value alpha, Value beta);

    void count_node();
    void check_time();
    void update_pv(int ply, Move m);
    void update_quiet_stats(SearchStack* ss, Move m, int bonus);
    void update_continuations(SearchStack* ss, Piece piece, Square to, int bonus);
    // The static evaluation with the correction history's entry for these pawns added (a
    // decisive value as it is), kept short of the decisive range.
    Value corrected(Value raw) {
        if (is_decisive(raw)) return raw;
        return std::clamp<Value>(raw + correction_entry() / search_params::CORRECTION_GRAIN,
                                 VALUE_TB_LOSS_IN_MAX_PLY + 1, VALUE_TB_WIN_IN_MAX_PLY - 1);
    }
    // The correction history's entry for the side to move and these pawns.
    int32_t& correction_entry() { return history_.correction[pos_.side_to_move()][pos_.pawn_key() % CORRECTION_SIZE]; }
    // A stop counts once the first iteration is complete: a search stopped at once (a GUI's
    // stop right after go, a tiny movetime) still answers with a move searched to depth 1,
    // which takes well under a millisecond, instead of an unsearched one.
    bool stopping() const { return completed_depth_ > 0 && shared_.stop.load(std::memory_order_relaxed); }

    int id_;
    SharedState& shared_;
    Position pos_;
    std::vector<RootMove> root_moves_;
    History history_;
    PawnTable pawns_;
    nnue::AccumulatorStack accumulators_;  // the network's, along the line of pos_
    std::atomic<uint64_t> nodes_{0};
    std::atomic<uint64_t> tbhits_{0};
    int pv_idx_ = 0, multipv_ = 1;
    int root_depth_ = 0, completed_depth_ = 0, sel_depth_ = 0;
    int best_move_changes_ = 0;
    int check_countdown_ = search_params::TIME_CHECK_INTERVAL;
    Move pv_table_[MAX_PLY + 1][MAX_PLY + 1];
    int pv_length_[MAX_PLY + 1] = {};
};

}  // namespace pythia
