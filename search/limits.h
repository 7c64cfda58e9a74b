// What a `go` command asks of the search.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "engine/core/types.h"

namespace pythia {

struct SearchLimits {
    int64_t time[COLOR_NB] = {-1, -1};  // milliseconds on the clock; -1: not given
    int64_t increment[COLOR_NB] = {0, 0};
    int moves_to_go = 0;     // 0: sudden death (or increment)
    int64_t move_time = -1;  // exact time per move, ms; -1: not given
    int depth = 0;           // 0: no limit
    uint64_t nodes = 0;      // 0: no limit
    int mate = 0;            // search for a mate in this many moves; 0: no
    bool infinite = false;
    bool ponder = false;
    std::vector<Move> search_moves;  // empty: all legal moves
    // When the GUI's clock started: the moment `go` arrived. The book and the root tablebase
    // probe run before the search and count against the time. Default: when the search starts.
    std::chrono::steady_clock::time_point start_time{};

    bool has_clock(Color c) const { return time[c] >= 0; }
    // True when nothing but `stop` ends the search (no clock, no depth/nodes/mate/movetime).
    bool unlimited() const {
        return infinite || (time[WHITE] < 0 && time[BLACK] < 0 && move_time < 0 && !depth && !nodes && !mate);
    }
};

}  // namespace pythia
