#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <vector>

#include "engine/core/huge_page_arena.h"
#include "engine/core/mapped_file.h"

using namespace pythia;

TEST_CASE("a huge page arena hands out disjoint, aligned, zeroed memory", "[core][arena]") {
    constexpr size_t CHUNK = size_t(2) << 20;
    HugePageArena arena(CHUNK);
    std::vector<std::pair<uint8_t*, size_t>> pieces;
    // Small pieces fill a chunk, then a new one; a piece over half a chunk gets its own.
    for (size_t bytes : {size_t(1), size_t(100), size_t(64), CHUNK / 3, CHUNK / 3, CHUNK / 3, CHUNK, size_t(5)}) {
        uint8_t* p = arena.allocate(bytes);
        REQUIRE(p);
        CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
        CHECK(arena.owns(p));
        CHECK(arena.owns(p + bytes - 1));
        CHECK(std::all_of(p, p + bytes, [](uint8_t b) { return b == 0; }));
        std::fill(p, p + bytes, uint8_t(pieces.size() + 1));
        pieces.push_back({p, bytes});
    }
    // No piece overwrote another.
    for (size_t k = 0; k < pieces.size(); ++k) {
        const uint8_t mark = uint8_t(k + 1);
        CHECK(std::all_of(pieces[k].first, pieces[k].first + pieces[k].second, [&](uint8_t b) { return b == mark; }));
    }
    // Each piece rounded up to 64 bytes: 1 -> 64, 100 -> 128, 64, three thirds, the chunk, 5 -> 64.
    const size_t third = (CHUNK / 3 + 63) / 64 * 64;
    CHECK(arena.bytes_allocated() == 64 + 128 + 64 + 3 * third + CHUNK + 64);
    // The first chunk held the small pieces and two thirds, the third third opened a second;
    // the whole chunk came in a chunk of its own, and the last piece went to the second.
    // (Under AddressSanitizer every piece comes from the heap.)
    if (!HugePageArena::ON_HEAP) {
        CHECK(arena.bytes_reserved() == 3 * CHUNK);
        CHECK(pieces[7].first == pieces[5].first + third);
    }

    std::vector<uint8_t> heap(16);
    CHECK_FALSE(arena.owns(heap.data()));
}

TEST_CASE("containers with an arena allocator keep their memory in the arena", "[core][arena]") {
    HugePageArena arena;
    std::vector<uint32_t, ArenaAllocator<uint32_t>> in_arena{ArenaAllocator<uint32_t>(&arena)};
    std::vector<uint32_t, ArenaAllocator<uint32_t>> on_heap;  // no arena: the heap
    for (uint32_t i = 0; i < 100000; ++i) {                   // growing reallocates: old blocks are the arena's
        in_arena.push_back(i);
        on_heap.push_back(i);
    }
    CHECK(arena.owns(in_arena.data()));
    CHECK_FALSE(arena.owns(on_heap.data()));
    CHECK(std::equal(in_arena.begin(), in_arena.end(), on_heap.begin(), on_heap.end()));
    // Moving takes the allocator along; copying into a heap vector leaves the arena alone.
    auto moved = std::move(in_arena);
    CHECK(arena.owns(moved.data()));
    on_heap = moved;
    CHECK(arena.owns(on_heap.data()));  // copy assignment propagates the allocator too
    CHECK(on_heap == moved);
}

TEST_CASE("a mapped file copied into memory reads the same bytes from there", "[core][arena]") {
    const auto path = std::filesystem::temp_directory_path() / ("pythia-copy-" + std::to_string(getpid()) + ".bin");
    std::vector<uint8_t> bytes(300000);
    std::iota(bytes.begin(), bytes.end(), uint8_t(7));
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    MappedFile f;
    REQUIRE(f.open(path.string(), nullptr, MappedFile::Access::RANDOM));
    CHECK_FALSE(f.is_copy());
    HugePageArena arena;
    uint8_t* memory = arena.allocate(f.size());
    REQUIRE(memory);
    f.copy_into(memory);
    CHECK(f.is_copy());
    CHECK(f.data() == memory);
    REQUIRE(f.size() == bytes.size());
    CHECK(std::equal(bytes.begin(), bytes.end(), f.data()));
    CHECK(f.resident_fraction() == 1.0);
    // The copy no longer follows the file: shortening it changes nothing (a mapping would fault).
    std::filesystem::resize_file(path, 10);
    CHECK(std::equal(bytes.begin(), bytes.end(), f.data()));
    MappedFile moved = std::move(f);
    CHECK(moved.is_copy());
    CHECK(moved.data() == memory);
    moved.close();  // leaves the arena's memory alone
    CHECK(memory[1] == bytes[1]);
    std::filesystem::remove(path);
}
