// nnue-match: Pythia with a net file against Pythia with its default evaluation (or another
// EvalFile value, --against; `<hand-written>` for the hand-written evaluation), for machines
// without fastchess or cutechess-cli (scripts/match needs one of them). Each opening of an EPD
// file is played twice, colours swapped; both engines search a fixed node count (or a fixed
// time) a move. The rules end a game (mate, stalemate, 50 moves, threefold repetition, dead
// material), or --max-plies (a draw). Prints W/D/L from the net's side and an Elo estimate with
// a 95 % interval from the game scores.
//
//   nnue-match <net.nnue> [--against <embedded>] [--pythia build/release/pythia]
//              [--openings bench/openings.epd] [--nodes 20000 | --movetime MS] [--games N]
//              [--max-plies 300]
#include <signal.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "tests/uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

struct Options {
    std::string net, against = "<embedded>", pythia = "build/release/pythia", openings = "bench/openings.epd";
    int nodes = 20000, movetime = 0, games = 0, max_plies = 300;
};

bool parse_number(const std::string& text, int& value) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && p == text.data() + text.size() && value > 0;
}

// 1 White wins, 0 Black wins, 0.5 a draw; negative while the game goes on.
double rules_result(const Position& pos) {
    if (MoveList(pos).empty()) return pos.in_check() ? (pos.side_to_move() == WHITE ? 0.0 : 1.0) : 0.5;
    if (pos.is_fifty_move_draw() || pos.is_threefold_repetition() || pos.has_insufficient_material()) return 0.5;
    return -1;
}

std::unique_ptr<EngineProcess> start_engine(const std::string& path, const std::string& eval_file) {
    auto e = std::make_unique<EngineProcess>(path);
    e->send("uci");
    e->wait_for("uciok");
    for (const char* option : {"Threads value 1", "Hash value 16", "OwnBook value false"})
        e->send(std::string("setoption name ") + option);
    // Setting EvalFile answers with "info string evaluation: ..." or "info string EvalFile ...
    // refused ...": a refused file must stop the match, not play it with the default net.
    e->send("setoption name EvalFile value " + eval_file);
    const std::string answer = e->wait_for("info string ");
    if (answer.find("info string evaluation: ") != 0) throw std::runtime_error(answer.substr(12));
    e->send("isready");
    e->wait_for("readyok");
    return e;
}

}  // namespace

int main(int argc, char** argv) {
    signal(SIGPIPE, SIG_IGN);
    Options o;
    std::vector<std::string> args(argv + 1, argv + argc);
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool has_value = i + 1 < args.size();
        bool ok = true;
        if (a == "--against" && has_value)
            o.against = args[++i];
        else if (a == "--pythia" && has_value)
            o.pythia = args[++i];
        else if (a == "--openings" && has_value)
            o.openings = args[++i];
        else if (a == "--nodes" && has_value)
            ok = parse_number(args[++i], o.nodes);
        else if (a == "--movetime" && has_value)
            ok = parse_number(args[++i], o.movetime);
        else if (a == "--games" && has_value)
            ok = parse_number(args[++i], o.games);
        else if (a == "--max-plies" && has_value)
            ok = parse_number(args[++i], o.max_plies);
        else if (a.rfind("--", 0) != 0 && o.net.empty())
            o.net = a;
        else
            ok = false;
        if (!ok) {
            std::cerr << "nnue-match: bad argument '" << a << "'\n";
            return 2;
        }
    }
    if (o.net.empty()) {
        std::cerr << "usage: nnue-match <net.nnue> [--against EVALFILE] [--pythia P] [--openings EPD]\n"
                     "                  [--nodes N | --movetime MS] [--games N] [--max-plies M]\n";
        return 2;
    }
    std::vector<std::string> fens;
    std::ifstream in(o.openings);
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string board, side, castling, ep;
        if (fields >> board >> side >> castling >> ep) fens.push_back(board + " " + side + " " + castling + " " + ep);
    }
    if (fens.empty()) {
        std::cerr << "nnue-match: no openings in " << o.openings << '\n';
        return 1;
    }
    if (!o.games) o.games = int(2 * fens.size());
    const std::string go =
        o.movetime ? "go movetime " + std::to_string(o.movetime) : "go nodes " + std::to_string(o.nodes);

    int wins = 0, draws = 0, losses = 0;
    try {
        auto net = start_engine(o.pythia, o.net), base = start_engine(o.pythia, o.against);
        for (int g = 0; g < o.games; ++g) {
            const std::string& fen = fens[(g / 2) % fens.size()];
            const bool net_white = g % 2 == 0;
            Position pos;
            if (!pos.set_fen(fen + " 0 1")) throw std::runtime_error("bad opening: " + fen);
            for (EngineProcess* e : {net.get(), base.get()}) e->send("ucinewgame");
            std::string moves;
            double result = -1;
            for (int ply = 0; ply < o.max_plies && (result = rules_result(pos)) < 0; ++ply) {
                EngineProcess& e = (pos.side_to_move() == WHITE) == net_white ? *net : *base;
                e.send("position fen " + fen + " 0 1 moves" + moves);
                e.send(go);
                const std::string line = e.wait_for("bestmove");
                const Move m = parse_uci_move(pos, line.substr(9, line.find(' ', 9) - 9));
                if (!m) throw std::runtime_error("illegal move: " + line + " in " + pos.fen());
                moves += " " + move_to_uci(m);
                pos.do_move(m);
            }
            if (result < 0) result = 0.5;
            const double net_score = net_white ? result : 1 - result;
            (net_score == 1 ? wins : net_score == 0 ? losses : draws)++;
            std::cerr << "game " << g + 1 << "/" << o.games << ": net " << (net_white ? "White" : "Black") << ", "
                      << (result == 1   ? "1-0"
                          : result == 0 ? "0-1"
                                        : "1/2-1/2")
                      << "; net +" << wins << " =" << draws << " -" << losses << '\n';
        }
    } catch (const std::exception& ex) {
        std::cerr << "nnue-match: " << ex.what() << '\n';
        return 1;
    }
    const int n = wins + draws + losses;
    const double score = (wins + 0.5 * draws) / n;
    const double variance =
        (wins * std::pow(1 - score, 2) + draws * std::pow(0.5 - score, 2) + losses * std::pow(score, 2)) / n;
    const double margin = 1.96 * std::sqrt(variance / n);
    auto elo = [](double s) { return s <= 0 ? -999.0 : s >= 1 ? 999.0 : -400 * std::log10(1 / s - 1); };
    std::cout << "net " << o.net << " against " << o.against << ", " << (o.movetime ? "movetime " : "nodes ")
              << (o.movetime ? o.movetime : o.nodes) << ", " << n << " games: +" << wins << " =" << draws << " -"
              << losses << ", score " << 100 * score << " %, Elo " << elo(score) << " [" << elo(score - margin) << ", "
              << elo(score + margin) << "]\n";
    return 0;
}
