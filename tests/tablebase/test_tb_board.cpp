// The tablebase board's move scans (tb_board.h) against the engine's own legal move generator:
// the generator counts and converts moves with them, the verifier and the prober list moves
// with them, and both decide legality once a position (Legality) rather than once a move.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <tuple>

#include "engine/core/movegen.h"
#include "engine/core/random_position.h"
#include "tablebase/probe/tb_board.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

using MoveKey = std::tuple<int, int, int>;  // from, to, promotion (NO_PIECE_TYPE if none)

TbBoard board_of(const Position& pos) {
    PieceOn pieces[MAX_PIECES];
    int n = 0;
    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        const Piece p = pos.piece_on(s);
        if (p != NO_PIECE) pieces[n++] = {color_of(p), type_of(p), s};
    }
    TbBoard b;
    b.set(pieces, n);
    return b;
}

std::set<MoveKey> engine_moves(const Position& pos) {
    std::set<MoveKey> out;
    for (Move m : MoveList(pos))
        out.insert({m.from(), m.to(), m.kind() == Move::PROMOTION ? int(m.promotion()) : int(NO_PIECE_TYPE)});
    return out;
}

// Both scans of `pos` against the engine's moves; returns whether the side to move is in check.
bool check_scans(const Position& pos) {
    const TbBoard b = board_of(pos);
    const Color us = pos.side_to_move();
    INFO(pos.fen());

    std::set<MoveKey> listed, zeroing;
    const int count = for_each_legal_move(b, us, [&](const TbMove& m) {
        listed.insert({m.from, m.to, int(m.promotion)});
        if (m.zeroing(b)) zeroing.insert({m.from, m.to, int(m.promotion)});
        CHECK(b.pieces[m.slot].square == m.from);
        CHECK((m.captured_slot >= 0) == bool(b.by_color[~us] & square_bb(m.to)));
    });
    const std::set<MoveKey> expected = engine_moves(pos);
    CHECK(listed == expected);
    CHECK(count == int(expected.size()));

    const Legality legal(b, us);
    CHECK(legal.in_check() == b.in_check(us));
    int quiet = 0;
    std::set<MoveKey> converted;
    const int scanned = scan_legal_moves(
        b, us, legal, quiet, [](int, Square) { return false; }, [](int, Square) { return 1; },
        [&](const TbMove& m) {
            converted.insert({m.from, m.to, int(m.promotion)});
        });
    CHECK(scanned == count);
    CHECK(converted == zeroing);
    CHECK(quiet == count - int(zeroing.size()));
    return legal.in_check();
}

}  // namespace

TEST_CASE("tablebase move scans list the engine's legal moves on random positions", "[tb][board]") {
    std::mt19937_64 rng(20261130);
    int positions = 0, checks = 0;
    const int per_side = test::light_mode() ? 300 : 1500;  // light: under the sanitizers
    for (const char* pieces :
         {"KQkr", "KRBkr", "KBNkq", "KRPkb", "KPPkp", "KQkpp", "KRRkq", "KBBkn", "KNPkr", "KQRkr", "KQkbn", "KRkpp"}) {
        for (Color stm : {WHITE, BLACK}) {
            for (int i = 0; i < per_side; ++i) {
                const auto pos = random_position(rng, pieces, stm);
                REQUIRE(pos);
                checks += check_scans(*pos);
                ++positions;
            }
        }
    }
    // Checks must be among them, or the evasions were not tested.
    CHECK(checks > positions / 50);
}

TEST_CASE("tablebase move scans: pins, double checks and a king on a checking line", "[tb][board]") {
    for (const char* fen : {
             "k7/8/8/8/8/8/4R3/4K2r w - - 0 1",   // the king may not step along the rook's line
             "k3r3/8/8/8/8/8/4B3/4K3 w - - 0 1",  // a pinned bishop has no move
             "k3r3/8/8/8/8/8/4R3/4K3 w - - 0 1",  // a pinned rook moves on the pin, or takes
             "k7/8/8/8/8/8/1b6/K7 w - - 0 1",     // the king takes its checker
             "4k3/8/8/8/8/5n2/8/4K2r w - - 0 1",  // a double check: king moves only
             "8/8/8/q7/8/8/2P5/4K2k w - - 0 1",   // a single push blocks the check, a double not
             "8/8/8/8/K1P4r/8/8/7k w - - 0 1",    // a pawn pinned along a rank may not push
             "3k4/8/8/8/7b/8/5P2/4K3 w - - 0 1",  // nor one pinned on a diagonal
             "7k/8/8/8/8/8/1p6/2N4K b - - 0 1",   // promotions, capturing and not
         }) {
        Position pos;
        INFO(fen);
        REQUIRE(pos.set_fen(fen));
        check_scans(pos);
    }
}
