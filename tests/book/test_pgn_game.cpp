#include <catch2/catch.hpp>

#include <sstream>

#include "book/pgn_game.h"
#include "engine/core/notation.h"

using namespace pythia;

namespace {

PgnGame read_one(const std::string& text) {
    std::istringstream in(text);
    PgnReader reader(in);
    PgnGame game;
    std::string error;
    REQUIRE(reader.next(game, &error) == PgnReader::Status::GAME);
    return game;
}

}  // namespace

TEST_CASE("the result comes from the Result tag, else from the marker", "[book][pgn]") {
    CHECK(game_result(read_one("[Result \"1-0\"]\n1. e4 1-0")) == GameResult::WHITE_WINS);
    CHECK(game_result(read_one("[Result \"0-1\"]\n1. e4 0-1")) == GameResult::BLACK_WINS);
    CHECK(game_result(read_one("[Result \"1/2-1/2\"]\n1. e4 1/2-1/2")) == GameResult::DRAW);
    CHECK(game_result(read_one("[Result \"*\"]\n1. e4 *")) == GameResult::UNKNOWN);
    CHECK(game_result(read_one("1. e4 0-1")) == GameResult::BLACK_WINS);                  // no tag
    CHECK(game_result(read_one("[Result \"?\"]\n1. e4 1-0")) == GameResult::WHITE_WINS);  // no result in the tag
    CHECK(game_result(read_one("[Result \"1-0\"]\n1. e4 *")) == GameResult::WHITE_WINS);  // the tag wins
    CHECK(game_result(read_one("1. e4")) == GameResult::UNKNOWN);
}

TEST_CASE("a game is replayed from its FEN tag or the start", "[book][pgn]") {
    ReplayedGame g;
    std::string error;
    REQUIRE(replay_game(read_one("1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O Bc5 5. d4 exd4 1-0"), g, &error));
    CHECK(g.start.fen() == START_FEN);
    REQUIRE(g.moves.size() == 10);
    CHECK(move_to_uci(g.moves[6]) == "e1g1");
    CHECK(g.result == GameResult::WHITE_WINS);

    const std::string fen = "4k3/1P6/8/3pP3/8/8/8/R3K2R w KQ d6 0 40";
    REQUIRE(replay_game(read_one("[SetUp \"1\"]\n[FEN \"" + fen + "\"]\n40. exd6 Kd7 41. b8=N+ Kxd6 42. O-O-O+ *"), g,
                        &error));
    CHECK(g.start.fen() == fen);
    REQUIRE(g.moves.size() == 5);
    CHECK(g.moves[0].kind() == Move::EN_PASSANT);
    CHECK(move_to_uci(g.moves[2]) == "b7b8n");
    CHECK(move_to_uci(g.moves[4]) == "e1c1");
    CHECK(g.result == GameResult::UNKNOWN);
}

TEST_CASE("games that cannot be replayed are refused with the reason", "[book][pgn]") {
    ReplayedGame g;
    std::string error;
    CHECK_FALSE(replay_game(read_one("1. e4 e5 2. Ke3 Nc6 *"), g, &error));
    CHECK_THAT(error, Catch::Contains("move 2.Ke3") && Catch::Contains("line 1"));
    CHECK_FALSE(replay_game(read_one("1. d4 d5 2. Nf3 Nf6 3. Nd2 *"), g, &error));  // b1 or f3?
    CHECK_THAT(error, Catch::Contains("3.Nd2"));
    CHECK_FALSE(replay_game(read_one("1. e4 Nf3 *"), g, &error));
    CHECK_THAT(error, Catch::Contains("1...Nf3"));
    CHECK_FALSE(replay_game(read_one("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n1. e4 *"), g, &error));
    CHECK_THAT(error, Catch::Contains("bad FEN tag"));
    CHECK_FALSE(replay_game(read_one("[Variant \"chess960\"]\n1. e4 *"), g, &error));
    CHECK_THAT(error, Catch::Contains("variant 'chess960'"));
    CHECK(replay_game(read_one("[Variant \"Standard\"]\n1. e4 *"), g, &error));
}
