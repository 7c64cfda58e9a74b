#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "book/opening_book.h"
#include "book_test_util.h"
#include "engine/core/movegen.h"
#include "engine/core/notation.h"

using namespace pythia;
using namespace pythia::test;

namespace {

PolyglotEntry entry(const Position& pos, const std::string& uci, uint16_t weight) {
    Move m = parse_uci_move(pos, uci);
    REQUIRE(m);
    return {pos.key(), encode_polyglot_move(m), weight, 0};
}

// A book with the start position (four moves, one of them illegal, one of weight 0), the
// position after 1.e4 and the position after 1.d4, sorted by key as a book must be.
std::vector<PolyglotEntry> sample_entries() {
    Position start, e4 = position_after("e2e4"), d4 = position_after("d2d4");
    std::vector<PolyglotEntry> entries = {
        entry(start, "e2e4", 60),
        entry(start, "d2d4", 30),
        {start.key(), uint16_t(SQ_E5 | SQ_E2 << 6), 500, 0},  // e2e5: illegal, must never be played
        entry(start, "g1f3", 10),
        entry(start, "b2b4", 0),
        entry(e4, "c7c5", 7),
        entry(e4, "e7e5", 7),
        entry(d4, "g8f6", 1),
    };
    std::stable_sort(entries.begin(), entries.end(),
                     [](const PolyglotEntry& a, const PolyglotEntry& b) { return a.key < b.key; });
    return entries;
}

}  // namespace

TEST_CASE("a book's entries are found by key, in file order", "[book][reader]") {
    TempDir dir;
    auto entries = sample_entries();
    write_raw_entries(dir.file("b.bin"), entries);
    OpeningBook book;
    std::string error;
    REQUIRE(book.open(dir.file("b.bin"), &error));
    CHECK(error.empty());
    CHECK(book.size() == entries.size());
    CHECK(book.path() == dir.file("b.bin"));

    // Every key, including the first and the last of the file, yields exactly its entries.
    std::map<Key, std::vector<PolyglotEntry>> by_key;
    for (const auto& e : entries) by_key[e.key].push_back(e);
    for (const auto& [key, expected] : by_key) CHECK(book.entries(key) == expected);

    // Keys that are not in the book: below the first, above the last, between two.
    CHECK(book.entries(by_key.begin()->first - 1).empty());
    CHECK(book.entries(by_key.rbegin()->first + 1).empty());
    CHECK(book.entries(std::next(by_key.begin())->first - 1).empty());
    CHECK(book.probe(position_after("g1f3")).moves.empty());
}

TEST_CASE("probing keeps legal moves only", "[book][reader]") {
    TempDir dir;
    write_raw_entries(dir.file("b.bin"), sample_entries());
    OpeningBook book;
    REQUIRE(book.open(dir.file("b.bin")));
    BookProbe probe = book.probe(Position());
    REQUIRE(probe.moves.size() == 4);
    CHECK(probe.illegal == 1);
    CHECK(move_to_uci(probe.moves[0].move) == "e2e4");
    CHECK(probe.moves[0].weight == 60);
    CHECK(move_to_uci(probe.moves[3].move) == "b2b4");
    CHECK(probe.total_weight() == 100);
    for (const BookMove& m : probe.moves) CHECK(is_legal(Position(), m.move));
}

TEST_CASE("the heaviest move is chosen in Best mode", "[book][reader]") {
    TempDir dir;
    write_raw_entries(dir.file("b.bin"), sample_entries());
    OpeningBook book;
    REQUIRE(book.open(dir.file("b.bin")));
    std::mt19937_64 rng(1);
    BookChoice c = book.choose(Position(), BookVariety::BEST, rng);
    CHECK(move_to_uci(c.move) == "e2e4");  // not the illegal e2e5 of weight 500
    CHECK(c.weight == 60);
    CHECK(c.total_weight == 100);
    CHECK(c.candidates == 3);  // b2b4 has weight 0
    // Equal weights: the first in the file.
    Position e4 = position_after("e2e4");
    CHECK(book.choose(e4, BookVariety::BEST, rng).move == book.probe(e4).moves[0].move);
}

