// selfplay-pgn: games of a UCI engine against itself, written as PGN, to feed book builders.
// The openings vary: each game first follows a Polyglot book by weighted random choice for a
// random number of plies (then random legal moves if the book runs out early), then the engine
// plays both sides at a fixed node count. The rules end the game (mate, stalemate, 50 moves,
// threefold repetition, dead material); a game longer than --max-plies ends unfinished (*).
//
//   selfplay-pgn <games> <out.pgn> [--engine /usr/games/stockfish] [--nodes 1000]
//                [--book F] [--opening-plies 12] [--max-plies 300] [--seed 1]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "book/book_settings.h"
#include "book/opening_book.h"
#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "tests/uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

struct Options {
    int games = 0;
    std::string out, engine = "/usr/games/stockfish", book = std::string(DEBIAN_BOOK_FILE);
    int nodes = 1000, opening_plies = 12, max_plies = 300;
    uint64_t seed = 1;
};

bool parse_number(const std::string& text, auto& value) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && p == text.data() + text.size();
}

// "1-0", "0-1", "1/2-1/2" when the rules end the game, "" while it goes on.
std::string rules_result(const Position& pos) {
    if (MoveList(pos).empty()) return pos.in_check() ? (pos.side_to_move() == WHITE ? "0-1" : "1-0") : "1/2-1/2";
    if (pos.is_fifty_move_draw() || pos.is_threefold_repetition() || pos.has_insufficient_material()) return "1/2-1/2";
    return "";
}

}  // namespace

int main(int argc, char** argv) {
    signal(SIGPIPE, SIG_IGN);
    Options o;
    std::vector<std::string> args(argv + 1, argv + argc), positional;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        bool has_value = i + 1 < args.size();
        bool ok = true;
        if (a == "--engine" && has_value)
            o.engine = args[++i];
        else if (a == "--book" && has_value)
            o.book = args[++i];
        else if (a == "--nodes" && has_value)
            ok = parse_number(args[++i], o.nodes);
        else if (a == "--opening-plies" && has_value)
            ok = parse_number(args[++i], o.opening_plies);
        else if (a == "--max-plies" && has_value)
            ok = parse_number(args[++i], o.max_plies);
        else if (a == "--seed" && has_value)
            ok = parse_number(args[++i], o.seed);
        else if (a.rfind("--", 0) == 0)
            ok = false;
        else
            positional.push_back(a);
        if (!ok) {
            std::cerr << "selfplay-pgn: bad option '" << a << "'\n";
            return 2;
        }
    }
    if (positional.size() != 2 || !parse_number(positional[0], o.games) || o.games < 1) {
        std::cerr << "usage: selfplay-pgn <games> <out.pgn> [--engine E] [--nodes N] [--book F]\n"
                     "                    [--opening-plies K] [--max-plies M] [--seed S]\n";
        return 2;
    }
    o.out = positional[1];

    OpeningBook book;
    std::string error;
    if (!book.open(o.book, &error)) std::cerr << "selfplay-pgn: " << error << "; openings from random moves\n";
    std::ofstream pgn(o.out);
    if (!pgn) {
        std::cerr << "selfplay-pgn: cannot write " << o.out << '\n';
        return 1;
    }
    std::mt19937_64 rng(o.seed);
    try {
        EngineProcess engine(o.engine);
        engine.send("uci");
        engine.wait_for("uciok");
        engine.send("setoption name Threads value 1");
        engine.send("setoption name Hash value 16");
        int decisive = 0, unfinished = 0;
        for (int g = 1; g <= o.games; ++g) {
            engine.send("ucinewgame");
            engine.send("isready");
            engine.wait_for("readyok");
            Position pos;
            std::string moves_uci, movetext, result;
            int opening = 2 + int(rng() % uint64_t(std::max(o.opening_plies - 1, 1)));
            for (int ply = 0; ply < o.max_plies && (result = rules_result(pos)).empty(); ++ply) {
                Move m;
                if (ply < opening) {
                    m = book.choose(pos, BookVariety::WEIGHTED, rng).move;
                    if (!m) {
                        MoveList legal(pos);
                        m = legal[int(rng() % uint64_t(legal.size()))];
                    }
                } else {
                    engine.send("position startpos moves" + moves_uci);
                    engine.send("go nodes " + std::to_string(o.nodes));
                    std::string line = engine.wait_for("bestmove");
                    m = parse_uci_move(pos, line.substr(9, line.find(' ', 9) - 9));
                    if (!m) throw std::runtime_error("illegal engine move: " + line);
                }
                if (pos.side_to_move() == WHITE) movetext += std::to_string(pos.fullmove_number()) + ". ";
                movetext += move_to_san(pos, m) + " ";
                moves_uci += " " + move_to_uci(m);
                pos.do_move(m);
            }
            if (result.empty()) result = "*", ++unfinished;
            if (result == "1-0" || result == "0-1") ++decisive;
            pgn << "[Event \"selfplay " << g << "\"]\n[White \"engine\"]\n[Black \"engine\"]\n[Result \"" << result
                << "\"]\n\n";
            // Movetext lines of at most 80 characters.
            std::string text = movetext + result, line;
            size_t start = 0;
            while (start < text.size()) {
                size_t end = std::min(text.size(), start + 80);
                if (end < text.size()) end = text.rfind(' ', end);
                pgn << text.substr(start, end - start) << '\n';
                start = end + 1;
            }
            pgn << '\n';
            if (g % 100 == 0) std::cerr << g << " games\n";
        }
        std::cerr << "selfplay-pgn: " << o.games << " games (" << decisive << " decisive, " << unfinished
                  << " unfinished) to " << o.out << " (engine " << o.engine << ", " << o.nodes << " nodes a move, seed "
                  << o.seed << ")\n";
    } catch (const std::exception& e) {
        std::cerr << "selfplay-pgn: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
