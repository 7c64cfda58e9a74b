#include "search/search.h"

#include <algorithm>

#include "engine/core/movegen.h"
#include "eval/evaluate.h"
#include "search/wdl.h"

namespace pythia {

Search::Search() : shared_(tt_) {
    shared_.total_nodes = [this] { return total_nodes(); };
    shared_.report = [this](const Worker& w) { report(lines(w)); };
    set_threads(1);
}

Search::~Search() {
    stop();
    wait();
}

void Search::set_threads(int n) {
    wait();
    n = std::max(1, n);
    while (int(workers_.size()) > n) workers_.pop_back();
    while (int(workers_.size()) < n) workers_.push_back(std::make_unique<Worker>(int(workers_.size()), shared_));
}

bool Search::set_hash_mb(size_t mb) {
    wait();
    return tt_.resize(mb);
}

void Search::clear() {
    wait();
    tt_.clear();
    for (auto& w : workers_) w->clear();
}

bool Search::searching() const {
    std::lock_guard lock(mutex_);
    return searching_;
}

uint64_t Search::total_nodes() const {
    uint64_t n = 0;
    for (const auto& w : workers_) n += w->nodes();
    return n;
}

uint64_t Search::total_tbhits() const {
    uint64_t n = verdict_ ? verdict_->tbhits : 0;
    for (const auto& w : workers_) n += w->tbhits();
    return n;
}

void Search::start(const Position& root, const SearchLimits& limits, const SearchOptions& options,
                   SearchCallbacks callbacks) {
    wait();
    root_ = root;
    callbacks_ = std::move(callbacks);
    shared_.limits = limits;
    strength_ = options.strength;
    // A weakened search chooses among several root moves, so it searches them as MultiPV.
    shared_.multipv = std::max({1, options.multipv, strength_.active() ? STRENGTH_CANDIDATES : 1});
    shared_.tb = options.tb;
    verdict_ = options.verdict;
    last_reported_.clear();
    shared_.stop = false;
    shared_.pondering = limits.ponder;
    shared_.time.start(limits, root.side_to_move(), options.move_overhead_ms);
    tt_.new_search();

    root_legal_.clear();
    for (Move m : MoveList(root))
        if (limits.search_moves.empty() ||
            std::find(limits.search_moves.begin(), limits.search_moves.end(), m) != limits.search_moves.end())
            root_legal_.push_back(m);
    if (root_legal_.empty())  // `searchmoves` naming no legal move: search them all instead
        for (Move m : MoveList(root)) root_legal_.push_back(m);
    for (auto& w : workers_) w->prepare(root, root_legal_);

    {
        std::lock_guard lock(mutex_);
        searching_ = true;
    }
    thread_ = std::thread([this] { main_thread(); });
}

void Search::stop() {
    {
        std::lock_guard lock(mutex_);
        shared_.stop = true;
    }
    cv_.notify_all();
}

void Search::ponderhit() {
    {
        std::lock_guard lock(mutex_);
        if (!shared_.pondering) return;
        shared_.time.restart_clock();
        shared_.pondering = false;
    }
    cv_.notify_all();
}

void Search::wait() {
    if (thread_.joinable()) thread_.join();
}

void Search::main_thread() {
    std::vector<std::thread> helpers;
    if (!root_legal_.empty()) {
        for (size_t i = 1; i < workers_.size(); ++i)
            helpers.emplace_back([w = workers_[i].get()] { w->iterative_deepening(); });
        workers_[0]->iterative_deepening();
    }
    // The protocol forbids `bestmove` before `stop` (or `ponderhit`) in infinite and ponder
    // searches, even when the search itself has finished (mate found, depth limit).
    {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return shared_.stop || !(shared_.pondering || shared_.limits.infinite); });
        shared_.stop = true;
    }
    for (auto& t : helpers) t.join();

    SearchResult result;
    result.nodes = total_nodes();
    if (root_legal_.empty()) {
        result.score = root_.in_check() ? -VALUE_MATE : VALUE_DRAW;
        if (callbacks_.on_lines) {
            PvLine line;
            line.score = result.score;
            line.wdl = wdl_from_score(line.score);
            callbacks_.on_lines({line});
        }
    } else {
        // Lazy SMP: a helper that completed a deeper iteration with a better score wins.
        const Worker* best = workers_[0].get();
        for (const auto& w : workers_) {
            const Value s = w->root_moves()[0].score, bs = best->root_moves()[0].score;
            if (w->completed_depth() > best->completed_depth() && s > bs && s != -VALUE_INFINITE) best = w.get();
        }
        // A final report when the lines differ from the last ones shown (a stop inside an
        // iteration, a helper's result), so that the last line before `bestmove` is the
        // final one, and is never the previous line again with only its counters moved on.
        const std::vector<PvLine> final_lines = lines(*best);
        if (!same_lines(final_lines, last_reported_)) report(final_lines);
        const RootMove& rm = strength_.active()
                                 ? choose_weakened_move(best->root_moves(), best->multipv(), strength_, rng_)
                                 : best->root_moves()[0];
        result.best = rm.move;
        result.pv = rm.pv;
        result.score = rm.score != -VALUE_INFINITE ? rm.score : rm.previous_score;
        result.depth = best->completed_depth();
        const std::vector<Move>& pv = verdict_pv(rm);
        if (verdict_) result.score = verdict_->score;
        if (pv.size() > 1)
            result.ponder = pv[1];
        else {
            // No reply in the PV (a stop at depth 1, a fail high): ask the table for one.
            Position after = root_;
            after.do_move(rm.move);
            TTData tte;
            if (tt_.probe(after.key(), 1, tte) && is_legal(after, tte.move)) result.ponder = tte.move;
        }
    }
    if (callbacks_.on_result) callbacks_.on_result(result);
    std::lock_guard lock(mutex_);
    searching_ = false;
}

