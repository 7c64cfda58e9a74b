// Memory for large data read at scattered places for as long as it lives: big chunks of
// anonymous memory that the kernel is asked to back with 2 MiB pages (madvise MADV_HUGEPAGE),
// handed out in pieces and released all together when the arena dies.
//
// Why: a probe of a 5-piece WDL table reads a few cache lines at random places of a set of
// hundreds of MB. With 4 KiB pages nearly every one of those reads also misses the TLB, and a
// page walk under a virtual machine's nested paging costs as much as a cache miss. The same
// reads from memory in 2 MiB pages made WDL probes 12-13 % faster (bench/README.md). Where the
// kernel gives no huge pages (transparent huge pages off), the memory works the same in small
// pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

// Under AddressSanitizer the arena takes each piece from the heap instead, so that the sanitizer
// sees a read past a piece's end (it does not watch anonymous mappings).
#if defined(__SANITIZE_ADDRESS__)
#define PYTHIA_ARENA_ON_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PYTHIA_ARENA_ON_HEAP 1
#endif
#endif
#ifndef PYTHIA_ARENA_ON_HEAP
#define PYTHIA_ARENA_ON_HEAP 0
#endif

namespace pythia {

class HugePageArena {
public:
    static constexpr bool ON_HEAP = PYTHIA_ARENA_ON_HEAP;  // a sanitizer build: no chunks

    // Chunks of `chunk_bytes` (rounded up to 2 MiB); a larger request gets a chunk of its own.
    explicit HugePageArena(size_t chunk_bytes = size_t(32) << 20);
    ~HugePageArena();
    HugePageArena(const HugePageArena&) = delete;
    HugePageArena& operator=(const HugePageArena&) = delete;

    // `bytes` of zeroed, writable memory aligned to 64 bytes, valid until the arena dies;
    // nullptr if the system has no memory to give. Thread safe.
    uint8_t* allocate(size_t bytes);

    bool owns(const void* p) const;  // p is in one of its chunks

    size_t bytes_allocated() const;  // handed out
    size_t bytes_reserved() const;   // in chunks

private:
    struct Chunk {
        uint8_t* base;
        size_t size, used;
    };
    const size_t chunk_bytes_;
    mutable std::mutex mutex_;
    static constexpr size_t NONE = ~size_t(0);
    std::vector<Chunk> chunks_;  // ON_HEAP: one per piece, from the heap
    size_t open_ = NONE;         // the chunk that small requests are taken from
    size_t allocated_ = 0;
};

// A container allocator that takes memory from an arena (released with the arena, not by the
// container), or from the heap without one or when the arena has none left.
template <typename T>
struct ArenaAllocator {
    using value_type = T;
    using propagate_on_container_copy_assignment = std::true_type;
    using propagate_on_container_move_assignment = std::true_type;
    using propagate_on_container_swap = std::true_type;
    using is_always_equal = std::false_type;

    HugePageArena* arena = nullptr;

    ArenaAllocator() = default;
    explicit ArenaAllocator(HugePageArena* a) : arena(a) {}
    template <typename U>
    ArenaAllocator(const ArenaAllocator<U>& other) : arena(other.arena) {}

    T* allocate(size_t n) {
        if (arena)
            if (uint8_t* p = arena->allocate(n * sizeof(T))) return reinterpret_cast<T*>(p);
        return std::allocator<T>().allocate(n);
    }
    void deallocate(T* p, size_t n) {
        if (!arena || !arena->owns(p)) std::allocator<T>().deallocate(p, n);
    }
    template <typename U>
    bool operator==(const ArenaAllocator<U>& other) const {
        return arena == other.arena;
    }
    template <typename U>
    bool operator!=(const ArenaAllocator<U>& other) const {
        return arena != other.arena;
    }
};

}  // namespace pythia
