// Building a Polyglot book from games, as `polyglot make-book` does: every (position, move)
// of the games gets the weight 2 x wins + draws from the mover's side.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "book/pgn_game.h"
#include "book/polyglot_entry.h"

namespace pythia {

struct BookBuildOptions {
    int max_ply = 1024;       // use only the first max_ply moves (plies) of each game
    int min_games = 1;        // keep a move only if it was played at least this often in its position
    bool white_moves = true;  // keep the moves of White (positions with White to move)
    bool black_moves = true;  // keep the moves of Black
};

class BookBuilder {
public:
    explicit BookBuilder(BookBuildOptions options = {}) : options_(options) {}

    // Counts the first max_ply moves of a game. A win scores 2 for the winner's moves, 0 for the
    // loser's; a draw scores 1 for both, and so does an unknown result ("*"), as in Polyglot.
    void add_game(const Position& start, const std::vector<Move>& moves, GameResult result);

    // The book: moves played at least min_games times, of the chosen colours, with positive
    // weight; sorted by key, heaviest move first within a key. Weights that would not fit in
    // 16 bits are scaled down, all moves of that position by the same factor (rounding up, so
    // no kept move drops to 0).
    std::vector<PolyglotEntry> entries() const;

    int games() const { return games_; }
    size_t distinct_moves() const { return stats_.size(); }  // (position, move) pairs seen

private:
    struct Slot {
        Key key;
        uint16_t move;
        bool operator==(const Slot&) const = default;
    };
    struct SlotHash {
        size_t operator()(const Slot& s) const { return size_t(s.key ^ (uint64_t(s.move) * 0x9E3779B97F4A7C15ULL)); }
    };
    struct Stats {
        uint64_t games = 0;   // times the move was played in the position
        uint64_t points = 0;  // 2 per win, 1 per draw or unknown result, for the mover
        Color mover = WHITE;
    };

    BookBuildOptions options_;
    std::unordered_map<Slot, Stats, SlotHash> stats_;
    int games_ = 0;
};

// Writes entries (sorted by key) as a Polyglot book. Writes to a temporary file beside `path`
// and renames it, so that a failed write never leaves a half-written book behind.
bool write_polyglot_book(const std::string& path, const std::vector<PolyglotEntry>& entries,
                         std::string* error = nullptr);

}  // namespace pythia
