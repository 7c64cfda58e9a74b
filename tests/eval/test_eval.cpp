// The evaluation: colour symmetry, agreement of the traced (tuner) form with the fast form,
// the pawn hash table, and the scaling of drawish endings.
#include <catch2/catch.hpp>

#include <cctype>
#include <cmath>
#include <sstream>

#include "engine/uci/bench.h"
#include "eval/evaluate.h"

using namespace pythia;

namespace {

// The same position with colours exchanged (board mirrored top to bottom).
std::string flip_fen(const std::string& fen) {
    std::istringstream in(fen);
    std::string board, side, castling, ep, half = "0", full = "1";
    in >> board >> side >> castling >> ep >> half >> full;
    std::vector<std::string> ranks;
    std::stringstream bs(board);
    for (std::string r; std::getline(bs, r, '/');) ranks.push_back(r);
    std::string flipped;
    for (auto it = ranks.rbegin(); it != ranks.rend(); ++it) {
        if (!flipped.empty()) flipped += '/';
        for (char c : *it) flipped += std::isalpha(c) ? char(std::isupper(c) ? std::tolower(c) : std::toupper(c)) : c;
    }
    std::string rights;
    for (char c : castling) rights += c == '-' ? c : char(std::isupper(c) ? std::tolower(c) : std::toupper(c));
    std::sort(rights.begin(), rights.end());  // "KQkq" order: upper case first
    if (ep != "-") ep[1] = ep[1] == '3' ? '6' : '3';
    return flipped + " " + (side == "w" ? "b" : "w") + " " + rights + " " + ep + " " + half + " " + full;
}

Value eval_of(const std::string& fen) {
    Position pos;
    REQUIRE(pos.set_fen(fen));
    PawnTable pawns;
    return evaluate(pos, pawns);
}

}  // namespace

TEST_CASE("the evaluation is colour-symmetric", "[eval]") {
    for (auto fen : bench_positions()) {
        const std::string f(fen), g = flip_fen(f);
        INFO(f << "  vs  " << g);
        CHECK(eval_of(f) == eval_of(g));
    }
}

TEST_CASE("the traced evaluation agrees with the fast one", "[eval]") {
    PawnTable pawns;
    auto trace = std::make_unique<EvalTrace>();
    for (auto fen : bench_positions()) {
        Position pos;
        REQUIRE(pos.set_fen(fen));
        INFO(fen);
        const Value fast = evaluate(pos, pawns), traced = evaluate_traced(pos, *trace);
        CHECK(fast == traced);
        // The linear model the tuner fits reproduces it (up to rounding and the clamp).
        double linear = traced_value(*trace, PARAMS);
        if (pos.side_to_move() == BLACK) linear = -linear;
        CHECK(std::abs(linear - fast) <= 1.5);
    }
}

TEST_CASE("the pawn hash table returns what a fresh computation gives", "[eval]") {
    PawnTable small(1 << 2);  // tiny: entries are overwritten all the time
    PawnTable fresh;
    for (int round = 0; round < 2; ++round)
        for (auto fen : bench_positions()) {
            Position pos;
            pos.set_fen(fen);
            fresh.clear();
            CHECK(evaluate(pos, small) == evaluate(pos, fresh));
        }
}

TEST_CASE("material and drawish endings", "[eval]") {
    // Side to move's view.
    CHECK(eval_of("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 800);
    CHECK(eval_of("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -800);
    CHECK(eval_of("4k3/8/8/8/8/8/8/3NK3 w - - 0 1") == VALUE_DRAW);  // insufficient material
    CHECK(eval_of("4k3/8/8/8/8/8/8/2NNK3 w - - 0 1") < 100);         // two knights cannot force mate
    // Two pawns up with bishops on opposite colours (d2 dark, e6 light) counts for much less
    // than with bishops on the same colour (d2 and d6 both dark).
    const Value same = eval_of("4k3/8/3b4/8/3P4/2P5/3B4/4K3 w - - 0 1");
    const Value opposite = eval_of("4k3/8/4b3/8/3P4/2P5/3B4/4K3 w - - 0 1");
    CHECK(same > 100);
    CHECK(opposite < same * 3 / 4);
    // Rook against bishop without pawns is scaled towards a draw.
    CHECK(eval_of("4k3/8/8/8/8/8/2b5/R3K3 w - - 0 1") < 200);
}
