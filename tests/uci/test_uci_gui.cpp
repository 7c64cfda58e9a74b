// What GUIs and tournament managers rely on, through the pipe to the real binary: the version
// in `id name`, no move for a position that was refused, analysis not narrowed by the book,
// one final info line, the time after ponderhit, and Chess960 (UCI_Chess960).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool contains(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

void handshake(EngineProcess& e) {
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000));
}

// The value after `key` in an info line (-1 if absent).
int64_t field(const std::string& line, const std::string& key) {
    std::istringstream in(line);
    for (std::string w; in >> w;)
        if (w == key && in >> w) return std::stoll(w);
    return -1;
}

std::vector<std::string> info_lines(const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (const auto& l : lines)
        if (starts_with(l, "info depth")) out.push_back(l);
    return out;
}

// An info line without its counters, which move on between two reports of the same result.
std::string without_counters(const std::string& line) {
    return std::regex_replace(line, std::regex(" (nodes|nps|hashfull|tbhits|time) \\d+"), "");
}

}  // namespace

TEST_CASE("id name carries the version and the commit", "[uci][gui]") {
    EngineProcess e;
    e.send("uci");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("uciok", 20000, &lines));
    REQUIRE(!lines.empty());
    // "Pythia 1.0.0 (abc1234)", "-dirty" with local changes, from a git checkout; the
    // version alone from a tarball.
    const bool checkout = std::filesystem::exists(PYTHIA_SOURCE_DIR "/.git");
    const std::string pattern = checkout ? "id name Pythia \\d+\\.\\d+\\.\\d+ \\([0-9a-f]{7,}(-dirty)?\\)"
                                         : "id name Pythia \\d+\\.\\d+\\.\\d+";
    CHECK(std::regex_match(lines[0], std::regex(pattern)));
    e.send("bench 1");
    auto header = e.read_line_starting("Pythia ", 20000);
    REQUIRE(header);
    CHECK(header->find(lines[0].substr(std::string("id name ").size())) == 0);
    CHECK(header->find(" bench: ") != std::string::npos);
    REQUIRE(e.read_until([](const std::string& l) { return l.find(" nps") != std::string::npos; }, 60000));
}

TEST_CASE("after a refused position, go answers bestmove 0000 at once with the reason", "[uci][gui]") {
    EngineProcess e;
    handshake(e);
    e.send("ucinewgame");
    // The side not to move is in check: refused. The start position (after ucinewgame) must
    // not be searched in its place.
    e.send("position fen 4k3/4R3/8/8/8/8/8/4K3 w - - 0 1");
    REQUIRE(e.read_line_starting("info string illegal FEN", 10000));
    for (const char* go : {"go depth 5", "go wtime 1000 btime 1000", "go infinite"}) {
        INFO(go);
        std::vector<std::string> lines;
        const auto before = std::chrono::steady_clock::now();
        e.send(go);
        auto best = e.read_line_starting("bestmove", 2000, &lines);
        REQUIRE(best);
        CHECK(*best == "bestmove 0000");
        CHECK(std::chrono::steady_clock::now() - before < std::chrono::milliseconds(1000));
        CHECK(contains(lines, "info string go: no position (illegal FEN"));
        CHECK_FALSE(contains(lines, "info depth"));
    }
    // An illegal move in the list refuses the command too: the GUI's position is unknown.
    e.send("position startpos moves e2e4 e7e5 e1e3");
    REQUIRE(e.read_line_starting("info string illegal move 'e1e3'", 10000));
    e.send("go depth 3");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("bestmove", 2000, &lines) == std::optional<std::string>("bestmove 0000"));
    CHECK(contains(lines, "no position (illegal move 'e1e3'"));
    e.send("go perft 1");
    REQUIRE(e.read_line_starting("info string go perft: no position", 5000));
    // A valid position ends it.
    e.send("position startpos moves e2e4 e7e5");
    e.send("go depth 3");
    auto best = e.read_line_starting("bestmove", 20000);
    REQUIRE(best);
    Position pos;
    pos.do_move(parse_uci_move(pos, "e2e4"));
    pos.do_move(parse_uci_move(pos, "e7e5"));
    CHECK(parse_uci_move(pos, best->substr(9, best->find(' ', 9) - 9)));
}

