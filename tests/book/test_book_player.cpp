#include <catch2/catch.hpp>

#include <filesystem>

#include "book/book_player.h"
#include "book_test_util.h"
#include "engine/core/movegen.h"
#include "engine/core/notation.h"

using namespace pythia;
using namespace pythia::test;

namespace {

// 1.e4 (weight 3) or 1.d4 (1); after 1.e4 only 1...c5; after 1.e4 c5 2.Nf3 only 2...d6.
const std::string GAMES =
    "[Result \"1-0\"]\n1. e4 e5 2. Nf3 Nc6 1-0\n"
    "[Result \"0-1\"]\n1. e4 c5 2. Nf3 d6 0-1\n"
    "[Result \"1/2-1/2\"]\n1. e4 c5 2. Nf3 d6 1/2-1/2\n"
    "[Result \"1/2-1/2\"]\n1. d4 d5 1/2-1/2\n";

BookSettings settings_for(const std::string& file) {
    BookSettings s;
    s.file = file;
    return s;
}

}  // namespace

TEST_CASE("the book step plays a legal book move and says so", "[book][player]") {
    TempDir dir;
    REQUIRE(write_polyglot_book(dir.file("b.bin"), build_from_pgn(GAMES)));
    BookPlayer player(settings_for(dir.file("b.bin")), 42);

    BookDecision d = player.decide(Position());
    REQUIRE(d.move);
    CHECK((move_to_uci(d.move) == "e2e4" || move_to_uci(d.move) == "d2d4"));
    CHECK_THAT(d.info, Catch::StartsWith("book move " + move_to_uci(d.move) + " (weight "));
    CHECK_THAT(d.info, Catch::Contains("of 4") && Catch::Contains("2 book moves, Weighted"));

    player.set_variety(BookVariety::BEST);
    d = player.decide(Position());
    CHECK(move_to_uci(d.move) == "e2e4");
    CHECK(d.info == "book move e2e4 (weight 3 of 4, 75.0%, 2 book moves, Best)");

    // Out of book: no move and nothing to say; the search takes over.
    d = player.decide(position_after("g2g3"));
    CHECK_FALSE(d.move);
    CHECK(d.info.empty());
}

TEST_CASE("OwnBook and BookDepth switch the book off", "[book][player]") {
    TempDir dir;
    REQUIRE(write_polyglot_book(dir.file("b.bin"), build_from_pgn(GAMES)));
    BookPlayer player(settings_for(dir.file("b.bin")), 1);
    Position move2 = position_after("e2e4 c7c5 g1f3");  // Black to play move 2

    CHECK(player.set_own_book(false).empty());
    CHECK_FALSE(player.decide(Position()).move);
    CHECK(player.set_own_book(true) == "book " + dir.file("b.bin") + ": 7 entries");  // opened now
    CHECK(player.decide(Position()).move);
    player.set_own_book(false);
    CHECK(player.set_own_book(true).empty());  // already open: nothing new to say

    player.set_depth(1);  // the book only for move 1
    CHECK(player.decide(position_after("e2e4")).move);
    CHECK_FALSE(player.decide(move2).move);
    player.set_depth(2);
    CHECK(move_to_uci(player.decide(move2).move) == "d7d6");
    player.set_depth(0);
    CHECK_FALSE(player.decide(Position()).move);
}

TEST_CASE("a bad BookFile is reported and the engine plays on without a book", "[book][player]") {
    TempDir dir;
    write_text(dir.file("short.bin"), std::string(20, 'x'));
    REQUIRE(write_polyglot_book(dir.file("b.bin"), build_from_pgn(GAMES)));

    BookPlayer player(settings_for(dir.file("b.bin")), 7);
    std::string message = player.set_file(dir.file("missing.bin"));
    CHECK_THAT(message, Catch::Contains("book refused") && Catch::Contains("missing.bin") &&
                            Catch::Contains("playing without a book"));
    CHECK_FALSE(player.decide(Position()).move);

    CHECK_THAT(player.set_file(dir.file("short.bin")), Catch::Contains("truncated"));
    CHECK_FALSE(player.decide(Position()).move);

    CHECK(player.set_file(dir.file("b.bin")) == "book " + dir.file("b.bin") + ": 7 entries");
    CHECK(player.decide(Position()).move);

    CHECK(player.set_file("<empty>").empty());  // how GUIs send an empty string: no book, no complaint
    CHECK_FALSE(player.decide(Position()).move);

    // A file set while OwnBook is off is opened when the book is switched on, and a failure
    // then is reported with the first decision if nobody asked before.
    player.set_own_book(false);
    CHECK(player.set_file(dir.file("missing.bin")).empty());
    BookPlayer lazy(settings_for(dir.file("missing.bin")), 7);
    BookDecision d = lazy.decide(Position());
    CHECK_FALSE(d.move);
    CHECK_THAT(d.info, Catch::Contains("book refused"));
    CHECK(lazy.decide(Position()).info.empty());  // said once
}

TEST_CASE("illegal book entries are skipped and reported", "[book][player]") {
    TempDir dir;
    Position start;
    write_raw_entries(dir.file("b.bin"), {{start.key(), uint16_t(SQ_E5 | SQ_E2 << 6), 10, 0}});
    BookPlayer player(settings_for(dir.file("b.bin")), 7);
    BookDecision d = player.decide(start);
    CHECK_FALSE(d.move);
    CHECK(d.info == "book: 1 entries of this position hold illegal moves; ignored");
}

TEST_CASE("book option values and the default book file", "[book][player]") {
    CHECK(parse_book_variety("Weighted") == BookVariety::WEIGHTED);
    CHECK(parse_book_variety("best") == BookVariety::BEST);
    CHECK_FALSE(parse_book_variety("random"));
    CHECK(book_variety_name(BookVariety::BEST) == "Best");

    // The default is the first candidate that exists, Debian's gnuchess book being the last.
    auto candidates = default_book_candidates();
    REQUIRE(!candidates.empty());
    CHECK(candidates.back() == DEBIAN_BOOK_FILE);
    std::string chosen = default_book_file();
    bool found = false;
    for (const std::string& c : candidates) {
        if (std::filesystem::is_regular_file(c)) {
            CHECK(chosen == c);
            found = true;
            break;
        }
    }
    if (!found) CHECK(chosen.empty());
    CHECK(default_book_settings().file == chosen);
    CHECK(default_book_settings().own_book == OWN_BOOK_DEFAULT);
}
