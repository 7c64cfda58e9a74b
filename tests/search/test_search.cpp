// The search finds forced mates, knows draws by repetition and the 50-move rule, and is
// deterministic (the bench node count).
#include <catch2/catch.hpp>

#include <iostream>
#include <sstream>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/uci/bench.h"
#include "eval/nnue/active_network.h"
#include "eval/nnue/embedded_net.h"
#include "search/search.h"
#include "search/see.h"

using namespace pythia;

namespace {

SearchResult search_depth(const std::string& fen, int depth, int threads = 1) {
    Position pos;
    REQUIRE(pos.set_fen(fen));
    Search search;
    search.set_threads(threads);
    SearchLimits limits;
    limits.depth = depth;
    return search.run(pos, limits, SearchOptions{});
}

}  // namespace

TEST_CASE("mates in one to four are found with their exact length", "[search]") {
    // Mate lengths confirmed with Stockfish 15.1.
    struct Case {
        const char* fen;
        int moves;  // mate in this many moves
    };
    const Case cases[] = {
        {"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1},
        {"6rk/6pp/8/3Q2N1/8/8/5PPP/6K1 w - - 0 1", 1},                              // smothered
        {"r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", 2},  // Legal's mate
        {"k7/8/3K4/8/8/8/8/1R6 w - - 0 1", 2},
        {"2k5/8/8/3K4/8/8/8/7R w - - 0 1", 3},
        {"r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3},
        {"r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3},
        {"k7/8/8/8/3K4/8/8/6Q1 w - - 0 1", 4},
    };
    for (const Case& c : cases) {
        INFO(c.fen);
        // The depth leaves room beyond the mate's length: a pruned search (reductions, futility)
        // sees a quiet mating line a few plies later than a full-width one would, and how many
        // depends on the evaluation's details, which this test is not about.
        const SearchResult r = search_depth(c.fen, 2 * c.moves + 8);
        CHECK(r.score == mate_in(2 * c.moves - 1));
        // The line really mates: play it out and find no legal reply at its end.
        Position pos;
        pos.set_fen(c.fen);
        REQUIRE(int(r.pv.size()) >= 2 * c.moves - 1);
        for (int i = 0; i < 2 * c.moves - 1; ++i) {
            REQUIRE(is_legal(pos, r.pv[i]));
            pos.do_move(r.pv[i]);
        }
        CHECK(pos.in_check());
        CHECK(MoveList(pos).empty());
    }
}

TEST_CASE("the mated side sees its fate", "[search]") {
    // Black to move is mated in two at most after any move: every line loses.
    const SearchResult r = search_depth("k7/8/1K6/8/8/8/8/1R6 b - - 0 1", 8);
    CHECK(r.score <= mated_in(4));
    CHECK(r.score >= mated_in(4) - 0);
}

TEST_CASE("perpetual check saves a lost position (repetition draw)", "[search]") {
    // White is two rooks down and must give perpetual check: Qe8+ Kh7 Qh5+ Kg8.
    const SearchResult r = search_depth("6k1/6p1/8/7Q/8/8/rr6/6K1 w - - 0 1", 12);
    CHECK(r.score == VALUE_DRAW);
    CHECK(move_to_uci(r.best) == "h5e8");
}

TEST_CASE("a repetition in the game history counts", "[search]") {
    // The same queen-versus-rook position, but the checks already happened twice in the game:
    // the third Qe8+ ends the game at once as a draw, and the search knows it at depth 1. Only
    // Qe8+ is searched, so that the score does not depend on how the evaluation judges the
    // other moves; without the history the same search gives the evaluation's score instead.
    auto qe8_at_depth_1 = [](Position& pos) {
        SearchLimits limits;
        limits.depth = 1;
        limits.search_moves = {parse_uci_move(pos, "h5e8")};
        Search search;
        return search.run(pos, limits, SearchOptions{}).score;
    };
    Position fresh;
    REQUIRE(fresh.set_fen("6k1/6p1/8/7Q/8/8/rr6/6K1 w - - 0 1"));
    Position pos = fresh;
    for (const char* m : {"h5e8", "g8h7", "e8h5", "h7g8", "h5e8", "g8h7", "e8h5", "h7g8"})
        pos.do_move(parse_uci_move(pos, m));
    CHECK(pos.is_threefold_repetition());
    CHECK(qe8_at_depth_1(pos) == VALUE_DRAW);
    CHECK(qe8_at_depth_1(fresh) != VALUE_DRAW);
}

TEST_CASE("the fifty-move rule turns a won ending into a draw", "[search]") {
    // KQ v K is mate in 8 with a fresh clock, a draw with one ply left and no mate in one.
    const SearchResult fresh = search_depth("7k/8/8/8/8/8/8/K5Q1 w - - 80 80", 14);
    CHECK(fresh.score > 1000);
    const SearchResult late = search_depth("7k/8/8/8/8/8/8/K5Q1 w - - 99 80", 14);
    CHECK(late.score == VALUE_DRAW);
}

TEST_CASE("stalemate is a draw / and the search avoids giving it", "[search]") {
    // Black: king h8 only. White to move must not play Qg6 (stalemate) but mate.
    const SearchResult r = search_depth("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1", 6);
    CHECK(r.score >= VALUE_MATE_IN_MAX_PLY);
}

TEST_CASE("static exchange evaluation", "[search]") {
    auto see = [](const char* fen, const char* move, Value threshold) {
        Position pos;
        REQUIRE(pos.set_fen(fen));
        Move m = parse_uci_move(pos, move);
        REQUIRE(m);
        return see_ge(pos, m, threshold);
    };
    // Rook takes a pawn defended by a pawn: loses the exchange.
    CHECK_FALSE(see("4k3/8/3p4/4p3/8/8/8/4RK2 w - - 0 1", "e1e5", 0));
    CHECK(see("4k3/8/3p4/4p3/8/8/8/4RK2 w - - 0 1", "e1e5", -450));
    // Pawn takes an undefended knight: wins a knight.
    CHECK(see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 300));
    CHECK_FALSE(see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 400));
    // Knight takes a pawn defended by a pawn, with a rook behind: N for two pawns.
    CHECK_FALSE(see("4k3/8/4p3/3p4/8/2N5/8/3RK3 w - - 0 1", "c3d5", 0));
    CHECK(see("4k3/8/4p3/3p4/8/2N5/8/3RK3 w - - 0 1", "c3d5", -120));
    CHECK_FALSE(see("4k3/8/4p3/3p4/8/2N5/8/3RK3 w - - 0 1", "c3d5", -119));
    // An undefended pawn is simply won.
    CHECK(see("4k3/8/8/3p4/8/2N5/8/3RK3 w - - 0 1", "c3d5", 100));
}

TEST_CASE("bench is deterministic and covers at least 40 positions", "[search]") {
    CHECK(bench_positions().size() >= 40);
    for (auto fen : bench_positions()) {
        Position pos;
        std::string error;
        INFO(fen);
        CHECK(pos.set_fen(fen, &error));
    }
    std::ostringstream a, b;
    const BenchResult first = run_bench(5, a), second = run_bench(5, b);
    CHECK(first.nodes == second.nodes);
    CHECK(first.nodes > 1000);
    const std::string text = a.str();
    const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
    CHECK(last == std::to_string(first.nodes) + " nodes " + std::to_string(first.nps) + " nps\n");
}

TEST_CASE("bench searches with the embedded net: its own signature, not the hand-written one", "[search][nnue]") {
    if (nnue::embedded_net_bytes().empty()) {
        std::cout << "PYTHIA_TEST_SKIPPED: this build embeds no net (PYTHIA_EVALFILE is empty)" << std::endl;
        return;
    }
    std::string error;
    REQUIRE(nnue::use_embedded_network(error));
    std::ostringstream out;
    const uint64_t net = run_bench(6, out).nodes, net_again = run_bench(6, out).nodes;
    nnue::use_hand_written_evaluation();
    const uint64_t hand_written = run_bench(6, out).nodes;
    REQUIRE(nnue::use_embedded_network(error));  // back to the build's default for the other tests
    CHECK(net == net_again);
    CHECK(net != hand_written);
}

TEST_CASE("several threads find a forced mate", "[search]") {
    // With threads the mate found need not be the shortest (which helper reaches which depth
    // first depends on the machine's load: a loaded machine once gave a mate in 11 plies where
    // 7 was usual): a mate the 14-ply search can see is required, and its line must really mate.
    const SearchResult r = search_depth("2k5/8/8/3K4/8/8/8/7R w - - 0 1", 14, 2);
    REQUIRE(r.score >= mate_in(13));
    Position pos;
    pos.set_fen("2k5/8/8/3K4/8/8/8/7R w - - 0 1");
    const int plies = VALUE_MATE - r.score;
    REQUIRE(int(r.pv.size()) >= plies);
    for (int i = 0; i < plies; ++i) {
        REQUIRE(is_legal(pos, r.pv[i]));
        pos.do_move(r.pv[i]);
    }
    CHECK(MoveList(pos).empty());
    CHECK(pos.in_check());
}

TEST_CASE("MultiPV returns distinct best lines in order", "[search]") {
    Position pos;
    Search search;
    SearchLimits limits;
    limits.depth = 6;
    SearchOptions options;
    options.multipv = 3;
    std::vector<PvLine> last;
    search.run(pos, limits, options, [&](const std::vector<PvLine>& lines) { last = lines; });
    REQUIRE(last.size() == 3);
    CHECK(last[0].pv[0] != last[1].pv[0]);
    CHECK(last[1].pv[0] != last[2].pv[0]);
    CHECK(last[0].pv[0] != last[2].pv[0]);
    CHECK(last[0].score >= last[1].score);
    CHECK(last[1].score >= last[2].score);
}
