#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "book/book_settings.h"
#include "book/opening_book.h"
#include "book_test_util.h"
#include "engine/core/notation.h"

using namespace pythia;
using namespace pythia::test;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

const std::string OPENINGS = PYTHIA_SOURCE_DIR "/book/openings.pgn";

}  // namespace

TEST_CASE("the repertoire book/openings.pgn is all legal", "[book][default]") {
    std::ifstream in(OPENINGS);
    REQUIRE(in.good());
    PgnReader reader(in);
    PgnGame game;
    ReplayedGame replayed;
    std::string error;
    int games = 0;
    for (PgnReader::Status s; (s = reader.next(game, &error)) != PgnReader::Status::END; ++games) {
        INFO(error);
        REQUIRE(s == PgnReader::Status::GAME);
        INFO(game.description());
        REQUIRE(replay_game(game, replayed, &error));
        CHECK(replayed.moves.size() >= 8);
    }
    CHECK(games >= 50);
}

TEST_CASE("the build's own book is the first default and is made from the repertoire", "[book][default]") {
    // The book beside the binary comes first: for build/<preset>/pythia, the book the build made.
    const std::filesystem::path binary_dir = std::filesystem::path(PYTHIA_BINARY).parent_path();
    auto candidates = default_book_candidates(binary_dir);
    REQUIRE(candidates.size() == 2);  // the build's book, then Debian's
    const std::string own = candidates[0];
    CHECK(own == PYTHIA_BUILD_BOOK);
    REQUIRE(std::filesystem::is_regular_file(own));  // made by the build (target pythia_default_book)

    // Up to date: exactly the book that the builder makes of the repertoire now.
    CHECK(read_raw_entries(own) == build_from_pgn(read_file(OPENINGS)));

    OpeningBook book;
    REQUIRE(book.open(own));
    BookProbe start = book.probe(Position());
    CHECK(start.illegal == 0);
    REQUIRE(start.moves.size() >= 2);
    CHECK(move_to_uci(start.moves[0].move) == "e2e4");
    CHECK(move_to_uci(start.moves[1].move) == "d2d4");
}
