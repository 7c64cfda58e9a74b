// The tablebase step of the move decision, through the UCI pipe with the default 3-4-piece
// tables (scripts/test generates them): Pythia plays one side through UCI, a referee plays the
// other side from the tables (tb::Tablebases, in this process) and checks the outcome.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/random_position.h"
#include "tablebase/probe/tablebases.h"
#include "uci/default_tables.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

// Pythia's move for the game so far, through UCI; the output lines go to `lines`.
Move pythia_move(EngineProcess& e, const std::string& start_fen, const std::vector<Move>& moves, const Position& now,
                 std::vector<std::string>* lines) {
    std::string cmd = "position fen " + start_fen;
    if (!moves.empty()) {
        cmd += " moves";
        for (Move m : moves) {
            cmd += ' ';
            cmd += move_to_uci(m);
        }
    }
    e.send(cmd);
    e.send("go depth 4");
    const auto best = e.read_line_starting("bestmove", 30000, lines);
    REQUIRE(best);
    const std::string uci = best->substr(9, best->find(' ', 9) - 9);
    const Move m = parse_uci_move(now, uci);
    INFO("position " << now.fen() << ", bestmove " << uci);
    REQUIRE(m);
    return m;
}

// The referee's move from the tables: the best for the side to move, the 50-move rule and the
// halfmove clock included (longest resistance when lost); among equals a random one.
Move referee_move(const tb::Tablebases& tables, const Position& pos, std::mt19937_64& rng) {
    const auto ranked = tables.rank_root_moves(pos);
    REQUIRE(ranked);
    REQUIRE(!ranked->empty());
    const tb::RootMove& best = ranked->front();
    std::vector<Move> equal;
    for (const tb::RootMove& rm : *ranked)
        if (rm.wdl50 == best.wdl50 && rm.dtm == best.dtm) equal.push_back(rm.move);
    return equal[rng() % equal.size()];
}

enum class End { MATE_BY_PYTHIA, MATED_PYTHIA, DRAW, PLY_LIMIT };

struct GameResult {
    End end = End::PLY_LIMIT;
    int plies = 0;
    bool pythia_kept_outcome = true;  // never moved into a worse table outcome (50-move rule included)
    std::string first_move_output;    // the lines of Pythia's first move
};

// Plays from `start` with Pythia on `pythia_side`. After every Pythia move the tables check
// that the outcome for Pythia did not get worse.
GameResult play(EngineProcess& e, const tb::Tablebases& tables, const Position& start, Color pythia_side, int max_plies,
                std::mt19937_64& rng) {
    GameResult r;
    Position pos = start;
    const std::string fen = start.fen();
    std::vector<Move> moves;
    auto outcome_for_pythia = [&](const Position& p) {
        const auto ranked = tables.rank_root_moves(p);
        REQUIRE(ranked);
        const int v = ranked->empty() ? (p.in_check() ? -2 : 0) : ranked->front().wdl50;
        return p.side_to_move() == pythia_side ? v : -v;
    };
    int expected = outcome_for_pythia(pos);
    for (; r.plies < max_plies; ++r.plies) {
        if (MoveList(pos).size() == 0) {
            r.end = !pos.in_check()                     ? End::DRAW
                    : pos.side_to_move() == pythia_side ? End::MATED_PYTHIA
                                                        : End::MATE_BY_PYTHIA;
            return r;
        }
        if (pos.is_fifty_move_draw() || pos.is_threefold_repetition() || pos.has_insufficient_material()) {
            r.end = End::DRAW;
            return r;
        }
        Move m;
        if (pos.side_to_move() == pythia_side) {
            std::vector<std::string> lines;
            m = pythia_move(e, fen, moves, pos, &lines);
            if (r.plies == 0 || (r.plies == 1 && start.side_to_move() != pythia_side))
                for (const auto& l : lines) r.first_move_output += l + "\n";
        } else {
            m = referee_move(tables, pos, rng);
        }
        pos.do_move(m);
        moves.push_back(m);
        if (pos.count_all() > 2 && !pos.is_threefold_repetition()) {
            const int now = outcome_for_pythia(pos);
            if (now < expected) {
                UNSCOPED_INFO("outcome for Pythia fell from " << expected << " to " << now << " after "
                                                              << move_to_uci(m) << " in " << pos.fen());
                r.pythia_kept_outcome = false;
            }
            expected = now;
        }
    }
    return r;
}

