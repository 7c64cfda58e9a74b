// extract-endgames: endgame starting positions from the endings of real games, for matches
// that measure what the tablebases are worth (bench/endgames.epd).
//
//   extract-endgames <games.pgn> [--min 6] [--max 8] [--max-imbalance 4] > endgames.epd
//
// For each game, the first position with between --min and --max pieces (kings included),
// no castling right, the side to move not in check and a material difference (P1 N3 B3 R5 Q9)
// of at most --max-imbalance is written as an EPD line with the game it came from. Positions
// already written are not repeated.
#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include "book/pgn_game.h"
#include "book/pgn_reader.h"

using namespace pythia;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: extract-endgames <games.pgn> [--min 6] [--max 8] [--max-imbalance 4]\n";
        return 2;
    }
    int min_pieces = 6, max_pieces = 8, max_imbalance = 4;
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        int v = std::atoi(argv[i + 1]);
        if (flag == "--min") min_pieces = v;
        else if (flag == "--max") max_pieces = v;
        else if (flag == "--max-imbalance") max_imbalance = v;
        else {
            std::cerr << "extract-endgames: unknown option " << flag << '\n';
            return 2;
        }
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "extract-endgames: cannot open " << argv[1] << '\n';
        return 1;
    }
    PgnReader reader(in);
    PgnGame game;
    std::set<std::string> seen;
    int games = 0, written = 0;
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
            if (seen.insert(epd).second) {
                std::cout << epd << " c0 \"" << game.description() << "\";\n";
                ++written;
            }
            break;
        }
    }
    std::cerr << "extract-endgames: " << written << " positions from " << games << " games\n";
    return 0;
}
