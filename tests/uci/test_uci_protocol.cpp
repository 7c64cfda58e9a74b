// UCI conformance through a pipe: the real binary, real commands, replies checked line by line.
#include <catch2/catch.hpp>

#include <chrono>
#include <regex>
#include <sstream>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The move of a `bestmove` line, checked for legality in the position given by the moves.
Move legal_bestmove(const std::string& line, const std::string& fen = std::string(START_FEN),
                    const std::string& moves = "") {
    std::istringstream in(line);
    std::string word, move;
    in >> word >> move;
    REQUIRE(word == "bestmove");
    Position pos;
    REQUIRE(pos.set_fen(fen));
    std::istringstream ms(moves);
    for (std::string m; ms >> m;) pos.do_move(parse_uci_move(pos, m));
    Move m = parse_uci_move(pos, move);
    INFO("bestmove " << move << " in " << pos.fen());
    CHECK(m);
    return m;
}

void handshake(EngineProcess& e) {
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000));
}

}  // namespace

TEST_CASE("uci lists identity and options / then uciok", "[uci]") {
    EngineProcess e;
    e.send("uci");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("uciok", 20000, &lines));
    auto has = [&](const std::string& prefix) {
        return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return starts_with(l, prefix); });
    };
    CHECK(has("id name Pythia"));
    CHECK(has("id author "));
    CHECK(has("option name Hash type spin default 16"));
    CHECK(has("option name Threads type spin default 1"));
    CHECK(has("option name Clear Hash type button"));
    CHECK(has("option name Ponder type check"));
    CHECK(has("option name MultiPV type spin default 1"));
    CHECK(has("option name Move Overhead type spin"));
    CHECK(has("option name UCI_ShowWDL type check default false"));
}

TEST_CASE("isready is answered during a search / stop ends go infinite with a legal move", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("position startpos moves e2e4 e7e5");
    e.send("go infinite");
    auto first = e.read_line_starting("info depth", 20000);
    REQUIRE(first);
    const auto before = std::chrono::steady_clock::now();
    e.send("isready");
    std::vector<std::string> lines{*first};
    REQUIRE(e.read_line_starting("readyok", 2000, &lines));
    CHECK(std::chrono::steady_clock::now() - before < std::chrono::milliseconds(1000));
    for (const auto& l : lines) CHECK_FALSE(starts_with(l, "bestmove"));  // infinite: not before stop
    e.send("stop");
    auto best = e.read_line_starting("bestmove", 2000, &lines);
    REQUIRE(best);
    legal_bestmove(*best, std::string(START_FEN), "e2e4 e7e5");
    // The last info line before bestmove is a complete one. After stop it comes again only
    // if the result changed since (the same line twice was a bug: test_uci_gui.cpp).
    auto last =
        std::find_if(lines.rbegin(), lines.rend(), [](const std::string& l) { return starts_with(l, "info depth"); });
    REQUIRE(last != lines.rend());
    CHECK(std::regex_search(*last, std::regex("^info depth \\d+ seldepth \\d+ multipv 1 score (cp|mate) -?\\d+ "
                                              "(.* )?nodes \\d+ nps \\d+ hashfull \\d+ tbhits 0 time \\d+ pv ")));
    e.send("quit");
    CHECK(e.wait_exit(5000) == 0);
}

TEST_CASE("go infinite that has nothing left to search still waits for stop", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");  // mate in one
    e.send("go infinite depth 3");
    for (const auto& l : e.read_for(400)) CHECK_FALSE(starts_with(l, "bestmove"));
    e.send("stop");
    auto best = e.read_line_starting("bestmove", 10000);
    REQUIRE(best);
    CHECK(*best == "bestmove d1d8");
}

TEST_CASE("a stop right after go still answers with a searched move", "[uci]") {
    // The engine used to answer the first legal move (g1f1) when the stop came before the
    // first iteration was done; a depth-1 search finds the mate.
    EngineProcess e;
    handshake(e);
    for (int i = 0; i < 10; ++i) {
        e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\ngo infinite\nstop");
        auto best = e.read_line_starting("bestmove", 10000);
        REQUIRE(best);
        CHECK(*best == "bestmove d1d8");
    }
}

TEST_CASE("ponder: no bestmove until ponderhit / then the clock counts", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("setoption name Ponder value true");
    e.send("position startpos moves d2d4 d7d5 c2c4");
    e.send("go ponder wtime 2000 btime 2000 winc 0 binc 0");
    for (const auto& l : e.read_for(700)) CHECK_FALSE(starts_with(l, "bestmove"));
    e.send("ponderhit");
    auto best = e.read_line_starting("bestmove", 2500);
    REQUIRE(best);
    legal_bestmove(*best, std::string(START_FEN), "d2d4 d7d5 c2c4");

    // A ponder search stopped (the opponent played another move) still answers with bestmove.
    e.send("position startpos moves d2d4 d7d5 c2c4 e7e6 g1f3");
    e.send("go ponder wtime 2000 btime 2000");
    e.read_for(200);
    e.send("stop");
    REQUIRE(e.read_line_starting("bestmove", 10000));
}

