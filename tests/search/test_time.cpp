// Time management in real games: a small driver plays Pythia against itself at a very short
// time control, keeping both clocks as a GUI would, and checks that no side ever oversteps
// its time and that every move is legal.
#include <catch2/catch.hpp>

#include <chrono>
#include <sstream>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

struct GameReport {
    int plies = 0;
    int64_t min_clock_left[COLOR_NB] = {1 << 30, 1 << 30};
    bool time_loss = false, illegal = false, no_answer = false;
    std::string moves, last_answer;  // for the failure message
    int64_t longest_move_ms = 0, clock_before_longest = 0;
};

GameReport play_game(int64_t base_ms, int64_t inc_ms, int max_plies, const std::string& opening) {
    EngineProcess white, black;
    EngineProcess* engines[COLOR_NB] = {&white, &black};
    // The handshake is not timed: a sanitized engine on a busy machine may take seconds to start.
    for (EngineProcess* e : engines) {
        e->send("uci");
        REQUIRE(e->read_line_starting("uciok", 60000));
        e->send("ucinewgame");
        e->send("isready");
        REQUIRE(e->read_line_starting("readyok", 60000));
    }
    Position pos;
    std::string moves = opening;
    {
        std::istringstream in(opening);
        for (std::string m; in >> m;) pos.do_move(parse_uci_move(pos, m));
    }
    int64_t clock[COLOR_NB] = {base_ms, base_ms};
    GameReport report;
    while (report.plies < max_plies && !MoveList(pos).empty() && !pos.is_draw(0) && !pos.has_insufficient_material()) {
        const Color us = pos.side_to_move();
        EngineProcess& e = *engines[us];
        e.send("position startpos moves " + moves);
        const auto start = std::chrono::steady_clock::now();
        e.send("go wtime " + std::to_string(clock[WHITE]) + " btime " + std::to_string(clock[BLACK]) + " winc " +
               std::to_string(inc_ms) + " binc " + std::to_string(inc_ms));
        auto best = e.read_line_starting("bestmove", int(clock[us]) + 2000);
        const int64_t used =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
        if (!best) {
            report.no_answer = true;
            break;
        }
        if (used > report.longest_move_ms) {
            report.longest_move_ms = used;
            report.clock_before_longest = clock[us];
        }
        clock[us] -= used;
        report.min_clock_left[us] = std::min(report.min_clock_left[us], clock[us]);
        if (clock[us] < 0) {
            report.time_loss = true;
            break;
        }
        clock[us] += inc_ms;
        report.last_answer = *best;
        std::istringstream in(*best);
        std::string word, uci;
        in >> word >> uci;
        const Move m = parse_uci_move(pos, uci);
        if (!m) {
            report.illegal = true;
            break;
        }
        pos.do_move(m);
        moves += " " + uci;
        ++report.plies;
    }
    for (EngineProcess* e : engines) e->send("quit");
    report.moves = moves;
    return report;
}

}  // namespace

TEST_CASE("a game at 3 s + 30 ms against itself: no time loss / no illegal move", "[time]") {
    const GameReport r = play_game(3000, 30, 160, "e2e4 c7c5 g1f3 d7d6");
    INFO("plies " << r.plies << ", least time left: white " << r.min_clock_left[WHITE] << " ms, black "
                  << r.min_clock_left[BLACK] << " ms; longest move " << r.longest_move_ms << " ms with "
                  << r.clock_before_longest << " ms left; moves " << r.moves << "; last answer " << r.last_answer);
    CHECK_FALSE(r.no_answer);
    CHECK_FALSE(r.illegal);
    CHECK_FALSE(r.time_loss);
    CHECK(r.plies > 20);
}

TEST_CASE("sudden death with two seconds: no time loss", "[time]") {
    const GameReport r = play_game(2000, 0, 80, "d2d4 g8f6 c2c4 e7e6");
    INFO("plies " << r.plies << ", least time left: white " << r.min_clock_left[WHITE] << " ms, black "
                  << r.min_clock_left[BLACK] << " ms; longest move " << r.longest_move_ms << " ms with "
                  << r.clock_before_longest << " ms left; moves " << r.moves << "; last answer " << r.last_answer);
    CHECK_FALSE(r.no_answer);
    CHECK_FALSE(r.illegal);
    CHECK_FALSE(r.time_loss);
}
