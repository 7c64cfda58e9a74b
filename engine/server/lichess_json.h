// The answer of the lichess tablebase API (`GET /standard?fen=...`, lichess-org/lila-tablebase)
// built from Pythia's tables, and Syzygy files behind them: one builder for `pythia tb serve`
// and `pythia tb probe --json`, and its reader for the engine's TablebaseURL client. The format
// is written down in engine/server/README.md ("The JSON").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/position.h"
#include "tablebase/probe/syzygy.h"
#include "tablebase/probe/tablebases.h"

namespace pythia::server {

// lila-tablebase's categories, worst first for the side to move (its PessimisticUnknown order,
// by which moves are sorted: the move whose successor is a loss for the opponent first).
enum class Category {
    LOSS,
    UNKNOWN,
    SYZYGY_LOSS,
    MAYBE_LOSS,
    BLESSED_LOSS,
    DRAW,
    CURSED_WIN,
    MAYBE_WIN,
    SYZYGY_WIN,
    WIN
};

const char* category_name(Category c);  // "win", "cursed-win", ...
std::optional<Category> parse_category(std::string_view name);
Category negate(Category c);  // the other side's view
// 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss; nothing for unknown and maybe-*.
std::optional<int> category_wdl(Category c);

// What answers: Pythia's tables first, then Syzygy files (when given) for the positions they do
// not hold. From the own tables alone by conversion (a tool or test without Syzygy).
struct TableSources {
    TableSources(const tb::Tablebases& own_tables, const tb::SyzygyTables* syzygy_tables = nullptr)
        : own(own_tables), syzygy(syzygy_tables) {}
    const tb::Tablebases& own;
    const tb::SyzygyTables* syzygy;
};

// One position's values from its side to move (lila-tablebase's PositionInfo).
struct PositionInfo {
    bool checkmate = false;
    bool stalemate = false;
    bool insufficient_material = false;
    std::optional<int> dtz;  // DTZ50 in plies, signed (+ win); Pythia's is exact, so also `precise_dtz`
    std::optional<int> dtm;  // DTM in plies, signed; 0 for draws and for a checkmated side
    std::optional<int> wdl;  // the tables' WDL as from a fresh halfmove clock (2 win ... -2 loss)
    bool syzygy = false;     // valued by Syzygy files: DTZ maybe one ply short (no `precise_dtz`), no DTM
    Category category = Category::UNKNOWN;  // WDL under the 50-move rule with the halfmove clock
};

struct MoveInfo {
    Move move;
    std::string uci, san;
    bool zeroing = false;     // a capture or a pawn move
    bool conversion = false;  // a capture or a promotion (material changes)
    PositionInfo after;       // the position after the move, from the opponent's view
};

struct LichessResponse {
    PositionInfo pos;
    std::vector<MoveInfo> moves;  // best first, in lila-tablebase's order
};

// One position's values; its category judged as reached from a position whose halfmove clock
// was `halfmoves_before` (lila-tablebase: a move's from its root's clock, a root's from its own
// clock less one).
PositionInfo position_info(const TableSources& tables, const Position& pos, int halfmoves_before);

// The position and each of its legal moves as the tables value them. Positions out of the
// tables' reach (castling rights, too many pieces, a table missing or refused) get null values
// and category "unknown", as lichess gives them; checkmate, stalemate and insufficient material
// are known without tables.
LichessResponse lichess_response(const TableSources& tables, const Position& pos);

// The JSON text, lichess's field names in its order, plus `wdl` (from the category). `fen`,
// when given, is added as the first field (`tb probe --json`).
std::string to_json(const LichessResponse& r, std::string_view fen = {});

// {"error": message}, with "fen" first when given: a request or a FEN that cannot be answered.
std::string error_json(std::string_view message, std::string_view fen = {});

// Reads such a JSON text (from Pythia or lichess) back; the moves' `move` is set from their
// `uci` in `pos`. Nothing, with `error` set, if the text is not such an answer for `pos`.
std::optional<LichessResponse> parse_lichess_json(std::string_view text, const Position& pos, std::string* error);

}  // namespace pythia::server