EngineProcess& started(EngineProcess& e) {
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000));
    e.send("setoption name OwnBook value false");
    e.send("setoption name TablebasePath value " PYTHIA_DEFAULT_TB_DIR);
    return e;
}

int dtm_plies(const tb::Tablebases& tables, const Position& pos) {
    const auto dtm = tables.probe_dtm(pos);
    REQUIRE(dtm);
    REQUIRE(tb::is_win(*dtm));
    return tb::distance_of(*dtm);
}

}  // namespace

TEST_CASE("Pythia mates in exactly the tables' DTM against the longest resistance", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    EngineProcess e;
    started(e);
    std::mt19937_64 rng(20261122);
    for (const std::string pieces : {"KQk", "KRk", "KBBk", "KBNk"}) {
        // Two random wins and the two deepest of 400 random wins.
        std::vector<std::pair<int, Position>> wins;
        for (int i = 0; i < 400; ++i) {
            auto pos = random_position(rng, pieces, WHITE);
            REQUIRE(pos);
            const auto wdl = tables->probe_wdl(*pos);
            REQUIRE(wdl);
            if (*wdl == 2) wins.emplace_back(dtm_plies(*tables, *pos), *pos);
        }
        REQUIRE(wins.size() >= 4);
        std::vector<Position> starts = {wins[0].second, wins[1].second};
        std::sort(wins.begin(), wins.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        starts.push_back(wins[0].second);
        starts.push_back(wins[1].second);
        for (const Position& start : starts) {
            const int dtm = dtm_plies(*tables, start);
            INFO(pieces << ": " << start.fen() << ", DTM " << dtm << " plies");
            const GameResult r = play(e, *tables, start, WHITE, 200, rng);
            CHECK(r.end == End::MATE_BY_PYTHIA);
            CHECK(r.plies == dtm);
            CHECK(r.first_move_output.find("info string tablebase win") != std::string::npos);
            CHECK(r.first_move_output.find("score mate " + std::to_string((dtm + 1) / 2) + " ") != std::string::npos);
        }
    }
}

TEST_CASE("KPK and KRvKP: Pythia converts the wins and holds the draws", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    EngineProcess e;
    started(e);
    std::mt19937_64 rng(7);
    struct Case {
        const char* pieces;
        char stm;
        bool pythia_wins;  // else Pythia defends a draw
        Color pythia;
    };
    const Case cases[] = {
        {"KPk", 'w', true, WHITE},   {"KPk", 'b', false, BLACK},   // the pawn side wins; the king draws
        {"KRkp", 'w', true, WHITE},  {"KRkp", 'b', false, BLACK},  // the rook wins; the pawn draws
        {"KRkp", 'w', false, WHITE},                               // the rook keeps a draw
    };
    for (const Case& c : cases) {
        int found = 0;
        for (int attempt = 0; attempt < 5000 && found < 3; ++attempt) {
            auto pos = random_position(rng, c.pieces, c.stm == 'w' ? WHITE : BLACK);
            REQUIRE(pos);
            const auto wdl = tables->probe_wdl(*pos);
            REQUIRE(wdl);
            const int for_pythia = pos->side_to_move() == c.pythia ? *wdl : -*wdl;
            if (c.pythia_wins ? for_pythia != 2 : for_pythia != 0) continue;
            if (!c.pythia_wins) {
                // A draw worth testing: Pythia, to move, has a move that loses.
                const auto ranked = tables->rank_root_moves(*pos);
                REQUIRE(ranked);
                if (std::none_of(ranked->begin(), ranked->end(), [](const tb::RootMove& rm) { return rm.wdl50 < 0; }))
                    continue;
            }
            ++found;
            INFO(c.pieces << " " << pos->fen() << (c.pythia_wins ? ": Pythia wins" : ": Pythia draws"));
            const GameResult r = play(e, *tables, *pos, c.pythia, c.pythia_wins ? 300 : 60, rng);
            CHECK(r.pythia_kept_outcome);
            if (c.pythia_wins)
                CHECK(r.end == End::MATE_BY_PYTHIA);
            else
                CHECK((r.end == End::DRAW || r.end == End::PLY_LIMIT));
        }
        CHECK(found == 3);
    }
}

TEST_CASE("with a high halfmove clock Pythia takes a zeroing route and still wins", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    std::mt19937_64 rng(50);
    // A KQvKR position where the shortest mate is too long for the halfmove clock but a
    // capture of the rook in time still wins.
    std::optional<Position> chosen;
    Move shortest_mate;
    for (int attempt = 0; attempt < 20000 && !chosen; ++attempt) {
        auto pos = random_position(rng, "KQkr", WHITE);
        REQUIRE(pos);
        const auto fresh = tables->rank_root_moves(*pos);
        REQUIRE(fresh);
        if (fresh->empty() || fresh->front().wdl50 != 2) continue;
        const Move best_fresh = fresh->front().move;
        for (int clock = 60; clock < 100 && !chosen; ++clock) {
            std::string fen = pos->fen();
            fen = fen.substr(0, fen.rfind(' ', fen.rfind(' ') - 1)) + " " + std::to_string(clock) + " 80";
            Position late;
            REQUIRE(late.set_fen(fen));
            const auto ranked = tables->rank_root_moves(late);
            REQUIRE(ranked);
            if (ranked->front().wdl50 != 2) break;  // too late for any win
            for (const tb::RootMove& rm : *ranked)
                if (rm.move == best_fresh && rm.wdl50 != 2) {
                    chosen = late;
                    shortest_mate = best_fresh;
                }
        }
    }
    REQUIRE(chosen);
    INFO("start " << chosen->fen() << "; the shortest mate starts with " << move_to_uci(shortest_mate));
    EngineProcess e;
    started(e);
    std::vector<std::string> lines;
    const Move first = pythia_move(e, chosen->fen(), {}, *chosen, &lines);
    CHECK(first != shortest_mate);
    const GameResult r = play(e, *tables, *chosen, WHITE, 200, rng);
    CHECK(r.pythia_kept_outcome);
    CHECK(r.end == End::MATE_BY_PYTHIA);
}

TEST_CASE("a move into a threefold repetition is a draw whatever the tables say", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    // KQvK, White to move, then four plies twice: the queen goes h1-h2-h1, the black king
    // c3-d3-c3. At the end Black (lost by the tables) is on d3, and Kc3 repeats the start
    // position a third time: a draw. The tables' longest resistance is Kd4, not Kc3.
    const std::string start = "8/8/8/8/8/2k5/8/K6Q w - - 0 1";
    const std::vector<std::string> history = {"h1h2", "c3d3", "h2h1", "d3c3", "h1h2", "c3d3", "h2h1"};
    Position pos;
    REQUIRE(pos.set_fen(start));
    std::vector<Move> moves;
    for (const std::string& uci : history) {
        const Move m = parse_uci_move(pos, uci);
        REQUIRE(m);
        moves.push_back(m);
        pos.do_move(m);
    }
    REQUIRE_FALSE(pos.is_threefold_repetition());
    const auto ranked = tables->rank_root_moves(pos);
    REQUIRE(ranked);
    int longest = 0;
    Move longest_move;
    for (const tb::RootMove& rm : *ranked) {
        REQUIRE(rm.wdl == -2);  // every move loses by the tables
        REQUIRE(rm.dtm);
        if (tb::distance_of(*rm.dtm) > longest) longest = tb::distance_of(*rm.dtm), longest_move = rm.move;
    }
    const Move repeat = parse_uci_move(pos, "d3c3");
    REQUIRE(longest_move != repeat);

    EngineProcess e;
    started(e);
    std::vector<std::string> lines;
    CHECK(pythia_move(e, start, moves, pos, &lines) == repeat);
    bool draw_reported = false;
    for (const auto& l : lines) draw_reported |= l.rfind("info string tablebase draw", 0) == 0;
    CHECK(draw_reported);

    // Without the history the same position is lost, and Pythia resists longest.
    lines.clear();
    CHECK(pythia_move(e, pos.fen(), {}, pos, &lines) == longest_move);
}

TEST_CASE("castling rights or more pieces than the tables hold fall through to the search", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    EngineProcess e;
    started(e);
    for (const char* fen : {"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",          // KRK with castling rights
                            "4k3/8/8/8/2b5/8/3PP3/R3K3 w - - 0 1"}) {  // six pieces
        Position pos;
        REQUIRE(pos.set_fen(fen));
        std::vector<std::string> lines;
        INFO(fen);
        pythia_move(e, fen, {}, pos, &lines);
        bool from_tables = false, searched = false;
        for (const auto& l : lines) {
            from_tables |= l.find("info string tablebase ") != std::string::npos;  // not "tablebases:"
            searched |= l.rfind("info depth", 0) == 0;
        }
        CHECK_FALSE(from_tables);
        CHECK(searched);
    }
}

TEST_CASE("the search probes the tables inside the tree and reports tbhits", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    EngineProcess e;
    started(e);
    // KRPvKR: five pieces, beyond the 4-piece tables at the root, but captures lead into them.
    e.send("position fen 8/8/4k3/8/2R5/8/3P4/3K3r w - - 0 1");
    e.send("go depth 12");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("bestmove", 30000, &lines));
    uint64_t tbhits = 0;
    for (const auto& l : lines) {
        const auto at = l.find(" tbhits ");
        if (l.rfind("info depth", 0) == 0 && at != std::string::npos) tbhits = std::stoull(l.substr(at + 8));
    }
    CHECK(tbhits > 0);

    // With the tables switched off nothing is probed.
    e.send("setoption name TBProbeLimit value 0");
    e.send("position fen 8/8/4k3/8/2R5/8/3P4/3K3r w - - 0 1");
    e.send("go depth 12");
    lines.clear();
    REQUIRE(e.read_line_starting("bestmove", 30000, &lines));
    for (const auto& l : lines)
        if (l.rfind("info depth", 0) == 0) CHECK(l.find(" tbhits 0 ") != std::string::npos);

    // The limit bounds the root too: a KQvKR root of four pieces is searched, not looked up,
    // with a limit of 0 or 3, and looked up again with 4.
    for (int limit : {0, 3, 4}) {
        e.send("setoption name TBProbeLimit value " + std::to_string(limit));
        e.send("position fen 8/8/8/2k5/8/8/1r6/3QK3 w - - 0 1");
        e.send("go depth 6");
        lines.clear();
        REQUIRE(e.read_line_starting("bestmove", 30000, &lines));
        bool from_tables = false;
        for (const auto& l : lines) from_tables |= l.rfind("info string tablebase ", 0) == 0;
        INFO("TBProbeLimit " << limit);
        CHECK(from_tables == (limit == 4));
    }
}

