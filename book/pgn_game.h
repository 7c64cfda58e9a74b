// Turning a PGN game into chess: its start position, its moves as engine moves, its result.
#pragma once

#include <string>
#include <vector>

#include "book/pgn_reader.h"
#include "engine/core/position.h"

namespace pythia {

enum class GameResult { WHITE_WINS, BLACK_WINS, DRAW, UNKNOWN };

// The Result tag when it holds a result, otherwise the movetext's result marker; "*" and
// anything else is UNKNOWN.
GameResult game_result(const PgnGame& game);

struct ReplayedGame {
    Position start;           // the FEN tag's position, or the standard start
    std::vector<Move> moves;  // the main line, every move legal in turn
    GameResult result = GameResult::UNKNOWN;
};

// Sets up the game's start position and plays its main line. Fails, naming the fault, on a
// Variant tag other than standard chess, a bad FEN tag, or a move that is illegal, ambiguous
// or unreadable (a null move "--", for example).
bool replay_game(const PgnGame& game, ReplayedGame& out, std::string* error = nullptr);

}  // namespace pythia
