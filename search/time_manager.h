// How long to think: an optimum time (stop after an iteration beyond it) and a maximum (stop
// at once), from the clock, increment, moves to go and the `Move Overhead` safety margin.
#pragma once

#include <chrono>
#include <cstdint>

#include "search/limits.h"

namespace pythia {

class TimeManager {
public:
    using Clock = std::chrono::steady_clock;

    // Starts the clock and sets the budget for side `us`.
    void start(const SearchLimits& limits, Color us, int64_t move_overhead_ms);
    // After `ponderhit`: our own clock starts now, the time spent pondering was free. The
    // search's own age (search_elapsed_ms) goes on from `go`.
    void restart_clock() { start_ = Clock::now(); }

    // Time on our clock: since `go`, or since `ponderhit` after pondering (the budget's time).
    int64_t elapsed_ms() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
    }
    // Time since `go`, pondering included: the `time` of the info lines, as GUIs expect, and
    // the time their `nps` is counted over.
    int64_t search_elapsed_ms() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - search_start_).count();
    }
    bool time_limited() const { return limited_; }
    bool fixed() const { return fixed_; }  // `movetime`: use all of it
    int64_t optimum_ms() const { return optimum_; }
    int64_t maximum_ms() const { return maximum_; }

private:
    Clock::time_point start_ = Clock::now();
    Clock::time_point search_start_ = start_;
    bool limited_ = false, fixed_ = false;
    int64_t optimum_ = 0, maximum_ = 0;
};

}  // namespace pythia
