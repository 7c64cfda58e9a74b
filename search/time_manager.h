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
    // After `ponderhit`: our own clock starts now, the time spent pondering was free.
    void restart_clock() { start_ = Clock::now(); }

    int64_t elapsed_ms() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
    }
    bool time_limited() const { return limited_; }
    bool fixed() const { return fixed_; }  // `movetime`: use all of it
    int64_t optimum_ms() const { return optimum_; }
    int64_t maximum_ms() const { return maximum_; }

private:
    Clock::time_point start_ = Clock::now();
    bool limited_ = false, fixed_ = false;
    int64_t optimum_ = 0, maximum_ = 0;
};

}  // namespace pythia
