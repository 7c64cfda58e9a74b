// tb-conversion: Pythia converts tablebase wins against a real defender. For each table, random
// positions that the tables call won for White to move (under the 50-move rule from a fresh
// halfmove clock); Pythia plays White through UCI, the opponent (Stockfish by default) defends.
// A game ends by the rules (mate, stalemate, threefold repetition, 50 moves, dead material) or
// after --max-plies. Reports per table: games, wins converted, draws, and mates no later than
// the tables' DTM (the defender may shorten it, never lengthen it if Pythia is exact).
//
//   build/release/bench/tb-conversion [--pythia P] [--opponent E] [--movetime MS] [--games N]
//                                     [--seed S] [--dir D] [--max-plies N] [TABLE...]
//   (defaults: build/release/pythia, /usr/games/stockfish, 100 ms, 20 per table, seed 1, the
//    default tables folder, 300 plies, KQvKR KRvKP KBNvK KQvKP)
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/random_position.h"
#include "tablebase/probe/tablebases.h"
#include "tests/uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

struct Options {
    std::string pythia = "build/release/pythia", opponent = "/usr/games/stockfish", dir = PYTHIA_DEFAULT_TB_DIR;
    int movetime = 100, games = 20, max_plies = 300;
    uint64_t seed = 1;
    std::vector<std::string> tables;
};

// FEN board letters of a material name: "KQvKR" -> "KQkr".
std::string pieces_of(const std::string& material) {
    std::string out;
    bool black = false;
    for (char c : material) {
        if (c == 'v')
            black = true;
        else
            out += black ? char(std::tolower(c)) : c;
    }
    return out;
}

Move engine_move(EngineProcess& e, const std::string& fen, const std::vector<Move>& moves, const Position& now,
                 int ms) {
    std::string cmd = "position fen " + fen;
    if (!moves.empty()) cmd += " moves";
    for (Move m : moves) cmd += " " + move_to_uci(m);
    e.send(cmd);
    e.send("go movetime " + std::to_string(ms));
    const std::string best = e.wait_for("bestmove");
    return parse_uci_move(now, best.substr(9, best.find(' ', 9) - 9));
}

enum class End { MATE, DRAW, ILLEGAL, TOO_LONG };

struct Game {
    End end;
    int plies;
    std::string why;
};

Game play(EngineProcess& pythia, EngineProcess& opponent, const Position& start, const Options& o) {
    Position pos = start;
    const std::string fen = start.fen();
    std::vector<Move> moves;
    for (int ply = 0; ply < o.max_plies; ++ply) {
        if (MoveList(pos).size() == 0) return {pos.in_check() ? End::MATE : End::DRAW, ply, "stalemate"};
        if (pos.is_fifty_move_draw()) return {End::DRAW, ply, "50-move rule"};
        if (pos.is_threefold_repetition()) return {End::DRAW, ply, "threefold repetition"};
        if (pos.has_insufficient_material()) return {End::DRAW, ply, "insufficient material"};
        EngineProcess& e = pos.side_to_move() == WHITE ? pythia : opponent;
        const Move m = engine_move(e, fen, moves, pos, o.movetime);
        if (!m) return {End::ILLEGAL, ply, pos.side_to_move() == WHITE ? "Pythia" : "opponent"};
        pos.do_move(m);
        moves.push_back(m);
    }
    return {End::TOO_LONG, o.max_plies, "ply limit"};
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--pythia" && has_value)
            o.pythia = argv[++i];
        else if (a == "--opponent" && has_value)
            o.opponent = argv[++i];
        else if (a == "--dir" && has_value)
            o.dir = argv[++i];
        else if (a == "--movetime" && has_value)
            o.movetime = std::max(1, std::atoi(argv[++i]));
        else if (a == "--games" && has_value)
            o.games = std::max(1, std::atoi(argv[++i]));
        else if (a == "--max-plies" && has_value)
            o.max_plies = std::max(1, std::atoi(argv[++i]));
        else if (a == "--seed" && has_value)
            o.seed = std::strtoull(argv[++i], nullptr, 10);
        else if (a.size() >= 3 && a[0] == 'K')
            o.tables.push_back(a);
        else {
            std::fprintf(stderr,
                         "usage: tb-conversion [--pythia P] [--opponent E] [--movetime MS] [--games N] "
                         "[--seed S] [--dir D] [--max-plies N] [TABLE...]\n");
            return 2;
        }
    }
    if (o.tables.empty()) o.tables = {"KQvKR", "KRvKP", "KBNvK", "KQvKP"};
    tb::Tablebases tables;
    for (const std::string& line : tables.set_paths(o.dir)) std::fprintf(stderr, "%s\n", line.c_str());

    EngineProcess pythia(o.pythia), opponent(o.opponent);
    for (EngineProcess* e : {&pythia, &opponent}) {
        e->send("uci");
        e->wait_for("uciok");
    }
    pythia.send("setoption name OwnBook value false");
    pythia.send("setoption name TablebasePath value " + o.dir);
    std::printf("tb-conversion: Pythia (%s) plays the won side, %s defends, %d ms a move\n", o.pythia.c_str(),
                o.opponent.c_str(), o.movetime);
    std::mt19937_64 rng(o.seed);
    int all_games = 0, all_wins = 0;
    for (const std::string& table : o.tables) {
        int wins = 0, within_dtm = 0, games = 0;
        std::string failures;
        for (int attempt = 0; games < o.games && attempt < 100000; ++attempt) {
            const auto start = random_position(rng, pieces_of(table), WHITE);
            if (!start) break;
            const auto wdl = tables.probe_wdl(*start);
            const auto dtm = tables.probe_dtm(*start);
            if (!wdl || *wdl != 2 || !dtm) continue;
            for (EngineProcess* e : {&pythia, &opponent}) e->send("ucinewgame");
            const Game g = play(pythia, opponent, *start, o);
            ++games;
            if (g.end == End::MATE) {
                ++wins;
                within_dtm += g.plies <= tb::distance_of(*dtm);
            } else {
                failures += "  " + start->fen() + ": " + g.why + " after " + std::to_string(g.plies) + " plies\n";
            }
        }
        std::printf("%-7s %3d games: %3d won (%3d within the tables' DTM), %3d not won\n%s", table.c_str(), games, wins,
                    within_dtm, games - wins, failures.c_str());
        std::fflush(stdout);
        all_games += games;
        all_wins += wins;
    }
    std::printf("total   %3d games: %3d won (%.1f %%)\n", all_games, all_wins,
                100.0 * all_wins / std::max(all_games, 1));
    return all_wins == all_games ? 0 : 1;
}