TEST_CASE("TablebasePath and TB50MoveRule change what the tables decide", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    std::mt19937_64 rng(3);
    // A KQK win too long for a halfmove clock of 95: a cursed win under the 50-move rule.
    std::optional<Position> late;
    while (!late) {
        auto pos = random_position(rng, "KQk", WHITE);
        REQUIRE(pos);
        if (tables->probe_wdl(*pos) != 2 || dtm_plies(*tables, *pos) < 15) continue;
        std::string fen = pos->fen();
        fen = fen.substr(0, fen.rfind(' ', fen.rfind(' ') - 1)) + " 95 80";
        late.emplace();
        REQUIRE(late->set_fen(fen));
    }
    INFO(late->fen());
    EngineProcess e;
    started(e);
    auto decision = [&](const std::string& fen) {
        Position pos;
        REQUIRE(pos.set_fen(fen));
        std::vector<std::string> lines;
        pythia_move(e, fen, {}, pos, &lines);
        for (const auto& l : lines)
            if (l.rfind("info string tablebase ", 0) == 0) return l.substr(12);
        return std::string("search");
    };
    CHECK(decision(late->fen()).rfind("tablebase cursed win", 0) == 0);
    e.send("setoption name TB50MoveRule value false");
    CHECK(decision(late->fen()).rfind("tablebase win", 0) == 0);
    e.send("setoption name TablebasePath value <empty>");
    CHECK(decision(late->fen()) == "search");
    e.send("setoption name TablebasePath value " PYTHIA_DEFAULT_TB_DIR);
    CHECK(decision(late->fen()).rfind("tablebase win", 0) == 0);
}

