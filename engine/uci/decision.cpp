#include "engine/uci/decision.h"

#include "engine/server/tablebase_client.h"
#include "engine/uci/tablebase_move.h"

namespace pythia {

Decision decide_move(const DecisionContext& context, SearchLimits limits) {
    // Step 1. Opening book (book/, options OwnBook, BookFile, BookVariety, BookDepth): a legal
    // book move for this position goes to limits.search_moves, with an `info string book move`.
    // Not when the GUI asks for analysis (infinite, ponder, searchmoves, mate search, several
    // lines with MultiPV, or UCI_AnalyseMode), which a single book move would narrow to one
    // line. Not in Chess960 either: the book's keys and castling moves are standard chess.
    const bool analysis = limits.infinite || limits.ponder || limits.mate || !limits.search_moves.empty() ||
                          context.options.spin("MultiPV") > 1 || context.options.check("UCI_AnalyseMode");
    const bool chess960 = context.options.check("UCI_Chess960") || context.position.is_chess960();
    if (context.book && !analysis && !chess960) {
        BookDecision b = context.book->decide(context.position);
        if (!b.info.empty()) context.info_string(b.info);
        if (b.move) {
            limits.search_moves = {b.move};
            return {limits, std::nullopt};
        }
    }

    // Step 2. Tablebases at the root (tablebase/): with no castling rights and few enough
    // pieces, the move the tables choose (see ARCHITECTURE.md, "Playing from the tables"):
    // the shortest mate that the 50-move rule lets through, the longest resistance, or the
    // drawing moves for the search to choose from. Not for MultiPV analysis, which wants the
    // search's view of several moves. TBProbeLimit bounds the root as it bounds the tree
    // (0: the tables are not used at all), as SyzygyProbeLimit does in Stockfish.
    if (context.tablebases && context.options.spin("MultiPV") == 1 &&
        context.position.count_all() <= context.tb_piece_limit) {
        if (auto t = tablebase_move(*context.tablebases, context.position, context.options.check("TB50MoveRule"),
                                    limits.search_moves)) {
            context.info_string(t->info);
            limits.search_moves = t->moves;
            return {limits, t->verdict};
        }
    }
    // Step 2b. Syzygy's files (SyzygyPath, tablebase/probe/syzygy.h), for the roots Pythia's own
    // tables do not cover: the same choice by DTZ50 alone.
    if (context.syzygy && context.options.spin("MultiPV") == 1 &&
        context.position.count_all() <= context.syzygy_piece_limit) {
        if (auto t = syzygy_move(*context.syzygy, context.position, context.options.check("Syzygy50MoveRule"),
                                 limits.search_moves)) {
            context.info_string(t->info);
            limits.search_moves = t->moves;
            return {limits, t->verdict};
        }
    }

    // Step 2c. A tablebase server (TablebaseURL) for a root the local tables do not cover (too
    // many pieces for them, or a table missing): one request within TablebaseURLTimeout (50 ms
    // by default), then the search as usual whatever the server does. Never inside the tree.
    if (!context.tablebase_url.empty() && context.options.spin("MultiPV") == 1 && !context.position.castling_rights() &&
        context.position.count_all() <= REMOTE_TABLEBASE_MAX_PIECES) {
        const server::RemoteAnswer a =
            server::ask_tablebase_server(context.tablebase_url, context.position, context.tablebase_url_timeout);
        std::optional<TablebaseMove> t;
        if (a.response)
            t = remote_tablebase_move(*a.response, context.position, context.options.check("TB50MoveRule"),
                                      limits.search_moves);
        if (t) {
            context.info_string(t->info + " (" + std::to_string(a.elapsed.count()) + " ms)");
            limits.search_moves = t->moves;
            return {limits, t->verdict};
        }
        context.info_string("tablebase server " + context.tablebase_url + ": " +
                            (a.response ? "no decisive answer" : a.error) + ", searching");
    }

    // Step 3. Search, over every legal move or the GUI's `searchmoves`.
    return {limits, std::nullopt};
}

}  // namespace pythia
