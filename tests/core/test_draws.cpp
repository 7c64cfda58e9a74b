#include <catch2/catch.hpp>

#include <sstream>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"

using namespace pythia;

namespace {

void play(Position& pos, const char* moves) {
    std::istringstream in(moves);
    std::string uci;
    while (in >> uci) {
        Move m = parse_uci_move(pos, uci);
        REQUIRE(m);
        pos.do_move(m);
    }
}

bool insufficient(const char* fen) {
    Position pos;
    REQUIRE(pos.set_fen(fen));
    return pos.has_insufficient_material();
}

}  // namespace

TEST_CASE("repetitions", "[draw]") {
    Position pos;
    play(pos, "g1f3 g8f6 f3g1 f6g8");
    CHECK(pos.has_repeated());
    CHECK_FALSE(pos.is_threefold_repetition());
    CHECK(pos.is_draw(5));        // the earlier occurrence lies inside a search begun 5 plies ago
    CHECK_FALSE(pos.is_draw(3));  // but not inside one begun 3 plies ago (it was before the root)
    play(pos, "g1f3 g8f6 f3g1 f6g8");
    CHECK(pos.is_threefold_repetition());
    CHECK(pos.is_draw(0));
    play(pos, "e2e4");  // a pawn move resets everything
    CHECK_FALSE(pos.has_repeated());
}

TEST_CASE("a repetition needs the same side to move and the same rights", "[draw]") {
    Position pos;
    play(pos, "e2e4 e7e5 e1e2 e8e7 e2e1 e7e8");  // same placement, castling rights lost
    CHECK_FALSE(pos.has_repeated());
    play(pos, "e1e2 e8e7 e2e1 e7e8");
    CHECK(pos.has_repeated());
}

TEST_CASE("fifty-move rule", "[draw]") {
    Position pos;
    REQUIRE(pos.set_fen("7k/8/6K1/8/8/8/8/R7 w - - 99 80"));
    CHECK_FALSE(pos.is_fifty_move_draw());
    play(pos, "a1a2");
    CHECK(pos.rule50() == 100);
    CHECK(pos.is_fifty_move_draw());
    pos.undo_move();
    play(pos, "a1a8");  // mate on the hundredth ply is still mate
    CHECK(pos.in_check());
    CHECK(MoveList(pos).empty());
    CHECK_FALSE(pos.is_fifty_move_draw());
}

TEST_CASE("insufficient material", "[draw]") {
    CHECK(insufficient("8/8/8/3k4/8/8/3K4/8 w - - 0 1"));
    CHECK(insufficient("8/8/8/3k4/8/8/3K1N2/8 w - - 0 1"));
    CHECK(insufficient("8/8/8/3k4/8/8/3K1B2/8 w - - 0 1"));
    CHECK(insufficient("8/8/1b6/3k4/8/8/3K1B2/8 w - - 0 1"));        // b6 and f2: both dark squares
    CHECK_FALSE(insufficient("8/8/2b5/3k4/8/8/3K1B2/8 w - - 0 1"));  // c6 light, f2 dark
    CHECK_FALSE(insufficient("8/8/8/3k4/8/8/3KNN2/8 w - - 0 1"));
    CHECK_FALSE(insufficient("8/8/8/3k4/8/8/3K1P2/8 w - - 0 1"));
    CHECK_FALSE(insufficient("8/8/8/3k4/8/8/3K1R2/8 w - - 0 1"));
    CHECK_FALSE(insufficient("8/8/2n5/3k4/8/8/3K1B2/8 w - - 0 1"));
}
