// A parallel loop over [0, n) for the writer and the loader: `threads` workers take chunks of
// `grain` items in turn and call fn(begin, end, worker) with worker in [0, threads).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace pythia::tb {

inline int default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// The number of workers parallel_for will use.
inline int workers_for(uint64_t n, int threads, uint64_t grain) {
    grain = std::max<uint64_t>(grain, 1);
    return std::max(1, int(std::min<uint64_t>(std::max(threads, 1), (n + grain - 1) / grain)));
}

template <typename F>
void parallel_for(uint64_t n, int threads, uint64_t grain, F&& fn) {
    grain = std::max<uint64_t>(grain, 1);
    const int workers = workers_for(n, threads, grain);
    std::atomic<uint64_t> next{0};
    auto work = [&](int worker) {
        for (uint64_t b; (b = next.fetch_add(grain)) < n;) fn(b, std::min(n, b + grain), worker);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < workers; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& t : pool) t.join();
}

}  // namespace pythia::tb
