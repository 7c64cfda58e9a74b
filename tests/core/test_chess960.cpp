// Chess960 (Fischer Random): castling FEN in X-FEN and Shredder-FEN, castling moves as king
// takes rook, make/unmake, and perft against published counts checked with Stockfish.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/perft.h"

using namespace pythia;

namespace {

Position chess960(const std::string& fen) {
    Position pos;
    std::string error;
    INFO(fen);
    INFO(error);
    REQUIRE(pos.set_fen(fen, &error, true));
    return pos;
}

std::vector<std::string> uci_moves(const Position& pos) {
    std::vector<std::string> out;
    for (Move m : MoveList(pos)) out.push_back(move_to_uci(m));
    return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

#ifdef NDEBUG
constexpr uint64_t NODE_BUDGET = 40'000'000;  // every count of the suite, depth 5 included
#else
constexpr uint64_t NODE_BUDGET = 300'000;
#endif

}  // namespace

TEST_CASE("chess960 perft: 28 start-derived positions to depth 5", "[perft][chess960]") {
    std::ifstream in(PYTHIA_TEST_DATA_DIR "/chess960.epd");
    REQUIRE(in.good());
    int positions = 0, depth5 = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string fen, part;
        std::getline(fields, fen, ';');
        Position pos = chess960(fen);
        ++positions;
        while (std::getline(fields, part, ';')) {
            std::istringstream p(part);
            char d;
            int depth;
            uint64_t expected;
            REQUIRE((p >> d >> depth >> expected));
            if (expected > NODE_BUDGET) continue;
            INFO(fen << " depth " << depth);
            CHECK(perft(pos, depth) == expected);
            depth5 += depth == 5;
        }
        CHECK(pos.fen() == chess960(fen).fen());  // perft left the position as it was
    }
    CHECK(positions >= 20);
#ifdef NDEBUG
    CHECK(depth5 == positions);
#endif
}

TEST_CASE("chess960 perft: castling corner cases, counts from Stockfish", "[perft][chess960]") {
    struct Case {
        const char* fen;
        std::vector<uint64_t> counts;  // depth 1, 2, ...
    };
    const Case cases[] = {
        // The castling rook on b1 shields c1 from the queen on a1: no O-O-O (king stays on c1).
        {"4k3/8/8/8/8/8/8/qRK5 w B - 0 1", {4, 65, 876, 19079}},
        {"4k3/8/8/8/8/8/8/1RK5 w B - 0 1", {13, 58, 1030, 6094}},
        // The king is on its destination already; the rook on the king's destination.
        {"4k3/8/8/8/8/8/8/6KR w H - 0 1", {12, 53, 948, 5571}},
        {"4k3/8/8/8/8/8/8/1K4R1 w G - 0 1", {18, 78, 1428, 7755}},
        {"1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", {25, 525, 12297, 272627}},
        {"rk5r/8/8/8/8/8/8/RK5R b HAha - 0 1", {24, 479, 11099, 242723}},
    };
    for (const auto& c : cases) {
        Position pos = chess960(c.fen);
        for (size_t d = 0; d < c.counts.size(); ++d) {
            INFO(c.fen << " depth " << d + 1);
            CHECK(perft(pos, int(d + 1)) == c.counts[d]);
        }
    }
    CHECK_FALSE(has(uci_moves(chess960("4k3/8/8/8/8/8/8/qRK5 w B - 0 1")), "c1b1"));
    CHECK(has(uci_moves(chess960("4k3/8/8/8/8/8/8/1RK5 w B - 0 1")), "c1b1"));
}

