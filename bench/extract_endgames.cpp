// extract-endgames: endgame starting positions from the endings of real games, for matches
// that measure what the tablebases are worth (bench/endgames.epd, bench/endgames-unfiltered.epd).
//
//   extract-endgames <games.pgn> [--min 6] [--max 8] [--max-imbalance 4]
//                    [--eval-window LO,HI [--engine E] [--depth D]] > endgames.epd
//
// For each game, the first position with between --min and --max pieces (kings included),
// no castling right, the side to move not in check and a material difference (P1 N3 B3 R5 Q9)
// of at most --max-imbalance is written as an EPD line with the game it came from. Positions
// already written are not repeated.
//
// With --eval-window, a UCI engine (default Debian's Stockfish) searches that position to
// --depth (default 14) and it is kept only when the absolute score lies in [LO, HI]
// centipawns (a mate counts as beyond any window); otherwise the game gives no position. This
// keeps the starts that are neither dead draws nor already decided, where the way an ending is
// played can still change its result (the score is written as the EPD opcode `ce`, from the
// side to move, with `acd`, the depth).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "book/pgn_game.h"
#include "book/pgn_reader.h"
#include "tests/uci/engine_process.h"

using namespace pythia;

namespace {

// The engine's last score for the position at `depth`, side to move's view; a mate is +-100000.
int search_score(test::EngineProcess& engine, const std::string& fen, int depth) {
    engine.send("ucinewgame");
    engine.send("position fen " + fen);
    engine.send("go depth " + std::to_string(depth));
    int score = 0;
    for (;;) {
        const std::string line = engine.wait_for("");
        if (line.rfind("bestmove", 0) == 0) return score;
        const size_t at = line.find(" score ");
        if (at == std::string::npos) continue;
        std::istringstream words(line.substr(at + 7));
        std::string kind;
        int value = 0;
        words >> kind >> value;
        if (kind == "cp")
            score = value;
        else if (kind == "mate")
            score = value > 0 ? 100000 : -100000;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: extract-endgames <games.pgn> [--min 6] [--max 8] [--max-imbalance 4]\n"
                     "                        [--eval-window LO,HI [--engine E] [--depth D]]\n";
        return 2;
    }
    int min_pieces = 6, max_pieces = 8, max_imbalance = 4, depth = 14;
    int window_lo = -1, window_hi = -1;
    std::string engine_path = "/usr/games/stockfish";
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        int v = std::atoi(argv[i + 1]);
        if (flag == "--min")
            min_pieces = v;
        else if (flag == "--max")
            max_pieces = v;
        else if (flag == "--max-imbalance")
            max_imbalance = v;
        else if (flag == "--depth")
            depth = v;
        else if (flag == "--engine")
            engine_path = argv[i + 1];
        else if (flag == "--eval-window") {
            if (std::sscanf(argv[i + 1], "%d,%d", &window_lo, &window_hi) != 2 || window_lo < 0 ||
                window_hi < window_lo) {
                std::cerr << "extract-endgames: --eval-window wants LO,HI centipawns, 0 <= LO <= HI\n";
                return 2;
            }
        } else {
            std::cerr << "extract-endgames: unknown option " << flag << '\n';
            return 2;
        }
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "extract-endgames: cannot open " << argv[1] << '\n';
        return 1;
    }
    std::unique_ptr<test::EngineProcess> engine;
    if (window_lo >= 0) {
        engine = std::make_unique<test::EngineProcess>(engine_path);
        engine->send("uci");
        engine->wait_for("uciok");
        engine->send("setoption name Threads value 1");
        engine->send("isready");
        engine->wait_for("readyok");
    }
    PgnReader reader(in);
    PgnGame game;
    std::set<std::string> seen;
    int games = 0, written = 0, outside_window = 0;
    constexpr int VALUE[] = {0, 1, 3, 3, 5, 9, 0};
    for (;;) {
        std::string error;
        auto status = reader.next(game, &error);
        if (status == PgnReader::Status::END) break;
        if (status == PgnReader::Status::ERROR) continue;
        ReplayedGame replay;
        if (!replay_game(game, replay, &error)) continue;
        ++games;
        Position pos = replay.start;
        for (Move m : replay.moves) {
            pos.do_move(m);
            const int pieces = pos.count_all();
            if (pieces > max_pieces) continue;
            if (pieces < min_pieces) break;
            if (pos.castling_rights() || pos.in_check()) continue;
            int balance = 0;
            for (int pt = PAWN; pt < KING; ++pt)
                balance += VALUE[pt] * (pos.count(WHITE, PieceType(pt)) - pos.count(BLACK, PieceType(pt)));
            if (std::abs(balance) > max_imbalance) continue;
            std::string fen = pos.fen();
            std::string epd = fen.substr(0, fen.rfind(' ', fen.rfind(' ') - 1));  // without the clocks
            if (!seen.insert(epd).second) break;
            std::string opcodes;
            if (engine) {
                const int score = search_score(*engine, fen, depth);
                if (std::abs(score) < window_lo || std::abs(score) > window_hi) {
                    ++outside_window;
                    break;
                }
                opcodes = " acd " + std::to_string(depth) + "; ce " + std::to_string(score) + ";";
            }
            std::cout << epd << opcodes << " c0 \"" << game.description() << "\";\n";
            ++written;
            break;
        }
    }
    std::cerr << "extract-endgames: " << written << " positions from " << games << " games";
    if (engine) std::cerr << " (" << outside_window << " outside the score window)";
    std::cerr << '\n';
    return 0;
}
