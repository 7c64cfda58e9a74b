#include "engine/server/lichess_json.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <tuple>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"

namespace pythia::server {

namespace {

constexpr const char* CATEGORY_NAMES[] = {"loss", "unknown",    "syzygy-loss", "maybe-loss", "blessed-loss",
                                          "draw", "cursed-win", "maybe-win",   "syzygy-win", "win"};

// lila-tablebase's category of a position from its DTZ50 and halfmove clock (shakmaty-syzygy's
// AmbiguousWdl::from_dtz_and_halfmoves for an exact DTZ): the zeroing must come within 100 plies
// of the last one. `halfmoves_before`: the clock of the position before (a move's root), which
// at 100 or more has let the 50-move rule be claimed already.
Category category_from_dtz(int dtz, int halfmoves, int halfmoves_before) {
    if (halfmoves_before >= 100) return dtz < 0 ? Category::BLESSED_LOSS : Category::CURSED_WIN;
    const int d = dtz > 0 ? dtz + halfmoves : dtz - halfmoves;
    if (d < -100) return Category::BLESSED_LOSS;
    if (d < 0) return Category::LOSS;
    if (d <= 100) return Category::WIN;
    return Category::CURSED_WIN;
}

// The same from the WDL alone, where a DTM/DTZ file is missing: a win with a running clock may
// be spoiled by it (maybe-win).
Category category_from_wdl(int wdl, int halfmoves, int halfmoves_before) {
    if (wdl == 0) return Category::DRAW;
    if (halfmoves_before >= 100) return wdl < 0 ? Category::BLESSED_LOSS : Category::CURSED_WIN;
    switch (wdl) {
        case 2:
            return halfmoves == 0 ? Category::WIN : Category::MAYBE_WIN;
        case 1:
            return Category::CURSED_WIN;
        case -1:
            return Category::BLESSED_LOSS;
        default:
            return halfmoves == 0 ? Category::LOSS : Category::MAYBE_LOSS;
    }
}

// The same from a DTZ that Syzygy may have rounded (shakmaty-syzygy's AmbiguousWdl for a
// MaybeRounded::Rounded DTZ): the true DTZ may be one ply longer, so a win that zeroes just at
// the limit may be cursed: syzygy-win. Syzygy never rounds across the limit right after a
// zeroing move, so with a fresh clock the category is certain.
Category category_from_rounded_dtz(int dtz, int halfmoves, int halfmoves_before) {
    const bool win = dtz > 0;
    const int n = std::abs(dtz);
    if (halfmoves_before >= 100 || n + halfmoves > 100) return win ? Category::CURSED_WIN : Category::BLESSED_LOSS;
    if (halfmoves == 0 || n + halfmoves < 100) return win ? Category::WIN : Category::LOSS;
    return win ? Category::SYZYGY_WIN : Category::SYZYGY_LOSS;
}

// lila-tablebase's metric order (metric.rs, tightening_metric_sort_key): the mover's shortest
// win first (successor -1, -2, ...), then draws and unknowns, then the longest loss.
std::pair<std::pair<int, int>, std::pair<int, int>> tightening_key(std::optional<int> m) {
    return {m && *m < 0 ? std::pair(0, -*m) : std::pair(1, 0), m && *m > 0 ? std::pair(1, -*m) : std::pair(0, 0)};
}

bool is_positive(Category c) {
    return c == Category::CURSED_WIN || c == Category::MAYBE_WIN || c == Category::SYZYGY_WIN || c == Category::WIN;
}

// lila-tablebase's MoveInfo::sort_key, best move first.
struct SortKey {
    int category;
    bool not_checkmate, not_stalemate, not_insufficient;
    std::pair<std::pair<int, int>, std::pair<int, int>> dtm;
    bool conversion_last;
    bool zeroing_last;
    std::pair<int, int> dtz;  // None first, then the larger DTZ first
    int capture, promotion;   // the larger piece first, none last
    auto tie() const {
        return std::tie(category, not_checkmate, not_stalemate, not_insufficient, dtm, conversion_last, zeroing_last,
                        dtz, capture, promotion);
    }
};

SortKey sort_key(const MoveInfo& m, const Position& pos) {
    const PositionInfo& a = m.after;
    const bool positive = is_positive(a.category);
    const Move mv = m.move;
    int captured = 0;
    if (mv.kind() == Move::EN_PASSANT)
        captured = PAWN;
    else if (mv.kind() != Move::CASTLING && pos.piece_on(mv.to()) != NO_PIECE)
        captured = type_of(pos.piece_on(mv.to()));
    const int promotion = mv.kind() == Move::PROMOTION ? int(mv.promotion()) : 0;
    return {int(a.category),
            !a.checkmate,
            !a.stalemate,
            !a.insufficient_material,
            tightening_key(a.dtm),
            m.conversion == positive,
            m.zeroing == positive,
            a.dtz ? std::pair(1, -*a.dtz) : std::pair(0, 0),
            -captured,
            -promotion};
}

using Json = nlohmann::json;

// The answer is written directly, not through a JSON object tree: the server writes one per
// request, and building nlohmann's tree took a quarter of the server's time under load.
void put_string(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            default:
                // Control bytes, and any byte beyond ASCII (a FEN is ASCII; whatever else a request
                // holds is echoed as Latin-1, always valid JSON).
                if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x80) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

void put_int(std::string& out, const char* key, const std::optional<int>& v) {
    out += key;
    out += v ? std::to_string(*v) : "null";
}

void put_bool(std::string& out, const char* key, bool v) {
    out += key;
    out += v ? "true" : "false";
}

// The fields of one position: `out` ends with '{' or ',' before.
void put_position(std::string& out, const PositionInfo& p) {
    put_int(out, "\"dtz\":", p.dtz);
    // Pythia's DTZ50 is stored exactly; Syzygy's may be rounded, so lichess gives no precise one.
    put_int(out, ",\"precise_dtz\":", p.syzygy ? std::nullopt : p.dtz);
    out += ",\"dtc\":null";
    put_int(out, ",\"dtm\":", p.dtm);
    out += ",\"dtw\":null";
}

void put_flags(std::string& out, const PositionInfo& p) {
    put_bool(out, ",\"checkmate\":", p.checkmate);
    put_bool(out, ",\"stalemate\":", p.stalemate);
    out += ",\"variant_win\":false,\"variant_loss\":false";
    put_bool(out, ",\"insufficient_material\":", p.insufficient_material);
    out += ",\"category\":\"";
    out += category_name(p.category);
    out += '"';
    put_int(out, ",\"wdl\":", category_wdl(p.category));
}

std::optional<int> optional_int(const Json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int>();
}

bool read_position(const Json& j, PositionInfo& p) {
    if (!j.is_object() || !j.contains("category") || !j["category"].is_string()) return false;
    const std::optional<Category> c = parse_category(j["category"].get<std::string>());
    if (!c) return false;
    p.category = *c;
    p.dtz = optional_int(j, "dtz");
    p.dtm = optional_int(j, "dtm");
    p.checkmate = j.value("checkmate", false);
    p.stalemate = j.value("stalemate", false);
    p.insufficient_material = j.value("insufficient_material", false);
    return true;
}

// lila-tablebase's answer to rounding: where the root's category is certain, the moves that
// lead to an ambiguous syzygy-loss (or -win) for the opponent, best first, are what the root's
// category says they must be; where the root's is ambiguous, its best move decides it.
void resolve_rounding(LichessResponse& r) {
    static constexpr Category RULES[][3] = {{Category::WIN, Category::SYZYGY_LOSS, Category::LOSS},
                                            {Category::CURSED_WIN, Category::SYZYGY_LOSS, Category::BLESSED_LOSS},
                                            {Category::BLESSED_LOSS, Category::SYZYGY_WIN, Category::CURSED_WIN},
                                            {Category::LOSS, Category::SYZYGY_WIN, Category::WIN}};
    for (const auto& [root, ambiguous, certain] : RULES) {
        if (r.pos.category != root) continue;
        for (MoveInfo& m : r.moves) {
            if (m.after.category != ambiguous) break;
            m.after.category = certain;
        }
    }
    const bool root_ambiguous = r.pos.category == Category::SYZYGY_WIN || r.pos.category == Category::SYZYGY_LOSS;
    if (root_ambiguous && !r.moves.empty()) r.pos.category = negate(r.moves.front().after.category);
}

}  // namespace

namespace {

// position_info with what Syzygy's probe of the position before found: `syzygy_dtz`, this
// position's DTZ if known; `after_quiet_moves`, where to keep its quiet moves' successors' DTZ
// when Syzygy is probed here.
PositionInfo position_info(const TableSources& tables, const Position& pos, int halfmoves_before,
                           std::optional<int> syzygy_dtz, std::vector<std::pair<Move, int>>* after_quiet_moves) {
    PositionInfo i;
    const bool no_moves = MoveList(pos).empty();
    i.checkmate = no_moves && pos.in_check();
    i.stalemate = no_moves && !pos.in_check();
    i.insufficient_material = pos.has_insufficient_material();
    if (i.checkmate) {
        i.dtz = -1;  // as Syzygy (and so lichess) counts a mated side's DTZ
        i.dtm = 0;
        i.wdl = -2;
    } else if (i.stalemate || i.insufficient_material) {
        i.dtz = 0;
        i.dtm = 0;
        i.wdl = 0;
    } else {
        const std::optional<tb::ProbeResult> r = tables.own.probe(pos);
        // Syzygy answers what the own tables do not hold, or hold without their DTM/DTZ file.
        if (r && r->dtz)
            syzygy_dtz.reset();
        else if (!syzygy_dtz && tables.syzygy)
            syzygy_dtz = tables.syzygy->probe_dtz(pos, after_quiet_moves);
        if (syzygy_dtz) {
            i.syzygy = true;
            i.dtz = *syzygy_dtz;
            i.wdl = tables.syzygy->probe_wdl(pos);
        } else if (r) {
            i.wdl = r->wdl;
            if (r->dtz) i.dtz = tb::signed_distance(*r->dtz);
            if (r->dtm) i.dtm = tb::signed_distance(*r->dtm);
        }
    }
    const int halfmoves = pos.rule50();
    if (i.stalemate || i.insufficient_material || (i.dtz && *i.dtz == 0))
        i.category = Category::DRAW;
    else if (i.checkmate)
        i.category = halfmoves_before < 100 ? Category::LOSS : Category::BLESSED_LOSS;
    else if (i.dtz && i.syzygy)
        i.category = category_from_rounded_dtz(*i.dtz, halfmoves, halfmoves_before);
    else if (i.dtz)
        i.category = category_from_dtz(*i.dtz, halfmoves, halfmoves_before);
    else if (i.wdl)
        i.category = category_from_wdl(*i.wdl, halfmoves, halfmoves_before);
    return i;
}

}  // namespace

PositionInfo position_info(const TableSources& tables, const Position& pos, int halfmoves_before) {
    return position_info(tables, pos, halfmoves_before, std::nullopt, nullptr);
}

const char* category_name(Category c) { return CATEGORY_NAMES[int(c)]; }

std::optional<Category> parse_category(std::string_view name) {
    for (int i = 0; i < 10; ++i)
        if (name == CATEGORY_NAMES[i]) return Category(i);
    return std::nullopt;
}

Category negate(Category c) {
    switch (c) {
        case Category::LOSS:
            return Category::WIN;
        case Category::UNKNOWN:
            return Category::UNKNOWN;
        case Category::SYZYGY_LOSS:
            return Category::SYZYGY_WIN;
        case Category::MAYBE_LOSS:
            return Category::MAYBE_WIN;
        case Category::BLESSED_LOSS:
            return Category::CURSED_WIN;
        case Category::DRAW:
            return Category::DRAW;
        case Category::CURSED_WIN:
            return Category::BLESSED_LOSS;
        case Category::MAYBE_WIN:
            return Category::MAYBE_LOSS;
        case Category::SYZYGY_WIN:
            return Category::SYZYGY_LOSS;
        case Category::WIN:
            return Category::LOSS;
    }
    return Category::UNKNOWN;
}

std::optional<int> category_wdl(Category c) {
    switch (c) {
        case Category::WIN:
            return 2;
        case Category::CURSED_WIN:
            return 1;
        case Category::DRAW:
            return 0;
        case Category::BLESSED_LOSS:
            return -1;
        case Category::LOSS:
            return -2;
        default:
            return std::nullopt;
    }
}

LichessResponse lichess_response(const TableSources& tables, const Position& root) {
    LichessResponse r;
    const int halfmoves = root.rule50();
    // lila-tablebase judges the root as reached by a move from a clock one lower.
    std::vector<std::pair<Move, int>> after_quiet;  // from Syzygy's probe of the root, if made
    r.pos = position_info(tables, root, std::max(halfmoves - 1, 0), std::nullopt, &after_quiet);
    Position pos = root;
    std::vector<std::pair<SortKey, MoveInfo>> keyed;
    for (Move m : MoveList(root)) {
        std::optional<int> known;
        for (const auto& [quiet, dtz] : after_quiet)
            if (quiet == m) known = dtz;
        MoveInfo mi;
        mi.move = m;
        mi.uci = move_to_uci(m);
        mi.san = move_to_san(root, m);
        const bool capture = root.is_capture(m);
        mi.zeroing = capture || type_of(root.moved_piece(m)) == PAWN;
        mi.conversion = capture || m.kind() == Move::PROMOTION;
        pos.do_move(m);
        mi.after = position_info(tables, pos, halfmoves, known, nullptr);
        pos.undo_move();
        keyed.emplace_back(sort_key(mi, root), std::move(mi));
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first.tie() < b.first.tie(); });
    for (auto& [key, mi] : keyed) r.moves.push_back(std::move(mi));
    resolve_rounding(r);
    return r;
}

