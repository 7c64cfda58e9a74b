#include "tablebase/format/block_cache.h"

namespace pythia::tb {

BlockCache& BlockCache::local() {
    thread_local BlockCache cache;
    return cache;
}

const uint8_t* BlockCache::get(const TableFile& file, uint32_t section_no, uint64_t block, uint32_t need) {
    const Section& s = file.sections()[section_no];
    Pool& pool = s.block_bytes <= SMALL_BYTES ? small_ : large_;
    if (!pool.index) {
        pool.index = std::make_unique<Entry[]>(pool.entries);
        pool.data = std::make_unique<uint8_t[]>(size_t(pool.capacity) * pool.entries);
    }
    const uint64_t h =
        (file.uid() * 0x9E3779B97F4A7C15ull) ^ (block * 0xC2B2AE3D27D4EB4Full) ^ (uint64_t(section_no) << 58);
    const uint32_t slot = uint32_t((h >> 32) % pool.entries);
    Entry& e = pool.index[slot];
    uint8_t* data = pool.data.get() + size_t(slot) * pool.capacity;
    const bool same_block = e.uid == file.uid() && e.block == block && e.section == section_no;
    if (same_block && e.decoded >= need) return data;
    // LZ4 decodes a block from its start, and its cost grows with the bytes decoded, so a
    // block met for the first time is decoded only up to the probed position. A block probed
    // again beyond that is one the search is working through: it is decoded a little further
    // than needed, since its next probes often fall nearby.
    const uint32_t full = file.block_size(s, block);
    const uint32_t want = std::min(full, same_block ? need + 256 : need);
    const int n = file.decode_block(s, block, data, want);
    if (n < 0) {
        e.uid = 0;
        return nullptr;
    }
    e = Entry{file.uid(), block, section_no, uint32_t(n)};
    return data;
}

}  // namespace pythia::tb
