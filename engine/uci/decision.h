// The move decision for `go`: opening book, then tablebases, then search.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "book/book_player.h"
#include "engine/core/position.h"
#include "engine/uci/options.h"
#include "search/limits.h"
#include "search/search.h"
#include "tablebase/probe/tablebases.h"

namespace pythia {

struct DecisionContext {
    const Position& position;
    const OptionTable& options;
    std::function<void(const std::string&)> info_string;  // tell the GUI what was decided
    BookPlayer* book = nullptr;                           // the opening book step, if any
    const tb::Tablebases* tablebases = nullptr;           // the tablebase step, if any
    int tb_piece_limit = 0;                    // positions of at most this many pieces are looked up (TBProbeLimit)
    const tb::SyzygyTables* syzygy = nullptr;  // Syzygy files, for what the own tables do not cover
    int syzygy_piece_limit = 0;                // SyzygyProbeLimit, as far as the files reach
    std::string tablebase_url;                 // TablebaseURL: a tablebase server for roots the local tables miss
    // TablebaseURLTimeout: how long the server gets: connection, request and answer together.
    std::chrono::milliseconds tablebase_url_timeout{50};
};

// A tablebase server is asked about roots of at most this many pieces (the largest tables
// served anywhere).
constexpr int REMOTE_TABLEBASE_MAX_PIECES = 7;

struct Decision {
    SearchLimits limits;
    std::optional<RootVerdict> verdict;  // the outcome the tables know, for the info lines
};

// Returns the limits the search runs with. A step that knows the move (book, tablebase)
// narrows `search_moves` to it (the tables may leave several drawing moves): the search then
// confirms it at once and still honours
// ponder/infinite/stop, so a decided move goes through the same `bestmove` path.
Decision decide_move(const DecisionContext& context, SearchLimits limits);

}  // namespace pythia