TEST_CASE("MultiPV above 1 or UCI_AnalyseMode skip the book", "[uci][gui][book]") {
    EngineProcess e;
    handshake(e);
    // The start position is in the default book (the book test checks so).
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    e.send("go movetime 500");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("bestmove", 20000, &lines));
    CHECK_FALSE(contains(lines, "book move"));
    int deepest = 0;
    for (const auto& l : info_lines(lines)) deepest = std::max<int>(deepest, int(field(l, "depth")));
    int lines_at_deepest = 0;
    for (const auto& l : info_lines(lines)) lines_at_deepest += field(l, "depth") == deepest - 1;
    CHECK(lines_at_deepest >= 3);  // three different root moves at the last completed depth
    CHECK(contains(lines, " multipv 3 "));

    e.send("setoption name MultiPV value 1");
    e.send("setoption name UCI_AnalyseMode value true");
    lines.clear();
    e.send("go movetime 300");
    REQUIRE(e.read_line_starting("bestmove", 20000, &lines));
    CHECK_FALSE(contains(lines, "book move"));

    e.send("setoption name UCI_AnalyseMode value false");  // and the book is back for play
    lines.clear();
    e.send("go movetime 300");
    REQUIRE(e.read_line_starting("bestmove", 20000, &lines));
    CHECK(contains(lines, "info string book move"));
}

TEST_CASE("the last info line before bestmove is not the previous one again", "[uci][gui]") {
    EngineProcess e;
    handshake(e);
    e.send("setoption name OwnBook value false");
    const char* searches[] = {"go depth 6", "go movetime 400", "go nodes 30000", "go wtime 2000 btime 2000"};
    for (const char* go : searches) {
        for (const char* position : {"position startpos", "position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
                                     "position startpos moves e2e4 c7c5 g1f3 d7d6"}) {
            INFO(go << " / " << position);
            e.send(position);
            e.send(go);
            std::vector<std::string> lines;
            REQUIRE(e.read_line_starting("bestmove", 20000, &lines));
            const auto info = info_lines(lines);
            REQUIRE(!info.empty());
            for (size_t i = 1; i < info.size(); ++i) CHECK(without_counters(info[i]) != without_counters(info[i - 1]));
        }
    }
}

TEST_CASE("after ponderhit the time field goes on from go, and nps is nodes over that time", "[uci][gui]") {
    EngineProcess e;
    handshake(e);
    e.send("setoption name Ponder value true");
    e.send("setoption name OwnBook value false");
    e.send("position startpos moves d2d4 d7d5 c2c4");
    e.send("go ponder wtime 30000 btime 30000");
    std::vector<std::string> lines = e.read_for(800);
    for (const auto& l : lines) CHECK_FALSE(starts_with(l, "bestmove"));
    e.send("ponderhit");
    REQUIRE(e.read_line_starting("bestmove", 10000, &lines));  // at most 4.3 s after ponderhit
    const auto info = info_lines(lines);
    REQUIRE(info.size() >= 2);
    int64_t last_time = 0, last_nodes = 0;
    bool after_ponderhit = false;
    for (const auto& l : info) {
        INFO(l);
        const int64_t time = field(l, "time"), nodes = field(l, "nodes"), nps = field(l, "nps");
        CHECK(time >= last_time);  // never restarts
        CHECK(nodes >= last_nodes);
        if (time >= 50) {
            const double expected = double(nodes) * 1000.0 / double(time);
            CHECK(std::abs(double(nps) - expected) <= expected * 0.02 + 1000);
        }
        after_ponderhit |= time >= 800;
        last_time = time;
        last_nodes = nodes;
    }
    CHECK(after_ponderhit);  // the lines after ponderhit count the pondering time too
}

