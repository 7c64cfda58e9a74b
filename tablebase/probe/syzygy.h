// Syzygy tablebases (.rtbw WDL and .rtbz DTZ files, as most users already have for up to 6 or 7
// pieces), read by Fathom: Debian's libfathom, loaded when SyzygyPath is first set, so that the
// engine runs without it (and says so). Pythia's own tables keep precedence where both exist
// (their DTM gives the shortest mates); Syzygy answers the positions they do not cover.
//
// Fathom keeps its tables in global state: there is one Syzygy set per process. probe_wdl() may
// be called from any number of search threads; set_paths() and rank_root_moves() only while no
// search runs (the engine calls them from its input thread, between searches).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/position.h"

namespace pythia::tb {

// A legal root move as the Syzygy files value it, from the mover's view.
struct SyzygyRootMove {
    Move move;
    int wdl = 0;  // 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss, with the root's halfmove clock
    int dtz = 0;  // plies to the next capture or pawn move, counting this move; > 0 winning, < 0 losing
};

class SyzygyTables {
public:
    static SyzygyTables& instance();

    // Replaces the tables by those in `paths` (folders separated by ':'; empty: none). Returns
    // what a user should see: a line per missing folder or refused file (never fatal) and a
    // summary. Files whose header or size is wrong are left out, so that Fathom never maps them.
    std::vector<std::string> set_paths(const std::string& paths);

    // Positions of at most this many pieces are covered (0: no tables).
    int max_pieces() const { return max_pieces_; }

    // WDL from the side to move (2 win ... -2 loss), as if the halfmove clock were 0 (Syzygy's
    // WDL files assume it), for a position with no castling rights; nullopt when no file has it.
    std::optional<int> probe_wdl(const Position& pos) const;

    // Every legal move valued through the DTZ files, the halfmove clock counted; nullopt when
    // the position or a successor is not covered, or the position is mate or stalemate.
    std::optional<std::vector<SyzygyRootMove>> rank_root_moves(const Position& pos) const;

    // The position's DTZ50 in plies from the side to move, as Syzygy counts it (+ win, - loss,
    // beyond 100 cursed or blessed, -1 checkmated, 0 draw), as the DTZ files give it: where a
    // file stores moves, one ply short of the true value (Syzygy's rounding). nullopt when the
    // position or one of its successors is not covered.
    std::optional<int> probe_dtz(const Position& pos) const { return probe_dtz(pos, nullptr); }
    // The same, and the DTZ of the position after each quiet move (neither a capture nor a pawn
    // move), from its side to move, which the same probe finds on its way: valuing every move of
    // a position costs one probe and one for each zeroing move, not one for each move.
    std::optional<int> probe_dtz(const Position& pos, std::vector<std::pair<Move, int>>* after_quiet_moves) const;

    // The accepted WDL files' tables ("KRPvKR"), each once.
    const std::vector<std::string>& table_names() const { return table_names_; }

private:
    SyzygyTables() = default;
    int max_pieces_ = 0;
    std::vector<std::string> table_names_;
    std::string staging_dir_;  // a folder of links to the accepted files, when some were refused
};

}  // namespace pythia::tb
