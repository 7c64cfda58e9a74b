// tb-game-audit: what the tablebases say about the endings of played games, per engine.
//
//   tb-game-audit [--dir D] [--list] <games.pgn>...
//
// Replays every game and probes the WDL of each position with at most the tables' number of
// pieces. A move "spoils" when it lowers its player's value: a win (2) to a draw or a loss, or
// a draw to a loss (cursed wins and blessed losses count as draws, as under the 50-move rule; a
// move that completes 50 moves or a threefold repetition is a draw; otherwise the halfmove clock
// is not taken into account). Per engine (the PGN's White and Black tags) it
// prints the moves played in table positions, the spoiling moves, and for each game the value
// of the first table position against the result the engine got. It measures where the
// tables change results in a match such as `scripts/match ... TablebasePath=<empty>`.
// --list prints each spoiling move with its position and both values.
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "book/pgn_game.h"
#include "book/pgn_reader.h"
#include "engine/core/notation.h"
#include "tablebase/probe/tablebases.h"

using namespace pythia;

namespace {

struct EngineTally {
    long moves = 0;  // moves played from a table position
    long win_to_draw = 0, win_to_loss = 0, draw_to_loss = 0;
    long games = 0;                          // games that reached a table position
    long won_entered = 0, won_kept = 0;      // first table position a win; games then won
    long drawn_entered = 0, drawn_lost = 0;  // first table position a draw; games then lost
    long lost_entered = 0, lost_saved = 0;   // first table position a loss; games not lost
};

int outcome(int wdl) { return wdl > 1 ? 1 : wdl < -1 ? -1 : 0; }

// The game's first table position, valued for each player against the result they got.
void tally_entry(EngineTally& e, int value, int got) {
    ++e.games;
    if (value > 0)
        ++e.won_entered, e.won_kept += got > 0;
    else if (value == 0)
        ++e.drawn_entered, e.drawn_lost += got < 0;
    else
        ++e.lost_entered, e.lost_saved += got >= 0;
}

// Audits one replayed game; `number` names it in the --list lines.
void audit_game(const tb::Tablebases& tb, const PgnGame& game, const ReplayedGame& replay, long number, bool list,
                std::map<std::string, EngineTally>& tally) {
    const std::string* white = game.tag("White");
    const std::string* black = game.tag("Black");
    const std::string names[2] = {white ? *white : "?", black ? *black : "?"};
    const int result_for_white = replay.result == GameResult::WHITE_WINS   ? 1
                                 : replay.result == GameResult::BLACK_WINS ? -1
                                                                           : 0;
    bool entered = false;
    Position pos = replay.start;
    std::optional<int> wdl = tb.probe_wdl(pos);  // of the position before each move, side to move's view
    for (Move m : replay.moves) {
        const Color us = pos.side_to_move();
        const std::optional<int> before = wdl;
        const std::string fen = list && before ? pos.fen() : std::string();
        pos.do_move(m);
        wdl = tb.probe_wdl(pos);
        if (!before) continue;
        if (!entered) {
            entered = true;
            tally_entry(tally[names[us]], outcome(*before), us == WHITE ? result_for_white : -result_for_white);
            tally_entry(tally[names[~us]], outcome(-*before), us == WHITE ? -result_for_white : result_for_white);
        }
        EngineTally& t = tally[names[us]];
        ++t.moves;
        if (!wdl) continue;
        // A move that completes 50 moves or repeats a position a third time ends the game
        // drawn, whatever the tables say of the position.
        const bool drawn_now = pos.is_fifty_move_draw() || pos.is_threefold_repetition();
        const int from = outcome(*before), to = drawn_now ? 0 : outcome(-*wdl);
        if (list && to < from)
            std::cout << names[us] << " spoils: " << fen << " " << move_to_uci(m) << ", wdl " << *before << " -> "
                      << -*wdl << " (game " << number << " of the input, " << game.description() << ")\n";
        if (from > 0 && to == 0) ++t.win_to_draw;
        if (from > 0 && to < 0) ++t.win_to_loss;
        if (from == 0 && to < 0) ++t.draw_to_loss;
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string dir = "tablebases";
    std::vector<std::string> files;
    bool list = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--list")
            list = true;
        else if (a.rfind("--", 0) == 0) {
            std::cerr << "usage: tb-game-audit [--dir D] [--list] <games.pgn>...\n";
            return 2;
        } else
            files.push_back(a);
    }
    if (files.empty()) {
        std::cerr << "usage: tb-game-audit [--dir D] [--list] <games.pgn>...\n";
        return 2;
    }
    tb::Tablebases tb;
    for (const std::string& line : tb.set_paths(dir)) std::cerr << line << '\n';
    if (tb.num_tables() == 0) {
        std::cerr << "tb-game-audit: no tables in " << dir << '\n';
        return 1;
    }
    std::map<std::string, EngineTally> tally;
    long games = 0, unreadable = 0;
    for (const std::string& file : files) {
        std::ifstream in(file);
        if (!in) {
            std::cerr << "tb-game-audit: cannot open " << file << '\n';
            return 1;
        }
        PgnReader reader(in);
        PgnGame game;
        for (;;) {
            std::string error;
            auto status = reader.next(game, &error);
            if (status == PgnReader::Status::END) break;
            ReplayedGame replay;
            if (status == PgnReader::Status::ERROR || !replay_game(game, replay, &error)) {
                ++unreadable;
                continue;
            }
            audit_game(tb, game, replay, ++games, list, tally);
        }
    }
    std::cout << games << " games read";
    if (unreadable) std::cout << ", " << unreadable << " unreadable";
    std::cout << "; tables: " << dir << " (" << tb.num_tables() << ", up to " << tb.max_pieces() << " pieces)\n";
    for (const auto& [name, t] : tally) {
        std::cout << name << ": " << t.games << " games reached the tables; " << t.moves
                  << " moves from table positions, spoiling: win->draw " << t.win_to_draw << ", win->loss "
                  << t.win_to_loss << ", draw->loss " << t.draw_to_loss << '\n'
                  << "  entered won " << t.won_entered << " (won " << t.won_kept << "), drawn " << t.drawn_entered
                  << " (lost " << t.drawn_lost << "), lost " << t.lost_entered << " (not lost " << t.lost_saved
                  << ")\n";
    }
    return 0;
}