TEST_CASE("bad input is reported with info string and changes nothing", "[uci]") {
    EngineProcess e;
    handshake(e);
    std::vector<std::string> lines;
    e.send("flip the board");
    REQUIRE(e.read_line_starting("info string unknown command", 10000));
    e.send("setoption name Hash value lots");
    REQUIRE(e.read_line_starting("info string option Hash takes a number", 10000));
    e.send("setoption name Threads value 100000");
    REQUIRE(e.read_line_starting("info string option Threads must be from", 10000));
    e.send("setoption name NoSuchOption value 1");
    REQUIRE(e.read_line_starting("info string no such option", 10000));
    e.send("position fen not/a/fen w - - 0 1");
    REQUIRE(e.read_line_starting("info string illegal FEN", 10000));
    e.send("position startpos moves e2e4 e7e9 g1f3");
    REQUIRE(e.read_line_starting("info string illegal move 'e7e9'", 10000));
    e.send("d");
    auto fen = e.read_line_starting("Fen: ", 10000);
    REQUIRE(fen);
    CHECK(*fen == "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");  // up to e2e4
    // The refused command leaves no position to search (test_uci_gui.cpp): send a valid one.
    e.send("position startpos moves e2e4");
    e.send("go depth banana");
    REQUIRE(e.read_line_starting("info string go: 'depth' needs a number", 10000));
    e.send("stop");  // the go itself still runs, without a limit
    auto best = e.read_line_starting("bestmove", 10000);
    REQUIRE(best);
    e.send("position startpos");
    e.send("go depth 2 searchmoves a2a3 zz9");
    REQUIRE(e.read_line_starting("info string searchmoves: 'zz9'", 10000));
    best = e.read_line_starting("bestmove", 20000);
    REQUIRE(best);
    CHECK(best->rfind("bestmove a2a3", 0) == 0);
    e.send("isready");
    REQUIRE(e.read_line_starting("readyok", 10000));
}

TEST_CASE("quit during a search exits promptly", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("go infinite");
    REQUIRE(e.read_line_starting("info depth", 20000));
    const auto before = std::chrono::steady_clock::now();
    e.send("quit");
    CHECK(e.wait_exit(3000) == 0);
    CHECK(std::chrono::steady_clock::now() - before < std::chrono::milliseconds(2000));
}

TEST_CASE("end of input ends the engine", "[uci]") {
    EngineProcess e;
    e.send("go depth 3");
    e.close_input();
    CHECK(e.wait_exit(20000) == 0);
}

TEST_CASE("a clock search answers well within its time", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("position startpos moves e2e4");
    const auto before = std::chrono::steady_clock::now();
    e.send("go wtime 1000 btime 1000 winc 0 binc 0");
    auto best = e.read_line_starting("bestmove", 3000);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - before);
    REQUIRE(best);
    legal_bestmove(*best, std::string(START_FEN), "e2e4");
    CHECK(ms.count() < 1500);  // the budget is far less; slack for a loaded machine

    e.send("go movetime 300");
    const auto start2 = std::chrono::steady_clock::now();
    REQUIRE(e.read_line_starting("bestmove", 3000));
    const auto ms2 = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start2);
    CHECK(ms2.count() >= 200);
    CHECK(ms2.count() < 1500);
}

TEST_CASE("go nodes / go depth / go mate", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("go nodes 20000");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("bestmove", 10000, &lines));
    e.send("position fen k7/8/8/8/3K4/8/8/6Q1 w - - 0 1");
    e.send("go mate 4");
    lines.clear();
    REQUIRE(e.read_line_starting("bestmove", 20000, &lines));
    CHECK(lines[lines.size() - 2].find("score mate 4") != std::string::npos);
    e.send("position startpos");
    e.send("go depth 4");
    lines.clear();
    REQUIRE(e.read_line_starting("bestmove", 10000, &lines));
    CHECK(lines[lines.size() - 2].rfind("info depth 4 ", 0) == 0);
}

TEST_CASE("MultiPV and UCI_ShowWDL shape the info lines, option names ignore case", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("setoption name OwnBook value false");  // a book move would be the only one searched
    e.send("setoption name multipv value 3");
    e.send("setoption name uci_showwdl value true");
    e.send("go depth 5");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("bestmove", 10000, &lines));
    int depth5 = 0;
    for (const auto& l : lines)
        if (starts_with(l, "info depth 5 ")) {
            ++depth5;
            CHECK(std::regex_search(l, std::regex(" multipv [123] score cp -?\\d+ wdl \\d+ \\d+ \\d+ nodes ")));
        }
    CHECK(depth5 >= 3);
}

TEST_CASE("a mated or stalemated root answers bestmove 0000", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("position fen 7k/7P/6K1/8/3B4/8/8/8 b - - 0 1");  // checkmated
    e.send("go depth 5");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("bestmove 0000", 20000, &lines));
    CHECK(std::any_of(lines.begin(), lines.end(),
                      [](const std::string& l) { return l.find("score mate 0") != std::string::npos; }));
}

TEST_CASE("extra commands: d / go perft / bench", "[uci]") {
    EngineProcess e;
    e.send("position startpos moves e2e4");
    e.send("d");
    REQUIRE(e.read_line_starting("Key: ", 10000));
    e.send("position startpos");
    e.send("go perft 3");
    auto total = e.read_line_starting("Nodes searched:", 20000);
    REQUIRE(total);
    CHECK(*total == "Nodes searched: 8902");
    e.send("bench 4");
    auto last = e.read_until([](const std::string& l) { return l.find(" nps") != std::string::npos; }, 30000);
    REQUIRE(last);
    CHECK(std::regex_match(*last, std::regex("\\d+ nodes \\d+ nps")));
}

TEST_CASE("Threads / Hash and Clear Hash work between searches", "[uci]") {
    EngineProcess e;
    handshake(e);
    e.send("setoption name Threads value 2");
    e.send("setoption name Hash value 32");
    e.send("setoption name Clear Hash");
    e.send("isready");
    REQUIRE(e.read_line_starting("readyok", 20000));
    e.send("position startpos moves g1f3 d7d5");
    e.send("go movetime 300");
    auto best = e.read_line_starting("bestmove", 3000);
    REQUIRE(best);
    legal_bestmove(*best, std::string(START_FEN), "g1f3 d7d5");
}
