#include "search/strength.h"

#include <algorithm>
#include <cmath>

#include "search/params.h"

namespace pythia {

double StrengthLimit::level() const {
    const int e = std::clamp(elo, STRENGTH_ELO_MIN, STRENGTH_ELO_LEVEL_20);
    return 20.0 * (e - STRENGTH_ELO_LEVEL_0) / double(STRENGTH_ELO_LEVEL_20 - STRENGTH_ELO_LEVEL_0);
}

int StrengthLimit::depth_cap() const { return 1 + int(level()); }

uint64_t StrengthLimit::node_cap() const {
    return uint64_t(search_params::STRENGTH_NODES_LEVEL_0 * std::pow(search_params::STRENGTH_NODES_GROWTH, level()));
}

int StrengthLimit::noise_centipawns() const {
    const double weakness = 1.0 - level() / 20.0;
    return int(std::lround(search_params::STRENGTH_NOISE_LEVEL_0 * weakness * weakness));
}

void StrengthLimit::restrict(SearchLimits& limits) const {
    if (!active()) return;
    limits.depth = limits.depth ? std::min(limits.depth, depth_cap()) : depth_cap();
    // Reaching a node limit stops the search as `stop` does, which would send `bestmove`
    // before the GUI's `stop` or `ponderhit`: those searches are held by the depth alone.
    if (!limits.infinite && !limits.ponder)
        limits.nodes = limits.nodes ? std::min(limits.nodes, node_cap()) : node_cap();
}

const RootMove& choose_weakened_move(const std::vector<RootMove>& root_moves, int candidates,
                                     const StrengthLimit& strength, std::mt19937_64& rng) {
    const RootMove& best = root_moves[0];
    auto score_of = [](const RootMove& rm) { return rm.score != -VALUE_INFINITE ? rm.score : rm.previous_score; };
    if (!strength.active() || score_of(best) >= VALUE_MATE_IN_MAX_PLY) return best;
    const int n = std::clamp(candidates, 1, int(root_moves.size()));
    const int noise = std::max(1, strength.noise_centipawns());
    std::uniform_int_distribution<int> bonus(0, noise - 1);
    const RootMove* chosen = &best;
    int chosen_total = 0;
    for (int i = 0; i < n; ++i) {
        const Value s = score_of(root_moves[i]);
        if (s == -VALUE_INFINITE) continue;  // not searched (a stop at once)
        // A bonus for every candidate, drawn in order, so the best move is a candidate too.
        const int total = int(std::clamp<int>(s, -VALUE_MATE, VALUE_MATE)) + bonus(rng);
        if (i == 0 || total > chosen_total) {
            chosen = &root_moves[i];
            chosen_total = total;
        }
    }
    return *chosen;
}

}  // namespace pythia
