#include "engine/core/huge_page_arena.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

namespace pythia {

namespace {

constexpr size_t HUGE_PAGE = size_t(2) << 20;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// `bytes` (a multiple of HUGE_PAGE) of anonymous memory starting on a 2 MiB boundary, where
// the kernel can back it with huge pages; nullptr if refused.
uint8_t* map_aligned(size_t bytes) {
    const size_t padded = bytes + HUGE_PAGE;
    void* p = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    uint8_t* const raw = static_cast<uint8_t*>(p);
    uint8_t* const base = reinterpret_cast<uint8_t*>(round_up(reinterpret_cast<uintptr_t>(raw), HUGE_PAGE));
    if (base > raw) munmap(raw, size_t(base - raw));
    if (raw + padded > base + bytes) munmap(base + bytes, size_t(raw + padded - (base + bytes)));
    madvise(base, bytes, MADV_HUGEPAGE);  // advice: refused where huge pages are off, harmlessly
    return base;
}

}  // namespace

HugePageArena::HugePageArena(size_t chunk_bytes) : chunk_bytes_(round_up(chunk_bytes ? chunk_bytes : 1, HUGE_PAGE)) {}

HugePageArena::~HugePageArena() {
    for (const Chunk& c : chunks_) {
        if (ON_HEAP)
            ::operator delete(c.base, std::align_val_t(64));
        else
            munmap(c.base, c.size);
    }
}

uint8_t* HugePageArena::allocate(size_t bytes) {
    const size_t asked = bytes ? bytes : 1;
    bytes = round_up(asked, 64);
    std::lock_guard<std::mutex> lock(mutex_);
    if (ON_HEAP) {  // exactly what was asked, so that the sanitizer's red zone starts at its end
        uint8_t* p = static_cast<uint8_t*>(::operator new(asked, std::align_val_t(64), std::nothrow));
        if (!p) return nullptr;
        std::memset(p, 0, asked);
        chunks_.push_back({p, asked, asked});
        allocated_ += bytes;
        return p;
    }
    if (bytes > chunk_bytes_ / 2) {  // a chunk of its own: the open chunk's rest is not lost
        const size_t size = round_up(bytes, HUGE_PAGE);
        uint8_t* base = map_aligned(size);
        if (!base) return nullptr;
        chunks_.push_back({base, size, bytes});
        allocated_ += bytes;
        return base;
    }
    if (open_ == NONE || chunks_[open_].size - chunks_[open_].used < bytes) {
        uint8_t* base = map_aligned(chunk_bytes_);
        if (!base) return nullptr;
        chunks_.push_back({base, chunk_bytes_, 0});
        open_ = chunks_.size() - 1;
    }
    Chunk& c = chunks_[open_];
    uint8_t* p = c.base + c.used;
    c.used += bytes;
    allocated_ += bytes;
    return p;
}

bool HugePageArena::owns(const void* p) const {
    const uint8_t* at = static_cast<const uint8_t*>(p);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Chunk& c : chunks_)
        if (at >= c.base && at < c.base + c.size) return true;
    return false;
}

size_t HugePageArena::bytes_allocated() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocated_;
}

size_t HugePageArena::bytes_reserved() const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t n = 0;
    for (const Chunk& c : chunks_) n += c.size;
    return n;
}

}  // namespace pythia
