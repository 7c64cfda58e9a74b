#include <catch2/catch.hpp>

#include "engine/core/position.h"

using namespace pythia;

TEST_CASE("FEN round trips", "[fen]") {
    const char* fens[] = {
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 17 42",
        "4k3/8/8/8/8/8/8/4K3 b - - 99 200",
    };
    for (const char* fen : fens) {
        Position pos;
        std::string error;
        REQUIRE(pos.set_fen(fen, &error));
        CHECK(pos.fen() == fen);
        CHECK(pos.is_consistent());
    }
}

TEST_CASE("four-field FENs get clocks 0 and 1", "[fen]") {
    Position pos;
    REQUIRE(pos.set_fen("8/8/8/8/8/8/8/K1k5 b - -"));
    CHECK(pos.fen() == "8/8/8/8/8/8/8/K1k5 b - - 0 1");
}

TEST_CASE("an en passant square nobody can use is dropped", "[fen]") {
    Position pos;
    REQUIRE(pos.set_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"));
    CHECK(pos.ep_square() == SQ_NONE);
    CHECK(pos.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

TEST_CASE("bad FENs are refused with a message naming the problem", "[fen]") {
    struct Bad {
        const char* fen;
        const char* expected_words;  // a fragment the message must contain
    };
    const Bad cases[] = {
        {"", "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "fields"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "piece letter"},
        {"rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "8 squares"},
        {"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 squares"},
        {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece letter"},
        {"rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "fewer than 8 ranks"},
        {"rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8 ranks"},
        {"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "exactly one king"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1", "exactly one king"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"},
        {"4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "first or last rank"},
        {"P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"},
        {"4k3/8/8/8/8/8/8/4K2R b - - 0 1", ""},  // legal: the rook does not check the king
        {"4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "not to move is in check"},
        {"4k3/8/8/8/8/8/8/4K3 w K - 0 1", "no rook on h1"},
        {"4k3/8/8/8/8/8/8/R4K2 w Q - 0 1", "king is not on its start square"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqK - 0 1", "repeated"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling letter"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en passant square"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "right rank"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "double pawn step"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -3 1", "halfmove"},
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 z", "fullmove"},
        {"4k3/8/8/8/8/8/PPPPPPPP/QQQQKQQQ w - - 0 1", "promoted"},
        {"4k3/8/8/8/8/8/PPPPPPPP/PPPPKPPP w - - 0 1", "more than 8 pawns"},
        {"4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1", "double check"},
        {"4k3/8/8/8/8/8/2n3n1/r3K3 w - - 0 1", "more than two"},
    };
    for (const auto& c : cases) {
        INFO(c.fen);
        Position pos;
        REQUIRE(pos.set_fen("8/8/8/3k4/8/8/3K4/8 w - - 5 20"));
        const std::string before = pos.fen();
        std::string error;
        bool ok = pos.set_fen(c.fen, &error);
        if (std::string(c.expected_words).empty()) {
            CHECK(ok);
            continue;
        }
        CHECK_FALSE(ok);
        INFO("message: " << error);
        CHECK(error.find(c.expected_words) != std::string::npos);
        CHECK(pos.fen() == before);  // the previous position stays
    }
}
