// Walks over a table's positions in a storage order, with the values they read prefetched. A
// storage order visits the index with large strides, so nearly every read of a value misses the
// cache: on KRPvKR the writer's walk of the WDL stream spent 40 % of its time on the load of
// dtz[i]. The writer (streams in a candidate order) and the write check (sections decoded in
// their order) walk this way.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tablebase/format/storage_order.h"

namespace pythia::tb {

// How far ahead of the position being read a walk prefetches its values.
constexpr int PREFETCH_AHEAD = 16;

// prefetch(i) for the values of index i in one or more value arrays.
template <typename... Arrays>
auto prefetch_of(const Arrays&... arrays) {
    return [&arrays...](uint64_t i) { (__builtin_prefetch(arrays.data() + i), ...); };
}

// Calls f(index, stored position) for the stored positions [begin, end) of `order`, having
// called prefetch(index) PREFETCH_AHEAD positions earlier.
template <typename Prefetch, typename F>
void walk_in_order(const StorageOrder& order, uint64_t begin, uint64_t end, Prefetch&& prefetch, F&& f) {
    StorageOrder::Cursor lead(order, begin);
    uint64_t ahead[PREFETCH_AHEAD];  // the indices of the next positions, by stored position
    const uint64_t first = std::min<uint64_t>(end - begin, PREFETCH_AHEAD);
    for (uint64_t k = 0; k < first; ++k, lead.next()) {
        ahead[k] = lead.index();
        prefetch(ahead[k]);
    }
    for (uint64_t j = begin; j < end; ++j) {
        uint64_t& slot = ahead[(j - begin) % PREFETCH_AHEAD];
        const uint64_t index = slot;
        if (j + PREFETCH_AHEAD < end) {
            slot = lead.index();
            prefetch(slot);
            lead.next();
        }
        f(index, j);
    }
}

}  // namespace pythia::tb
