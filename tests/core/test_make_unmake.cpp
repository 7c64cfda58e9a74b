#include <catch2/catch.hpp>

#include <functional>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"

using namespace pythia;

// Walks the move tree and checks, at every node, everything incremental against a fresh
// computation, that gives_check (both ways) foretells the check, and that the move kinds split
// the legal moves exactly.
TEST_CASE("make/unmake keeps every incremental structure exact", "[movegen]") {
    const char* fens[] = {
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    };
    long nodes = 0;
    std::function<void(Position&, int)> walk = [&](Position& pos, int depth) {
        std::string why;
        INFO(pos.fen());
        REQUIRE(pos.is_consistent(&why));
        MoveList all(pos), noisy(pos, GenType::NOISY), quiet(pos, GenType::QUIET);
        REQUIRE(noisy.size() + quiet.size() == all.size());
        for (Move m : noisy) {
            REQUIRE(all.contains(m));
            REQUIRE_FALSE(quiet.contains(m));
            REQUIRE((pos.is_capture(m) || m.promotion() == QUEEN));
        }
        for (Move m : quiet) REQUIRE(all.contains(m));
        if (depth == 0) return;
        const std::string fen = pos.fen();
        const Key key = pos.key();
        const CheckInfo check_info = pos.check_info();
        for (Move m : all) {
            bool check = pos.gives_check(m);
            REQUIRE(pos.gives_check(m, check_info) == check);
            pos.do_move(m);
            ++nodes;
            INFO(move_to_uci(m));
            REQUIRE(check == pos.in_check());
            walk(pos, depth - 1);
            pos.undo_move();
            REQUIRE(pos.fen() == fen);
            REQUIRE(pos.key() == key);
        }
    };
    for (const char* fen : fens) {
        Position pos;
        REQUIRE(pos.set_fen(fen));
        walk(pos, 3);
    }
    CHECK(nodes > 100000);
}

TEST_CASE("null move flips the side and clears en passant", "[movegen]") {
    Position pos;
    REQUIRE(pos.set_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"));
    Key before = pos.key();
    pos.do_null_move();
    CHECK(pos.side_to_move() == BLACK);
    CHECK(pos.ep_square() == SQ_NONE);
    CHECK(pos.is_consistent());
    pos.undo_null_move();
    CHECK(pos.key() == before);
    CHECK(pos.ep_square() == SQ_F6);
}
