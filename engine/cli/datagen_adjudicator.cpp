#include "engine/cli/datagen_adjudicator.h"

#include <algorithm>
#include <cstdlib>

#include "engine/core/movegen.h"
#include "eval/score.h"

namespace pythia::cli {

using nnue::GameResult;

const char* game_end_name(GameEnd end) {
    switch (end) {
        case GameEnd::MATE:
            return "mate";
        case GameEnd::STALEMATE:
            return "stalemate";
        case GameEnd::RULES:
            return "draw rules";
        case GameEnd::TABLEBASE:
            return "tablebase";
        case GameEnd::MATE_SCORE:
            return "mate score";
        case GameEnd::WIN_SCORE:
            return "win score";
        case GameEnd::DRAW_SCORE:
            return "draw score";
        case GameEnd::MAX_PLIES:
            return "length";
        case GameEnd::COUNT:
            break;
    }
    return "?";
}

std::optional<GameResult> tablebase_result(const Position& pos, const tb::Tablebases& tables) {
    if (popcount(pos.pieces()) > tables.max_pieces()) return std::nullopt;
    const std::optional<int> wdl = tables.probe_wdl(pos);  // side to move's view
    if (!wdl) return std::nullopt;
    if (*wdl > -2 && *wdl < 2) return GameResult::DRAW;
    // With plies already on the clock a won position may no longer be won in time.
    if (pos.rule50() != 0) return std::nullopt;
    const bool white_wins = (*wdl > 0) == (pos.side_to_move() == WHITE);
    return white_wins ? GameResult::WHITE_WIN : GameResult::BLACK_WIN;
}

std::optional<Ending> GameAdjudicator::before_search(const Position& pos, int ply) const {
    if (MoveList(pos).empty()) {
        if (!pos.in_check()) return Ending{GameEnd::STALEMATE, GameResult::DRAW};
        return Ending{GameEnd::MATE, pos.side_to_move() == WHITE ? GameResult::BLACK_WIN : GameResult::WHITE_WIN};
    }
    if (pos.is_fifty_move_draw() || pos.is_threefold_repetition() || pos.has_insufficient_material())
        return Ending{GameEnd::RULES, GameResult::DRAW};
    if (tables_)
        if (const auto result = tablebase_result(pos, *tables_)) return Ending{GameEnd::TABLEBASE, *result};
    if (ply >= MAX_GAME_PLIES) return Ending{GameEnd::MAX_PLIES, GameResult::DRAW};
    return std::nullopt;
}

std::optional<Ending> GameAdjudicator::after_search(const Position& pos, int score) {
    const int score_white = pos.side_to_move() == WHITE ? score : -score;
    if (is_decisive(score))
        return Ending{GameEnd::MATE_SCORE, score_white > 0 ? GameResult::WHITE_WIN : GameResult::BLACK_WIN};
    win_streak_ = score_white >= WIN_SCORE    ? std::max(win_streak_, 0) + 1
                  : score_white <= -WIN_SCORE ? std::min(win_streak_, 0) - 1
                                              : 0;
    if (std::abs(win_streak_) >= WIN_PLIES)
        return Ending{GameEnd::WIN_SCORE, win_streak_ > 0 ? GameResult::WHITE_WIN : GameResult::BLACK_WIN};
    draw_streak_ = std::abs(score_white) <= DRAW_SCORE && pos.game_ply() >= DRAW_FROM_PLY ? draw_streak_ + 1 : 0;
    if (draw_streak_ >= DRAW_PLIES) return Ending{GameEnd::DRAW_SCORE, GameResult::DRAW};
    return std::nullopt;
}

}  // namespace pythia::cli
