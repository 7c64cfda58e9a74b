#include "search/time_manager.h"

#include <algorithm>

#include "search/params.h"

namespace pythia {

using namespace search_params;

void TimeManager::start(const SearchLimits& limits, Color us, int64_t overhead) {
    start_ = search_start_ = limits.start_time == Clock::time_point{} ? Clock::now() : limits.start_time;
    limited_ = fixed_ = false;
    if (limits.infinite) return;
    if (limits.move_time >= 0) {
        limited_ = fixed_ = true;
        optimum_ = maximum_ = std::max<int64_t>(1, limits.move_time - overhead);
        return;
    }
    if (!limits.has_clock(us)) return;
    limited_ = true;
    // What is left after the safety margin; overhead is paid on every move, so keep it once
    // more for the moves still to come before the next time control.
    const int64_t time = limits.time[us], inc = std::max<int64_t>(0, limits.increment[us]);
    const int moves_to_go =
        limits.moves_to_go > 0 ? std::min(limits.moves_to_go, TIME_MOVES_TO_GO_MAX) : TIME_MOVES_TO_GO_DEFAULT;
    const int64_t left = std::max<int64_t>(1, time - overhead);
    // A reserve the plan never touches, so that the clock does not drift down to a few
    // milliseconds with an increment (a stalled machine or a slow GUI would then flag us).
    const int64_t reserve =
        limits.moves_to_go == 1
            ? 0
            : std::min(left * TIME_RESERVE_PERCENT / 100,
                       TIME_RESERVE_OVERHEADS * std::max<int64_t>(overhead, TIME_RESERVE_MIN_OVERHEAD_MS));
    const int64_t usable = left - reserve;
    optimum_ = usable / moves_to_go + inc * TIME_INCREMENT_PERCENT / 100;
    // Never more than a share of the clock, so that a long think cannot lose on time.
    const int64_t cap =
        limits.moves_to_go == 1 ? left * TIME_LAST_MOVE_MAX_PERCENT / 100 : usable * TIME_MAX_PERCENT / 100;
    maximum_ = std::max<int64_t>(1, std::min(cap, optimum_ * TIME_MAX_OPTIMUMS));
    optimum_ = std::max<int64_t>(1, std::min(optimum_, maximum_));
}

}  // namespace pythia
