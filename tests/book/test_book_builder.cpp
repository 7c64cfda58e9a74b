#include <catch2/catch.hpp>

#include "book/book_builder.h"
#include "book/opening_book.h"
#include "book_test_util.h"
#include "engine/core/notation.h"

using namespace pythia;
using namespace pythia::test;

namespace {

// Seven short games written for this test: every result, a transposition (games 5 and 6 reach
// the same position by different orders) and a repetition (game 7 returns to the start).
const std::string GAMES = R"([Event "1"]
[Result "1-0"]
1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0

[Event "2"]
[Result "0-1"]
1. e4 c5 {Sicilian} 2. Nf3 d6 0-1

[Event "3"]
[Result "1/2-1/2"]
1. e4 e5 2. Nf3 (2. f4) Nf6 1/2-1/2

[Event "4"]
[Result "*"]
1. d4 d5 *

[Event "5"]
[Result "1-0"]
1. Nf3 d5 2. d4 Nf6 3. c4 1-0

[Event "6"]
[Result "1/2-1/2"]
1. d4 d5 2. Nf3 Nf6 1/2-1/2

[Event "7"]
[Result "1/2-1/2"]
1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2
)";

struct Expected {
    const char* line;                                // UCI moves from the start
    std::vector<std::pair<const char*, int>> moves;  // heaviest first
};

// Worked out by hand: 2 per win, 1 per draw or "*", 0 per loss, from the mover's side.
const std::vector<Expected> EXPECTED_BOOK = {
    {"", {{"g1f3", 4}, {"e2e4", 3}, {"d2d4", 2}}},  // Nf3: 2 (game 5) + 1 + 1 (game 7, twice)
    {"e2e4", {{"c7c5", 2}, {"e7e5", 1}}},
    {"e2e4 e7e5", {{"g1f3", 3}}},
    {"e2e4 e7e5 g1f3", {{"g8f6", 1}}},  // Nc6 lost its only game: weight 0, dropped
    {"e2e4 e7e5 g1f3 b8c6", {{"f1b5", 2}}},
    {"e2e4 e7e5 g1f3 b8c6 f1b5", {}},  // a6: weight 0
    {"e2e4 c7c5", {}},                 // Nf3: weight 0
    {"e2e4 c7c5 g1f3", {{"d7d6", 2}}},
    {"d2d4", {{"d7d5", 2}}},
    {"d2d4 d7d5", {{"g1f3", 1}}},
    {"g1f3 d7d5 d2d4", {{"g8f6", 1}}},  // the same position as d4 d5 Nf3: 0 (game 5) + 1 (game 6)
    {"g1f3", {{"g8f6", 2}}},            // d5 lost: dropped
    {"g1f3 d7d5", {{"d2d4", 2}}},
    {"g1f3 d7d5 d2d4 g8f6", {{"c2c4", 2}}},
    {"g1f3 g8f6", {{"f3g1", 2}}},
    {"g1f3 g8f6 f3g1", {{"f6g8", 2}}},
};

void check_book(const OpeningBook& book, const std::vector<Expected>& expected) {
    size_t total = 0;
    for (const Expected& e : expected) {
        Position pos = position_after(e.line);
        BookProbe probe = book.probe(pos);
        INFO("after '" << e.line << "'");
        CHECK(probe.illegal == 0);
        REQUIRE(probe.moves.size() == e.moves.size());
        for (size_t i = 0; i < e.moves.size(); ++i) {
            CHECK(move_to_uci(probe.moves[i].move) == e.moves[i].first);
            CHECK(probe.moves[i].weight == e.moves[i].second);
        }
        total += e.moves.size();
    }
    CHECK(book.size() == total);  // and nothing else is in the book
}

}  // namespace

TEST_CASE("book round trip: PGN -> book file -> probe", "[book][builder]") {
    TempDir dir;
    int skipped = -1;
    auto entries = build_from_pgn(GAMES, {}, &skipped);
    CHECK(skipped == 0);
    std::string error;
    REQUIRE(write_polyglot_book(dir.file("games.bin"), entries, &error));
    CHECK_FALSE(std::filesystem::exists(dir.file("games.bin.tmp")));
    OpeningBook book;
    REQUIRE(book.open(dir.file("games.bin"), &error));
    check_book(book, EXPECTED_BOOK);
}