TEST_CASE("weighted choice follows weight / sum of weights", "[book][reader]") {
    TempDir dir;
    write_raw_entries(dir.file("b.bin"), sample_entries());
    OpeningBook book;
    REQUIRE(book.open(dir.file("b.bin")));
    std::mt19937_64 rng(20240601);
    std::map<std::string, int> count;
    const int draws = 40000;
    for (int i = 0; i < draws; ++i) {
        BookChoice c = book.choose(Position(), BookVariety::WEIGHTED, rng);
        REQUIRE(c);
        ++count[move_to_uci(c.move)];
    }
    // Expected shares 60/30/10 %; four standard deviations of 40000 draws is under 1 %.
    CHECK(count["e2e4"] / double(draws) == Approx(0.60).margin(0.01));
    CHECK(count["d2d4"] / double(draws) == Approx(0.30).margin(0.01));
    CHECK(count["g1f3"] / double(draws) == Approx(0.10).margin(0.01));
    CHECK(count.count("b2b4") == 0);  // weight 0
    CHECK(count.count("e2e5") == 0);  // illegal
    CHECK(count.size() == 3);
}

TEST_CASE("no choice where the book has no playable move", "[book][reader]") {
    TempDir dir;
    Position start;
    write_raw_entries(dir.file("b.bin"), {{start.key(), uint16_t(SQ_E5 | SQ_E2 << 6), 9, 0}, entry(start, "a2a3", 0)});
    OpeningBook book;
    REQUIRE(book.open(dir.file("b.bin")));
    std::mt19937_64 rng(3);
    CHECK_FALSE(book.choose(start, BookVariety::WEIGHTED, rng));
    CHECK_FALSE(book.choose(start, BookVariety::BEST, rng));
    CHECK_FALSE(book.choose(position_after("e2e4"), BookVariety::WEIGHTED, rng));
}

TEST_CASE("Polyglot header entries (key 0) are skipped", "[book][reader]") {
    TempDir dir;
    auto entries = sample_entries();
    entries.insert(entries.begin(), {{0, 0x4040, 0x4040, 0x40404040}, {0, 0x6e6f, 0x726d, 0x616c0000}});
    write_raw_entries(dir.file("b.bin"), entries);
    OpeningBook book;
    REQUIRE(book.open(dir.file("b.bin")));
    CHECK(book.entries(0).empty());
    CHECK(book.probe(Position()).moves.size() == 4);
}

TEST_CASE("bad book files are refused with a clear message", "[book][reader]") {
    TempDir dir;
    OpeningBook book;
    std::string error;

    // A good book first, to see that a refused file also drops it.
    write_raw_entries(dir.file("good.bin"), sample_entries());
    REQUIRE(book.open(dir.file("good.bin")));

    CHECK_FALSE(book.open(dir.file("missing.bin"), &error));
    CHECK_FALSE(book.is_open());
    CHECK(book.probe(Position()).moves.empty());
    CHECK_THAT(error, Catch::Contains("missing.bin") && Catch::Contains("No such file"));

    write_text(dir.file("empty.bin"), "");
    CHECK_FALSE(book.open(dir.file("empty.bin"), &error));
    CHECK_THAT(error, Catch::Contains("empty"));

    // Truncated: a whole book but for its last byte, and a book with a byte too many.
    auto entries = sample_entries();
    write_raw_entries(dir.file("truncated.bin"), entries);
    std::filesystem::resize_file(dir.file("truncated.bin"), entries.size() * 16 - 1);
    CHECK_FALSE(book.open(dir.file("truncated.bin"), &error));
    CHECK_THAT(error, Catch::Contains("truncated") && Catch::Contains("not a multiple of 16"));
    std::filesystem::resize_file(dir.file("truncated.bin"), 17);
    CHECK_FALSE(book.open(dir.file("truncated.bin"), &error));
    CHECK_THAT(error, Catch::Contains("17 bytes"));

    // Unsorted: two entries swapped; binary search would miss entries.
    std::swap(entries.front(), entries.back());
    write_raw_entries(dir.file("unsorted.bin"), entries);
    CHECK_FALSE(book.open(dir.file("unsorted.bin"), &error));
    CHECK_THAT(error, Catch::Contains("not sorted"));

    CHECK_FALSE(book.open(dir.file(""), &error));  // the folder itself
    CHECK_THAT(error, Catch::Contains("not a regular file"));
    CHECK_FALSE(book.is_open());

    std::mt19937_64 rng(5);
    CHECK_FALSE(book.choose(Position(), BookVariety::WEIGHTED, rng));  // plays on without a book
}