TEST_CASE("UCI_Chess960: X-FEN and Shredder-FEN, castling as king takes rook both ways", "[uci][gui][chess960]") {
    EngineProcess e;
    handshake(e);
    std::vector<std::string> decl;
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000, &decl));
    CHECK(contains(decl, "option name UCI_Chess960 type check default false"));
    CHECK(contains(decl, "option name UCI_AnalyseMode type check default false"));

    // Without UCI_Chess960 a Chess960 start is refused, and nothing is played for it.
    const std::string start = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    e.send("position fen " + start);
    REQUIRE(e.read_line_starting("info string illegal FEN", 10000));

    e.send("setoption name UCI_Chess960 value true");
    e.send("position fen " + start);
    e.send("go perft 5");
    auto total = e.read_line_starting("Nodes searched:", 60000);
    REQUIRE(total);
    CHECK(*total == "Nodes searched: 8146062");  // the published count (tests/data/chess960.epd)

    // The GUI sends castling as king takes rook: white O-O (e1g1: king to g1, rook g1 to f1),
    // black O-O-O (e8b8: king to c8, rook b8 to d8).
    e.send("position fen 1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1 moves e1g1 e8b8");
    e.send("d");
    auto fen = e.read_line_starting("Fen: ", 10000);
    REQUIRE(fen);
    CHECK(*fen == "Fen: 2kr2r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 w - - 2 2");

    // Play a few moves of a Chess960 game: every move legal in the 960 position.
    Position game;
    const std::string game_start = "nqnbrkbr/pppppppp/8/8/8/8/PPPPPPPP/NQNBRKBR w KQkq - 0 1";
    REQUIRE(game.set_fen(game_start, nullptr, true));
    std::string moves;
    for (int ply = 0; ply < 16 && !MoveList(game).empty(); ++ply) {
        e.send("position fen " + game_start + (moves.empty() ? "" : " moves" + moves));
        e.send("go nodes 4000");
        auto best = e.read_line_starting("bestmove", 20000);
        REQUIRE(best);
        std::istringstream in(*best);
        std::string word, move;
        in >> word >> move;
        INFO(game.fen() << " " << move);
        const Move m = parse_uci_move(game, move);
        REQUIRE(m);
        game.do_move(m);
        moves += " " + move;
    }
    e.send("isready");
    REQUIRE(e.read_line_starting("readyok", 10000));

    // Castling moves the GUI sends as e1g1-style with UCI_Chess960 on are king moves, and
    // here illegal: the command is refused.
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1");
    REQUIRE(e.read_line_starting("info string illegal move 'e1g1'", 10000));
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1h1");
    e.send("d");
    fen = e.read_line_starting("Fen: ", 10000);
    REQUIRE(fen);
    CHECK(*fen == "Fen: r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");

    // Off again: standard notation, and king takes rook is refused with a hint.
    e.send("setoption name UCI_Chess960 value false");
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1h1");
    auto refused = e.read_line_starting("info string illegal move 'e1h1'", 10000);
    REQUIRE(refused);
    CHECK(refused->find("UCI_Chess960") != std::string::npos);
    e.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    e.send("go perft 1");
    std::vector<std::string> perft_lines;
    REQUIRE(e.read_line_starting("Nodes searched:", 10000, &perft_lines));
    CHECK(contains(perft_lines, "e1g1: 1"));
    CHECK_FALSE(contains(perft_lines, "e1h1: 1"));
}

TEST_CASE("UCI_LimitStrength: a weakened Pythia answers legal moves in time, and varies", "[uci][gui][strength]") {
    EngineProcess e;
    std::vector<std::string> decl;
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000, &decl));
    CHECK(contains(decl, "option name UCI_LimitStrength type check default false"));
    CHECK(contains(decl, "option name UCI_Elo type spin default 1320 min 1320 max 3190"));
    e.send("setoption name UCI_Elo value 1000");
    REQUIRE(e.read_line_starting("info string option UCI_Elo must be from 1320 to 3190", 10000));

    e.send("setoption name OwnBook value false");
    e.send("setoption name UCI_LimitStrength value true");
    for (const char* elo : {"1320", "2200", "3000"}) {
        e.send(std::string("setoption name UCI_Elo value ") + elo);
        // A short game against itself on a fast clock: every move legal, none late.
        Position pos;
        std::string moves;
        int64_t clock_ms = 3000;
        for (int ply = 0; ply < 24 && !MoveList(pos).empty(); ++ply) {
            INFO("UCI_Elo " << elo << ", " << pos.fen());
            e.send("position startpos" + (moves.empty() ? std::string() : " moves" + moves));
            const auto before = std::chrono::steady_clock::now();
            e.send("go wtime " + std::to_string(clock_ms) + " btime " + std::to_string(clock_ms) + " winc 20 binc 20");
            auto best = e.read_line_starting("bestmove", 5000);
            const int64_t ms =
                std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - before)
                    .count();
            REQUIRE(best);
            CHECK(ms < clock_ms / 4);
            std::istringstream in(*best);
            std::string word, move;
            in >> word >> move;
            const Move m = parse_uci_move(pos, move);
            REQUIRE(m);
            pos.do_move(m);
            moves += " " + move;
            clock_ms = std::max<int64_t>(500, clock_ms - ms + 20);
        }
        // go infinite still waits for stop, and stop answers a legal move.
        e.send("position startpos moves e2e4");
        e.send("go infinite");
        for (const auto& l : e.read_for(300)) CHECK_FALSE(starts_with(l, "bestmove"));
        e.send("stop");
        auto best = e.read_line_starting("bestmove", 5000);
        REQUIRE(best);
        Position after_e4;
        after_e4.do_move(parse_uci_move(after_e4, "e2e4"));
        CHECK(parse_uci_move(after_e4, best->substr(9, best->find(' ', 9) - 9)));
    }

    // At the lowest setting the choice among the best root moves is noisy: the same position
    // searched again does not always get the same move.
    e.send("setoption name UCI_Elo value 1320");
    std::set<std::string> chosen;
    for (int i = 0; i < 30; ++i) {
        e.send("ucinewgame");
        e.send("position startpos moves d2d4 g8f6");
        e.send("go movetime 100");
        auto best = e.read_line_starting("bestmove", 5000);
        REQUIRE(best);
        chosen.insert(best->substr(9, best->find(' ', 9) - 9));
    }
    CHECK(chosen.size() >= 2);
}
