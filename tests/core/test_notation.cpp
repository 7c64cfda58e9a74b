#include <catch2/catch.hpp>

#include <fstream>
#include <functional>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"

using namespace pythia;

namespace {

Position from_fen(const char* fen) {
    Position pos;
    REQUIRE(pos.set_fen(fen));
    return pos;
}

std::string san_of(const char* fen, const char* uci) {
    Position pos = from_fen(fen);
    Move m = parse_uci_move(pos, uci);
    REQUIRE(m);
    return move_to_san(pos, m);
}

}  // namespace

TEST_CASE("UCI move text", "[notation]") {
    Position pos;
    CHECK(move_to_uci(parse_uci_move(pos, "e2e4")) == "e2e4");
    CHECK_FALSE(parse_uci_move(pos, "e2e5"));
    CHECK_FALSE(parse_uci_move(pos, "e7e5"));  // not White's pawn
    CHECK_FALSE(parse_uci_move(pos, "junk"));
    CHECK_FALSE(parse_uci_move(pos, ""));
    CHECK(move_to_uci(Move::none()) == "0000");

    Position castle = from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    Move oo = parse_uci_move(castle, "e1g1");
    REQUIRE(oo);
    CHECK(oo.kind() == Move::CASTLING);

    Position promo = from_fen("8/P7/8/8/8/8/8/k1K5 w - - 0 1");
    Move q = parse_uci_move(promo, "a7a8q");
    REQUIRE(q);
    CHECK(q.promotion() == QUEEN);
    CHECK(parse_uci_move(promo, "a7a8N").promotion() == KNIGHT);
    CHECK_FALSE(parse_uci_move(promo, "a7a8"));  // a promotion needs its piece
}

TEST_CASE("SAN printing", "[notation]") {
    CHECK(san_of(std::string(START_FEN).c_str(), "g1f3") == "Nf3");
    CHECK(san_of(std::string(START_FEN).c_str(), "e2e4") == "e4");
    // Disambiguation by file, by rank, and by both.
    CHECK(san_of("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "a1d1") == "Rad1");
    CHECK(san_of("4k3/8/8/R7/8/8/4K3/R7 w - - 0 1", "a1a3") == "R1a3");
    CHECK(san_of("4k3/8/8/R7/8/8/4K3/R7 w - - 0 1", "a5a3") == "R5a3");
    CHECK(san_of("8/8/k7/8/4Q2Q/8/8/K6Q w - - 0 1", "h4e1") == "Qh4e1");
    CHECK(san_of("8/8/k7/8/4Q2Q/8/8/K6Q w - - 0 1", "e4e1") == "Qee1");
    // Promotions, checks and mates.
    CHECK(san_of("8/P7/8/8/8/8/8/k1K5 w - - 0 1", "a7a8q") == "a8=Q#");
    CHECK(san_of("8/P7/8/8/8/8/8/k1K5 w - - 0 1", "a7a8r") == "a8=R#");
    CHECK(san_of("8/P7/8/8/8/8/8/k1K5 w - - 0 1", "a7a8n") == "a8=N");
    CHECK(san_of("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "a1a8") == "Ra8+");
    CHECK(san_of("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1") == "O-O-O");
    CHECK(san_of("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", "h5f7") == "Qxf7#");
    // En passant is a pawn capture like any other.
    CHECK(san_of("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6") == "exf6");
}

TEST_CASE("SAN parsing", "[notation]") {
    Position pos;
    CHECK(move_to_uci(parse_san_move(pos, "Nf3")) == "g1f3");
    CHECK(move_to_uci(parse_san_move(pos, "e4")) == "e2e4");
    CHECK(move_to_uci(parse_san_move(pos, "e4!?")) == "e2e4");
    CHECK_FALSE(parse_san_move(pos, "e5"));
    CHECK_FALSE(parse_san_move(pos, "Nd2"));  // d2 holds a white pawn
    CHECK_FALSE(parse_san_move(pos, "Kxe2"));
    CHECK_FALSE(parse_san_move(pos, ""));
    CHECK_FALSE(parse_san_move(pos, "O-O"));

    Position rooks = from_fen("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
    CHECK_FALSE(parse_san_move(rooks, "Rd1"));  // ambiguous
    CHECK(move_to_uci(parse_san_move(rooks, "Rhd1")) == "h1d1");

    Position promo = from_fen("8/P7/8/8/8/8/8/k1K5 w - - 0 1");
    CHECK(move_to_uci(parse_san_move(promo, "a8=Q#")) == "a7a8q");
    CHECK(move_to_uci(parse_san_move(promo, "a8N")) == "a7a8n");
    CHECK_FALSE(parse_san_move(promo, "a8"));

    Position castle = from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    CHECK(move_to_uci(parse_san_move(castle, "O-O")) == "e1g1");
    CHECK(move_to_uci(parse_san_move(castle, "0-0-0")) == "e1c1");
}

TEST_CASE("SAN round trip over every move of the perft suite to depth 2", "[notation]") {
    std::ifstream in(PYTHIA_TEST_DATA_DIR "/perftsuite.epd");
    REQUIRE(in.good());
    std::string line;
    int moves_checked = 0;
    std::function<void(Position&, int)> walk = [&](Position& pos, int depth) {
        for (Move m : MoveList(pos)) {
            std::string san = move_to_san(pos, m);
            INFO(pos.fen() << " " << move_to_uci(m) << " " << san);
            REQUIRE(parse_san_move(pos, san) == m);
            ++moves_checked;
            if (depth > 1) {
                pos.do_move(m);
                walk(pos, depth - 1);
                pos.undo_move();
            }
        }
    };
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        Position pos;
        REQUIRE(pos.set_fen(line.substr(0, line.find(';'))));
        walk(pos, 2);
    }
    CHECK(moves_checked > 10000);
}