TEST_CASE("a corrupt table file is named in an info string once and the engine plays on", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("pythia-refused-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"KQvK.pytw", "KQvK.pytd", "KRvK.pytw", "KRvK.pytd"})
        fs::copy_file(fs::path(PYTHIA_DEFAULT_TB_DIR) / f, dir / f);
    {
        // One flipped byte near the end of KQvK's WDL payload: its checksum no longer matches.
        std::fstream f(dir / "KQvK.pytw", std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(-16, std::ios::end);
        const char c = char(f.get());
        f.seekp(-16, std::ios::end);
        f.put(char(c ^ 0x5a));
    }
    EngineProcess e;
    started(e);
    e.send("setoption name TablebasePath value " + dir.string());
    e.send("isready");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("readyok", 20000, &lines));
    int refusals = 0;
    for (const auto& l : lines)
        if (l.rfind("info string tablebase file refused", 0) == 0) {
            ++refusals;
            CHECK(l.find("KQvK.pytw") != std::string::npos);
            CHECK(l.find("checksum") != std::string::npos);
        }
    CHECK(refusals == 1);

    // The refused WDL file is not used, the other tables still are, and a second `isready`
    // does not repeat the message.
    for (const char* fen : {"8/8/8/8/8/2k5/8/K6Q w - - 0 1", "8/8/8/8/8/2k5/8/K6R w - - 0 1"}) {
        Position pos;
        REQUIRE(pos.set_fen(fen));
        lines.clear();
        const Move m = pythia_move(e, fen, {}, pos, &lines);
        CHECK(is_legal(pos, m));
        bool table_move = false;
        for (const auto& l : lines) {
            CHECK(l.rfind("info string tablebase file refused", 0) != 0);
            table_move |= l.rfind("info string tablebase win", 0) == 0;
        }
        if (pos.count(WHITE, ROOK)) CHECK(table_move);
    }
    e.send("isready");
    lines.clear();
    REQUIRE(e.read_line_starting("readyok", 20000, &lines));
    for (const auto& l : lines) CHECK(l.rfind("info string tablebase file refused", 0) != 0);
    fs::remove_all(dir);
}

TEST_CASE("TBWDLInMemory: WDL files copied into memory by default, read where mapped when off", "[uci][tablebase]") {
    REQUIRE_DEFAULT_TABLES();
    EngineProcess e;
    started(e);
    // The memory the copies take, from the info string at isready; nullopt without one.
    auto memory_line = [&]() -> std::optional<double> {
        e.send("isready");
        std::vector<std::string> lines;
        REQUIRE(e.read_line_starting("readyok", 20000, &lines));
        const std::string prefix = "info string tablebases: WDL files in memory, ";
        std::optional<double> mib;
        for (const auto& l : lines)
            if (l.rfind(prefix, 0) == 0) {
                CHECK_FALSE(mib);  // once per isready that opens the files
                mib = std::stod(l.substr(prefix.size()));
            }
        return mib;
    };
    // A KRK win the tables decide either way.
    const std::string fen = "8/8/8/8/8/2k5/8/K6R w - - 0 1";
    Position pos;
    REQUIRE(pos.set_fen(fen));
    auto table_decides = [&] {
        std::vector<std::string> lines;
        const Move m = pythia_move(e, fen, {}, pos, &lines);
        CHECK(is_legal(pos, m));
        return std::any_of(lines.begin(), lines.end(),
                           [](const std::string& l) { return l.rfind("info string tablebase win", 0) == 0; });
    };

    const std::optional<double> copied = memory_line();
    REQUIRE(copied);
    CHECK(*copied > 0.0);
    CHECK_FALSE(memory_line());  // the files are open: nothing more to say
    CHECK(table_decides());

    e.send("setoption name TBWDLInMemory value false");
    CHECK_FALSE(memory_line());  // opened again, mapped
    CHECK(table_decides());

    e.send("setoption name TBWDLInMemory value true");
    const std::optional<double> again = memory_line();
    REQUIRE(again);
    CHECK(*again == Approx(*copied));
    CHECK(table_decides());
}
