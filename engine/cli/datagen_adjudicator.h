// How a `pythia datagen` game ends: by the rules (mate, stalemate, the 50-move rule, threefold
// repetition, insufficient material), by the tables when they prove the result, or by
// adjudication of the search's scores (a mate seen, a large score held by both sides, a long
// quiet draw, too many plies). The reasons are counted, so that the data's makers can see where
// the plies go.
#pragma once

#include <array>
#include <optional>

#include "engine/core/position.h"
#include "eval/nnue/packed_position.h"
#include "tablebase/probe/tablebases.h"

namespace pythia::cli {

enum class GameEnd { MATE, STALEMATE, RULES, TABLEBASE, MATE_SCORE, WIN_SCORE, DRAW_SCORE, MAX_PLIES, COUNT };

// The name of an ending in the datagen report ("tablebase", "win score", ...).
const char* game_end_name(GameEnd end);

struct Ending {
    GameEnd how;
    nnue::GameResult result;
};

// The result the tables prove for the position, under the 50-move rule: a win or loss only
// with a fresh halfmove clock (a capture or pawn move just made: how a game enters the tables),
// a draw (cursed win and blessed loss included) whatever the clock. nullopt out of the tables'
// scope (a missing table, castling rights, too many pieces) or when the clock leaves it open.
std::optional<nnue::GameResult> tablebase_result(const Position& pos, const tb::Tablebases& tables);

// One game's adjudicator: ask before_search() at every ply, then after_search() with the
// search's score.
class GameAdjudicator {
public:
    static constexpr int MAX_GAME_PLIES = 400;  // a game this long is adjudicated a draw
    static constexpr int WIN_SCORE = 1000;      // win adjudication: this score or more, for White
    static constexpr int WIN_PLIES = 8;         // or Black, over this many plies in a row
    static constexpr int DRAW_SCORE = 10;       // draw adjudication: within this score,
    static constexpr int DRAW_PLIES = 12;       // over this many plies in a row,
    static constexpr int DRAW_FROM_PLY = 80;    // from this game ply on

    explicit GameAdjudicator(const tb::Tablebases* tables) : tables_(tables) {}

    // The game is over before the move of this ply (`ply` counts the plies played since the
    // random opening): by the rules, the tables or its length.
    std::optional<Ending> before_search(const Position& pos, int ply) const;
    // The game is adjudicated on the search's score (side to move's view) of the position.
    std::optional<Ending> after_search(const Position& pos, int score);

private:
    const tb::Tablebases* tables_;
    int win_streak_ = 0;   // > 0: plies in a row White was winning, < 0: Black
    int draw_streak_ = 0;  // plies in a row with a score near zero
};

}  // namespace pythia::cli
