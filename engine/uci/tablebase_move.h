// The tablebase step of the move decision: at a root the loaded tables cover, which moves keep
// the best outcome and which one to play (ARCHITECTURE.md, "Playing from the tables").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/position.h"
#include "engine/server/lichess_json.h"
#include "search/search.h"
#include "tablebase/probe/syzygy.h"
#include "tablebase/probe/tablebases.h"

namespace pythia {

struct TablebaseMove {
    // The moves the search may choose from: one for a win or a loss (the tables know the best
    // move), every move that keeps the draw for a drawn position.
    std::vector<Move> moves;
    RootVerdict verdict;  // what the info lines report
    std::string info;     // one line for `info string`
};

// Nothing when the position is out of the tables' reach (castling rights, too many pieces, a
// table missing). `fifty_move_rule` (TB50MoveRule): a win the 50-move rule spoils is a draw,
// and so is a loss it saves. `allowed` (the GUI's searchmoves) limits the choice when not empty.
std::optional<TablebaseMove> tablebase_move(const tb::Tablebases& tables, const Position& pos, bool fifty_move_rule,
                                            const std::vector<Move>& allowed = {});
// The same from Syzygy's DTZ files (Syzygy50MoveRule), for what Pythia's own tables do not
// cover: the win that zeroes soonest, the loss that zeroes latest, or the drawing moves.
std::optional<TablebaseMove> syzygy_move(const tb::SyzygyTables& syzygy, const Position& pos, bool fifty_move_rule,
                                         const std::vector<Move>& allowed = {});

// The same decision from a tablebase server's answer (TablebaseURL): nothing unless every move's
// outcome is known, or a move is known to win.
std::optional<TablebaseMove> remote_tablebase_move(const server::LichessResponse& answer, const Position& pos,
                                                   bool fifty_move_rule, const std::vector<Move>& allowed = {});

}  // namespace pythia