TEST_CASE("chess960 FEN: X-FEN and Shredder-FEN name the same rights, X-FEN is written", "[fen][chess960]") {
    // White rooks f1 and h1 around the king on g1: H = K (outermost king-side), F = Q.
    const Position shredder = chess960("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    const Position xfen = chess960("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9");
    CHECK(shredder.fen() == "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9");
    CHECK(xfen.fen() == shredder.fen());
    CHECK(xfen.key() == shredder.key());
    CHECK(shredder.castling_rook_square(WHITE_OO) == SQ_H1);
    CHECK(shredder.castling_rook_square(WHITE_OOO) == SQ_F1);
    CHECK(shredder.castling_rook_square(BLACK_OOO) == SQ_F8);

    // A right of an inner rook, with another rook further out: X-FEN writes its file.
    const Position inner = chess960("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1");
    CHECK(inner.castling_rook_square(WHITE_OOO) == SQ_B1);
    CHECK(inner.fen() == "4k3/8/8/8/8/8/8/RR2K3 w B - 0 1");
    const Position outer = chess960("4k3/8/8/8/8/8/8/RR2K3 w A - 0 1");
    CHECK(outer.fen() == "4k3/8/8/8/8/8/8/RR2K3 w Q - 0 1");
    // The keys hash the rights, not the rooks' files (as Polyglot's): within one game the
    // castling rooks are fixed by its start position, so no two positions of it collide so.
    CHECK(outer.key() == inner.key());
    for (const Position& p : {shredder, xfen, inner, outer}) CHECK(chess960(p.fen()).fen() == p.fen());

    // A standard position read as Chess960 keeps its FEN; its castling moves are king takes rook.
    const Position standard960 = chess960("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    CHECK(standard960.fen() == "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    CHECK(has(uci_moves(standard960), "e1h1"));
    CHECK(has(uci_moves(standard960), "e1a1"));
    CHECK_FALSE(has(uci_moves(standard960), "e1g1"));
    Position standard;
    REQUIRE(standard.set_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"));
    CHECK(has(uci_moves(standard), "e1g1"));
    CHECK_FALSE(has(uci_moves(standard), "e1h1"));
    CHECK(standard.key() == standard960.key());
    // Shredder letters naming the corners are standard chess too.
    Position shredder_standard;
    REQUIRE(shredder_standard.set_fen("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1"));
    CHECK(shredder_standard.fen() == standard.fen());
}

TEST_CASE("chess960 FEN: bad castling fields are refused with a reason", "[fen][chess960]") {
    struct Bad {
        const char* fen;
        bool chess960;
        const char* words;
    };
    const Bad cases[] = {
        {"4k3/8/8/8/8/8/8/RK6 w A - 0 1", false, "UCI_Chess960"},    // king off e1 without Chess960
        {"4k3/8/8/8/8/8/8/1R2K3 w B - 0 1", false, "UCI_Chess960"},  // rook off the corner
        {"4k3/8/8/8/8/8/8/1R2K3 w C - 0 1", true, "no rook on c1"},
        {"4k3/8/8/8/8/8/8/4K3 w K - 0 1", true, "no rook on the king's side"},
        {"4k3/8/8/8/8/8/4K3/R7 w Q - 0 1", true, "back rank"},
        {"4k3/8/8/8/8/8/8/R3K2R w QA - 0 1", true, "repeated"},
        {"4k3/8/8/8/8/8/8/R3K2R w KI - 0 1", true, "castling letter"},
        {"4k3/8/8/8/8/8/8/R3K2R w E - 0 1", true, "no rook on e1"},
    };
    for (const auto& c : cases) {
        INFO(c.fen);
        Position pos;
        const std::string before = pos.fen();
        std::string error;
        CHECK_FALSE(pos.set_fen(c.fen, &error, c.chess960));
        INFO("message: " << error);
        CHECK(error.find(c.words) != std::string::npos);
        CHECK(pos.fen() == before);
    }
}

TEST_CASE("chess960 castling: king takes rook in UCI, O-O in SAN, exact make/unmake", "[movegen][chess960]") {
    // King b1, rook g1: the king lands where the rook stood.
    Position pos = chess960("1k5r/5p2/8/8/8/8/5P2/1K4R1 w Gh - 0 1");
    Move oo = parse_uci_move(pos, "b1g1");
    REQUIRE(oo);
    CHECK(oo.kind() == Move::CASTLING);
    CHECK(move_to_san(pos, oo) == "O-O");
    CHECK(parse_san_move(pos, "O-O") == oo);
    const std::string fen = pos.fen();
    const Key key = pos.key();
    pos.do_move(oo);
    CHECK(pos.fen() == "1k5r/5p2/8/8/8/8/5P2/5RK1 b k - 1 1");
    std::string why;
    CHECK(pos.is_consistent(&why));
    Move black = parse_uci_move(pos, "b8h8");
    REQUIRE(black);
    pos.do_move(black);
    CHECK(pos.fen() == "5rk1/5p2/8/8/8/8/5P2/5RK1 w - - 2 2");
    CHECK(pos.is_consistent(&why));
    pos.undo_move();
    pos.undo_move();
    CHECK(pos.fen() == fen);
    CHECK(pos.key() == key);

    // King g1, rook h1: the king stays, only the rook moves; g1h1 is still a move.
    Position still = chess960("4k3/8/8/8/8/8/8/6KR w H - 0 1");
    Move castle = parse_uci_move(still, "g1h1");
    REQUIRE(castle);
    CHECK(castle.is_ok());
    still.do_move(castle);
    CHECK(still.fen() == "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    CHECK(still.is_consistent(&why));

    // A castling move gives check when the rook lands on the king's file.
    Position check = chess960("5k2/8/8/8/8/8/8/1K4R1 w G - 0 1");
    Move c = parse_uci_move(check, "b1g1");
    REQUIRE(c);
    CHECK(check.gives_check(c));
}

// Every node of a tree walk from Chess960 positions: incremental state equals a fresh one,
// and unmake restores FEN and key exactly.
TEST_CASE("chess960 make/unmake keeps every incremental structure exact", "[movegen][chess960]") {
    const char* fens[] = {
        "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
        "rk5r/8/8/8/8/8/8/RK5R b HAha - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    };
    long castles = 0;
    std::function<void(Position&, int)> walk = [&](Position& pos, int depth) {
        std::string why;
        INFO(pos.fen());
        REQUIRE(pos.is_consistent(&why));
        if (depth == 0) return;
        const std::string fen = pos.fen();
        const Key key = pos.key();
        const CheckInfo check_info = pos.check_info();
        for (Move m : MoveList(pos)) {
            const bool check = pos.gives_check(m);
            REQUIRE(pos.gives_check(m, check_info) == check);
            castles += m.kind() == Move::CASTLING;
            pos.do_move(m);
            INFO(move_to_uci(m));
            REQUIRE(check == pos.in_check());
            walk(pos, depth - 1);
            pos.undo_move();
            REQUIRE(pos.fen() == fen);
            REQUIRE(pos.key() == key);
        }
    };
    for (const char* fen : fens) {
        Position pos = chess960(fen);
        walk(pos, 3);
    }
    CHECK(castles > 500);
}