TEST_CASE("book building options: max ply, min games, one colour", "[book][builder]") {
    TempDir dir;
    auto open_built = [&](BookBuildOptions options, OpeningBook& book) {
        REQUIRE(write_polyglot_book(dir.file("o.bin"), build_from_pgn(GAMES, options)));
        REQUIRE(book.open(dir.file("o.bin")));
    };
    OpeningBook book;

    SECTION("--max-ply 1: first moves only, the repeated Nf3 of game 7 no longer counts") {
        open_built({.max_ply = 1}, book);
        check_book(book, {{"", {{"g1f3", 3}, {"e2e4", 3}, {"d2d4", 2}}}});  // equal weights: lower move code first
    }
    SECTION("--max-ply 0: nothing") { CHECK(build_from_pgn(GAMES, {.max_ply = 0}).empty()); }
    SECTION("--min-games 2: moves played in at least two games (or twice in one)") {
        open_built({.min_games = 2}, book);
        check_book(book, {
                             {"", {{"g1f3", 4}, {"e2e4", 3}, {"d2d4", 2}}},
                             {"e2e4", {{"e7e5", 1}}},
                             {"e2e4 e7e5", {{"g1f3", 3}}},
                             {"d2d4", {{"d7d5", 2}}},
                             {"d2d4 d7d5 g1f3", {{"g8f6", 1}}},
                             {"g1f3", {{"g8f6", 2}}},
                             {"g1f3 g8f6", {{"f3g1", 2}}},
                             {"g1f3 g8f6 f3g1", {{"f6g8", 2}}},
                         });
    }
    SECTION("--only-white and --only-black split the book by the side to move") {
        auto all = build_from_pgn(GAMES);
        auto white = build_from_pgn(GAMES, {.black_moves = false});
        auto black = build_from_pgn(GAMES, {.white_moves = false});
        CHECK(white.size() + black.size() == all.size());
        CHECK(white.size() == 9);
        for (const PolyglotEntry& e : white) CHECK(std::count(all.begin(), all.end(), e) == 1);
        for (const PolyglotEntry& e : black) CHECK(std::count(all.begin(), all.end(), e) == 1);
        open_built({.white_moves = false}, book);
        CHECK(book.probe(Position()).moves.empty());
        CHECK(book.probe(position_after("e2e4")).moves.size() == 2);
    }
}

TEST_CASE("book games are counted from their FEN tag's position", "[book][builder]") {
    const std::string fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 30";
    auto entries = build_from_pgn("[FEN \"" + fen + "\"]\n[Result \"1-0\"]\n30. O-O O-O-O 31. Rae1 1-0\n");
    Position pos;
    REQUIRE(pos.set_fen(fen));
    REQUIRE(entries.size() == 2);  // Black's O-O-O lost: dropped
    CHECK(entries[0].key != entries[1].key);
    const PolyglotEntry& first = entries[0].key == pos.key() ? entries[0] : entries[1];
    CHECK(first.key == pos.key());
    CHECK(first.move == (SQ_H1 | SQ_E1 << 6));  // castling as king takes rook
    CHECK(first.weight == 2);
}

TEST_CASE("weights too large for 16 bits are scaled per position", "[book][builder]") {
    BookBuilder builder;
    Position start;
    Move e4 = parse_uci_move(start, "e2e4"), d4 = parse_uci_move(start, "d2d4"), c4 = parse_uci_move(start, "c2c4");
    Move nf3 = parse_uci_move(start, "g1f3");
    for (int i = 0; i < 40000; ++i) builder.add_game(start, {e4}, GameResult::WHITE_WINS);  // 80000
    for (int i = 0; i < 10000; ++i) builder.add_game(start, {d4}, GameResult::DRAW);        // 10000
    builder.add_game(start, {c4}, GameResult::DRAW);                                        // 1
    for (int i = 0; i < 30000; ++i) builder.add_game(position_after("e2e4 e7e5"), {nf3}, GameResult::DRAW);
    auto entries = builder.entries();
    REQUIRE(entries.size() == 4);
    auto weight_of = [&](Key key, Move m) {
        for (const PolyglotEntry& e : entries)
            if (e.key == key && e.move == encode_polyglot_move(m)) return int(e.weight);
        return -1;
    };
    CHECK(weight_of(start.key(), e4) == 65535);
    CHECK(weight_of(start.key(), d4) == 8192);                          // 10000 * 65535 / 80000 = 8191.9, rounded up
    CHECK(weight_of(start.key(), c4) == 1);                             // rounded up, not to 0
    CHECK(weight_of(position_after("e2e4 e7e5").key(), nf3) == 30000);  // fits: untouched
    CHECK(builder.games() == 80001);
}

TEST_CASE("a failed book write leaves nothing behind", "[book][builder]") {
    TempDir dir;
    std::string error;
    CHECK_FALSE(write_polyglot_book(dir.file("no/such/folder/b.bin"), build_from_pgn(GAMES), &error));
    CHECK_THAT(error, Catch::Contains("cannot create"));
    // An existing book survives a failed rewrite.
    REQUIRE(write_polyglot_book(dir.file("b.bin"), build_from_pgn(GAMES)));
    std::filesystem::create_directory(dir.file("b.bin.tmp"));  // makes the temporary file impossible
    CHECK_FALSE(write_polyglot_book(dir.file("b.bin"), {}, &error));
    CHECK(std::filesystem::file_size(dir.file("b.bin")) == 17 * 16);
}
