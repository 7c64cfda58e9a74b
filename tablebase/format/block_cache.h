// Each thread keeps its own small cache of decoded blocks, so a probe whose block was decoded
// recently costs a lookup and no decompression, and threads never share or lock anything.
// Entries are keyed by the file's process-wide unique id, so a cache can never hand out a
// block of a file that was closed and replaced.
#pragma once

#include <cstdint>
#include <memory>

#include "tablebase/format/table_file.h"

namespace pythia::tb {

class BlockCache {
public:
    // The calling thread's cache.
    static BlockCache& local();

    // The decoded bytes of block `block` of section `section_no` of `file`, with at least
    // `need` bytes decoded; nullptr if the block is corrupt.
    const uint8_t* get(const TableFile& file, uint32_t section_no, uint64_t block, uint32_t need);

private:
    struct Entry {
        uint64_t uid = 0;  // 0: empty
        uint64_t block = 0;
        uint32_t section = 0;
        uint32_t decoded = 0;  // bytes decoded so far (decoding may stop early)
    };
    struct Pool {
        uint32_t capacity;  // bytes per entry
        uint32_t entries;
        std::unique_ptr<Entry[]> index;
        std::unique_ptr<uint8_t[]> data;
    };
    static constexpr uint32_t SMALL_BYTES = 4096, SMALL_ENTRIES = 128;  // WDL blocks
    static constexpr uint32_t LARGE_ENTRIES = 16;                       // DTM and DTZ blocks

    Pool small_{SMALL_BYTES, SMALL_ENTRIES, nullptr, nullptr};
    Pool large_{MAX_BLOCK_BYTES, LARGE_ENTRIES, nullptr, nullptr};
};

}  // namespace pythia::tb
