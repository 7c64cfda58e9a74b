// The search as the rest of the engine sees it: start a search of a position under some
// limits on its own threads (Lazy SMP), stop it, answer ponderhit, and receive its PV lines and
// its best move through callbacks.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <random>
#include "engine/core/position.h"

#include "search/limits.h"
#include "search/strength.h"
#include "search/tt.h"
#include "search/worker.h"

namespace pythia {

// One line of search output (a UCI `info` line).
struct PvLine {
    int depth = 0, sel_depth = 0, multipv = 1;
    Value score = VALUE_ZERO;
    Bound bound = BOUND_EXACT;
    uint64_t nodes = 0, nps = 0, tbhits = 0;
    int hashfull = 0;
    int64_t time_ms = 0;
    std::array<int, 3> wdl{};  // permille win, draw, loss for the side to move
    std::vector<Move> pv;
};

struct SearchResult {
    Move best, ponder;
    Value score = VALUE_ZERO;
    int depth = 0;
    uint64_t nodes = 0;
    std::vector<Move> pv;
};

struct SearchCallbacks {
    std::function<void(const std::vector<PvLine>&)> on_lines;  // after each iteration
    std::function<void(const SearchResult&)> on_result;        // once, at the end: bestmove
};

// An outcome known before the search (the tablebases at the root): the info lines report it
// instead of the search's own score. The search still chooses among the root moves it is given.
struct RootVerdict {
    Value score = VALUE_DRAW;  // mate_in/mated_in, tb_win_in/tb_loss_in or a draw, side to move's view
    std::array<int, 3> wdl{0, 1000, 0};
    uint64_t tbhits = 0;   // probes the decision made
    std::vector<Move> pv;  // the tables' line, if they gave one (it starts with the move to play)
};

struct SearchOptions {
    int multipv = 1;
    int64_t move_overhead_ms = 50;
    TablebaseProbing tb;                 // probes inside the tree
    std::optional<RootVerdict> verdict;  // set by the move decision
    StrengthLimit strength;              // UCI_LimitStrength, UCI_Elo: the choice of the move
};

class Search {
public:
    Search();
    ~Search();

    // Sets the number of threads (at least 1); waits for a running search to end first.
    void set_threads(int n);
    int threads() const { return int(workers_.size()); }
    // Resizes the table; false (table unchanged) when the memory is not available.
    bool set_hash_mb(size_t mb);
    // Forgets everything learned: table and histories (a new game).
    void clear();
    TranspositionTable& tt() { return tt_; }

    // Starts searching on the search threads and returns at once. A previous search must
    // have ended (wait()). `root` may have no legal move: the result is then Move::none().
    void start(const Position& root, const SearchLimits& limits, const SearchOptions& options,
               SearchCallbacks callbacks);
    void stop();       // ends the search soon; the result callback still runs
    void ponderhit();  // the pondered move was played: the clock now counts
    void wait();       // until the result callback has run
    bool searching() const;
    // The time budget of the search started last (valid after start()).
    const TimeManager& time() const { return shared_.time; }

    // Runs a search to its end on the calling thread's behalf (for bench and tests).
    SearchResult run(const Position& root, const SearchLimits& limits, const SearchOptions& options,
                     std::function<void(const std::vector<PvLine>&)> on_lines = {});

private:
    void main_thread();  // runs the main worker, then waits for stop if needed, then reports
    std::vector<PvLine> lines(const Worker& w) const;
    void report(const std::vector<PvLine>& lines);  // to on_lines, remembered in last_reported_
    // The same lines but for their counters (nodes, time, hashfull, tbhits).
    static bool same_lines(const std::vector<PvLine>& a, const std::vector<PvLine>& b);
    // The line to show for the best root move: the verdict's, when it is about that move.
    const std::vector<Move>& verdict_pv(const RootMove& rm) const;
    uint64_t total_nodes() const;
    uint64_t total_tbhits() const;

    TranspositionTable tt_;
    SharedState shared_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<Move> root_legal_;
    Position root_;
    SearchCallbacks callbacks_;
    std::optional<RootVerdict> verdict_;
    std::vector<PvLine> last_reported_;  // written by the main search thread only
    StrengthLimit strength_;
    std::mt19937_64 rng_{std::random_device{}()};  // the weakened choice; main search thread only
    std::thread thread_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    bool searching_ = false;
};

}  // namespace pythia