std::string to_json(const LichessResponse& r, std::string_view fen) {
    std::string out;
    out.reserve(320 + 300 * r.moves.size());
    out += '{';
    if (!fen.empty()) {
        out += "\"fen\":";
        put_string(out, fen);
        out += ',';
    }
    put_position(out, r.pos);
    put_flags(out, r.pos);
    out += ",\"moves\":[";
    for (size_t i = 0; i < r.moves.size(); ++i) {
        const MoveInfo& m = r.moves[i];
        out += i ? ",{\"uci\":" : "{\"uci\":";
        put_string(out, m.uci);
        out += ",\"san\":";
        put_string(out, m.san);
        out += ',';
        put_position(out, m.after);
        put_bool(out, ",\"zeroing\":", m.zeroing);
        put_bool(out, ",\"conversion\":", m.conversion);
        put_flags(out, m.after);
        out += '}';
    }
    out += "]}";
    return out;
}

std::string error_json(std::string_view message, std::string_view fen) {
    std::string out = "{";
    if (!fen.empty()) {
        out += "\"fen\":";
        put_string(out, fen);
        out += ',';
    }
    out += "\"error\":";
    put_string(out, message);
    return out + '}';
}

std::optional<LichessResponse> parse_lichess_json(std::string_view text, const Position& pos, std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<LichessResponse> {
        if (error) *error = why;
        return std::nullopt;
    };
    const Json j = Json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded()) return fail("not JSON");
    LichessResponse r;
    if (!read_position(j, r.pos)) return fail("no category");
    if (!j.contains("moves") || !j["moves"].is_array()) return fail("no moves");
    for (const Json& mj : j["moves"]) {
        MoveInfo m;
        if (!mj.is_object() || !mj.contains("uci") || !mj["uci"].is_string()) return fail("a move without uci");
        m.uci = mj["uci"].get<std::string>();
        m.move = parse_uci_move(pos, m.uci);
        if (!m.move) return fail("not a legal move here: " + m.uci);
        if (mj.contains("san") && mj["san"].is_string()) m.san = mj["san"].get<std::string>();
        m.zeroing = mj.value("zeroing", false);
        m.conversion = mj.value("conversion", false);
        if (!read_position(mj, m.after)) return fail("a move without category: " + m.uci);
        r.moves.push_back(std::move(m));
    }
    return r;
}

}  // namespace pythia::server