void Search::report(const std::vector<PvLine>& out) {
    last_reported_ = out;
    if (callbacks_.on_lines) callbacks_.on_lines(out);
}

bool Search::same_lines(const std::vector<PvLine>& a, const std::vector<PvLine>& b) {
    auto same = [](const PvLine& x, const PvLine& y) {
        return x.depth == y.depth && x.sel_depth == y.sel_depth && x.multipv == y.multipv && x.score == y.score &&
               x.bound == y.bound && x.pv == y.pv;
    };
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same);
}

const std::vector<Move>& Search::verdict_pv(const RootMove& rm) const {
    return verdict_ && !verdict_->pv.empty() && verdict_->pv[0] == rm.move ? verdict_->pv : rm.pv;
}

std::vector<PvLine> Search::lines(const Worker& w) const {
    std::vector<PvLine> out;
    const int64_t ms = shared_.time.search_elapsed_ms();
    const uint64_t nodes = total_nodes();
    for (int i = 0; i < w.multipv(); ++i) {
        const RootMove& rm = w.root_moves()[i];
        const bool updated = rm.score != -VALUE_INFINITE;
        const int depth = updated ? std::max(1, w.root_depth()) : w.root_depth() - 1;
        if (depth < 1 || (!updated && rm.previous_score == -VALUE_INFINITE)) continue;
        PvLine line;
        line.depth = depth;
        line.sel_depth = std::max(rm.sel_depth, depth);
        line.multipv = i + 1;
        line.score = updated ? rm.score : rm.previous_score;
        line.bound = i == 0 && updated ? rm.bound : BOUND_EXACT;
        line.nodes = nodes;
        line.nps = nodes * 1000 / uint64_t(std::max<int64_t>(ms, 1));
        line.hashfull = tt_.hashfull();
        line.tbhits = total_tbhits();
        line.time_ms = ms;
        line.wdl = wdl_from_score(line.score);
        line.pv = rm.pv;
        if (verdict_ && i == 0) {
            line.score = verdict_->score;
            line.bound = BOUND_EXACT;
            line.wdl = verdict_->wdl;
            line.pv = verdict_pv(rm);
        }
        out.push_back(std::move(line));
    }
    return out;
}

SearchResult Search::run(const Position& root, const SearchLimits& limits, const SearchOptions& options,
                         std::function<void(const std::vector<PvLine>&)> on_lines) {
    SearchResult result;
    start(root, limits, options, {std::move(on_lines), [&result](const SearchResult& r) { result = r; }});
    wait();
    return result;
}

}  // namespace pythia
