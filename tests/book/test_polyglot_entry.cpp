#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "book/polyglot_entry.h"
#include "book_test_util.h"
#include "engine/core/movegen.h"
#include "engine/core/notation.h"

using namespace pythia;
using pythia::test::position_after;

TEST_CASE("entries are 16 big-endian bytes: key, move, weight, learn", "[book][format]") {
    PolyglotEntry e{0x0123456789ABCDEFULL, 0x031C, 0xBEEF, 0xCAFEF00D};
    uint8_t bytes[16];
    write_polyglot_entry(e, bytes);
    const uint8_t expected[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,
                                  0x03, 0x1C, 0xBE, 0xEF, 0xCA, 0xFE, 0xF0, 0x0D};
    for (int i = 0; i < 16; ++i) CHECK(bytes[i] == expected[i]);
    CHECK(read_polyglot_entry(bytes) == e);
}

TEST_CASE("moves are encoded as Polyglot writes them", "[book][format]") {
    Position start;
    // to in bits 0-5, from in bits 6-11: e2e4 = 28 | 12 << 6 (the first entry of every book).
    CHECK(encode_polyglot_move(parse_uci_move(start, "e2e4")) == 0x031C);
    CHECK(encode_polyglot_move(parse_uci_move(start, "g1f3")) == (21 | 6 << 6));

    // Castling is stored as the king taking its own rook.
    Position castle;
    REQUIRE(castle.set_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"));
    CHECK(encode_polyglot_move(parse_uci_move(castle, "e1g1")) == (SQ_H1 | SQ_E1 << 6));
    CHECK(encode_polyglot_move(parse_uci_move(castle, "e1c1")) == (SQ_A1 | SQ_E1 << 6));
    REQUIRE(castle.set_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"));
    CHECK(encode_polyglot_move(parse_uci_move(castle, "e8g8")) == (SQ_H8 | SQ_E8 << 6));
    CHECK(encode_polyglot_move(parse_uci_move(castle, "e8c8")) == (SQ_A8 | SQ_E8 << 6));

    // Promotion piece in bits 12-14: knight 1, bishop 2, rook 3, queen 4.
    Position promo;
    REQUIRE(promo.set_fen("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1"));
    const int from = SQ_A7 << 6;
    CHECK(encode_polyglot_move(parse_uci_move(promo, "a7a8n")) == (SQ_A8 | from | 1 << 12));
    CHECK(encode_polyglot_move(parse_uci_move(promo, "a7a8b")) == (SQ_A8 | from | 2 << 12));
    CHECK(encode_polyglot_move(parse_uci_move(promo, "a7a8r")) == (SQ_A8 | from | 3 << 12));
    CHECK(encode_polyglot_move(parse_uci_move(promo, "a7b8q")) == (SQ_B8 | from | 4 << 12));
}

TEST_CASE("decoding turns king-takes-rook into castling and checks legality", "[book][format]") {
    Position pos;
    REQUIRE(pos.set_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"));
    Move oo = decode_polyglot_move(pos, SQ_H1 | SQ_E1 << 6);
    CHECK(oo.kind() == Move::CASTLING);
    CHECK(move_to_uci(oo) == "e1g1");
    CHECK(move_to_uci(decode_polyglot_move(pos, SQ_A1 | SQ_E1 << 6)) == "e1c1");
    // The engine's own form of castling (e1g1) is not what Polyglot writes: refused.
    CHECK_FALSE(decode_polyglot_move(pos, SQ_G1 | SQ_E1 << 6));

    // Without the right, e1h1 is no move at all.
    REQUIRE(pos.set_fen("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1"));
    CHECK_FALSE(decode_polyglot_move(pos, SQ_H1 | SQ_E1 << 6));

    // A rook standing on e1 that goes to h1 is a plain rook move.
    REQUIRE(pos.set_fen("3k4/8/8/8/8/8/8/K3R3 w - - 0 1"));
    Move rook = decode_polyglot_move(pos, SQ_H1 | SQ_E1 << 6);
    CHECK(rook.kind() == Move::NORMAL);
    CHECK(move_to_uci(rook) == "e1h1");

    // En passant is an ordinary from/to pair in the book.
    Position ep = position_after("e2e4 a7a6 e4e5 d7d5");
    Move capture = decode_polyglot_move(ep, SQ_D6 | SQ_E5 << 6);
    CHECK(capture.kind() == Move::EN_PASSANT);

    Position start;
    CHECK_FALSE(decode_polyglot_move(start, SQ_E5 | SQ_E2 << 6));  // not a legal move
    CHECK_FALSE(decode_polyglot_move(start, 0x031C | 0x8000));     // unused bit set
    CHECK_FALSE(decode_polyglot_move(start, 0x031C | 4 << 12));    // promotion bits on e2e4
    CHECK_FALSE(decode_polyglot_move(start, 0));                   // a1a1
}

TEST_CASE("every legal move survives encoding and decoding", "[book][format]") {
    std::ifstream in(PYTHIA_TEST_DATA_DIR "/perftsuite.epd");
    REQUIRE(in.good());
    std::string line;
    int positions = 0;
    while (std::getline(in, line) && positions < 200) {
        if (line.empty() || line[0] == '#') continue;
        Position pos;
        REQUIRE(pos.set_fen(line.substr(0, line.find(';'))));
        ++positions;
        std::set<uint16_t> codes;
        for (Move m : MoveList(pos)) {
            uint16_t raw = encode_polyglot_move(m);
            INFO(pos.fen() << " " << move_to_uci(m));
            CHECK(decode_polyglot_move(pos, raw) == m);
            CHECK(codes.insert(raw).second);  // no two moves share a code
        }
    }
    CHECK(positions > 100);
}
