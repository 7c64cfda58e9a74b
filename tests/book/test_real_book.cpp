#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "book/book_settings.h"
#include "book/opening_book.h"
#include "book_test_util.h"
#include "engine/core/movegen.h"
#include "engine/core/notation.h"

using namespace pythia;
using namespace pythia::test;

// Debian's gnuchess-book: a real Polyglot book of some 180,000 entries.
TEST_CASE("Debian's gnuchess book: sensible moves for the start position", "[book][real]") {
    const std::string path(DEBIAN_BOOK_FILE);
    if (skip_without(std::filesystem::is_regular_file(path), "gnuchess-book (" + path + ")")) return;
    OpeningBook book;
    std::string error;
    REQUIRE(book.open(path, &error));

    Position start;
    BookProbe probe = book.probe(start);
    CHECK(probe.illegal == 0);
    REQUIRE(probe.moves.size() >= 4);
    std::vector<std::string> moves;
    for (const BookMove& m : probe.moves) {
        CHECK(is_legal(start, m.move));
        CHECK(m.weight > 0);
        moves.push_back(move_to_uci(m.move));
    }
    for (const char* main : {"e2e4", "d2d4", "c2c4", "g1f3"})
        CHECK(std::find(moves.begin(), moves.end(), main) != moves.end());
    // The two classical first moves carry most of the weight.
    uint64_t e4_d4 = 0;
    for (const BookMove& m : probe.moves)
        if (move_to_uci(m.move) == "e2e4" || move_to_uci(m.move) == "d2d4") e4_d4 += m.weight;
    CHECK(e4_d4 * 2 > probe.total_weight());

    // Castling in the book comes back as the engine's castling move: 1.e4 e5 2.Nf3 Nc6 3.Bb5 a6
    // 4.Ba4 Nf6 is a main line in which White castles.
    Position ruy = position_after("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6");
    bool castles = false;
    for (const BookMove& m : book.probe(ruy).moves) castles |= m.move.kind() == Move::CASTLING;
    CHECK(castles);
}

TEST_CASE("Debian's gnuchess book: every entry is found by binary search", "[book][real]") {
    const std::string path(DEBIAN_BOOK_FILE);
    if (skip_without(std::filesystem::is_regular_file(path), "gnuchess-book (" + path + ")")) return;
    OpeningBook book;
    REQUIRE(book.open(path));
    auto all = read_raw_entries(path);
    REQUIRE(all.size() == book.size());
    // Each key's run of entries, compared with what the search finds (every 7th key: plenty).
    size_t keys = 0;
    for (size_t i = 0; i < all.size();) {
        size_t j = i;
        while (j < all.size() && all[j].key == all[i].key) ++j;
        if (keys++ % 7 == 0) {
            std::vector<PolyglotEntry> run(all.begin() + long(i), all.begin() + long(j));
            REQUIRE(book.entries(all[i].key) == run);
        }
        i = j;
    }
    CHECK(keys > 50000);
}

TEST_CASE("Debian's gnuchess book: a walk through the book meets only legal moves", "[book][real]") {
    const std::string path(DEBIAN_BOOK_FILE);
    if (skip_without(std::filesystem::is_regular_file(path), "gnuchess-book (" + path + ")")) return;
    OpeningBook book;
    REQUIRE(book.open(path));
    std::mt19937_64 rng(99);
    int book_moves = 0;
    for (int game = 0; game < 200; ++game) {
        Position pos;
        for (int ply = 0; ply < 30; ++ply) {
            BookChoice c = book.choose(pos, BookVariety::WEIGHTED, rng);
            if (!c) break;
            REQUIRE(is_legal(pos, c.move));
            pos.do_move(c.move);
            ++book_moves;
        }
    }
    CHECK(book_moves > 200 * 8);  // the book reaches well into the opening
}
