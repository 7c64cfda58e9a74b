#include "engine/server/mainline.h"

#include <algorithm>
#include <tuple>

namespace pythia::server {

namespace {

// A line zeroes the halfmove clock at least every 100 plies and each zeroing move spends
// material or a pawn step, so it ends long before this; the bound only guards against tables
// that contradict each other.
constexpr size_t MAX_PLIES = 2000;

// shakmaty-syzygy's best_move, which lila-tablebase's mainline plays: among the moves that keep
// the best WDL for the mover (the successors' WDL from a fresh clock), a mate first; then a
// zeroing move for the winning side and a quiet one for the others; then the successor's
// largest DTZ (the quickest win, the longest loss). Ties go to the move /standard lists first.
auto choice_key(const MoveInfo& m) {
    const int dtz = *m.after.dtz;
    return std::tuple(*m.after.wdl, !m.after.checkmate, m.zeroing != (dtz < 0), -dtz);
}

}  // namespace

std::optional<Mainline> mainline(const TableSources& tables, const Position& root, std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<Mainline> {
        if (error) *error = why;
        return std::nullopt;
    };
    Position pos = root;
    LichessResponse r = lichess_response(tables, pos);
    if (!r.pos.dtz) return fail("no table for this position");
    Mainline line;
    line.dtz = *r.pos.dtz;
    line.precise = !r.pos.syzygy;
    while (line.dtz != 0 && pos.rule50() < 100 && !r.moves.empty() && line.steps.size() < MAX_PLIES) {
        for (const MoveInfo& m : r.moves)
            if (!m.after.dtz || !m.after.wdl) return fail("no table for " + pos.fen() + " after " + m.uci);
        const MoveInfo& best = *std::min_element(
            r.moves.begin(), r.moves.end(), [](const auto& a, const auto& b) { return choice_key(a) < choice_key(b); });
        line.steps.push_back({best.uci, best.san, *best.after.dtz, !best.after.syzygy});
        pos.do_move(best.move);
        r = lichess_response(tables, pos);
    }
    if (r.moves.empty() && r.pos.checkmate) line.winner = ~pos.side_to_move();
    return line;
}

std::string to_json(const Mainline& m) {
    std::string out = "{\"mainline\":[";
    for (size_t i = 0; i < m.steps.size(); ++i) {
        const MainlineStep& s = m.steps[i];
        // UCI and SAN hold only ASCII letters, digits and + # = -: no escaping needed.
        out += (i ? ",{\"uci\":\"" : "{\"uci\":\"") + s.uci + "\",\"san\":\"" + s.san +
               "\",\"dtz\":" + std::to_string(s.dtz) +
               ",\"precise_dtz\":" + (s.precise ? std::to_string(s.dtz) : "null") + "}";
    }
    out += "],\"winner\":";
    out += m.winner ? (*m.winner == WHITE ? "\"w\"" : "\"b\"") : "null";
    out += ",\"dtz\":" + std::to_string(m.dtz) + ",\"precise_dtz\":" + (m.precise ? std::to_string(m.dtz) : "null");
    return out + "}";
}

}  // namespace pythia::server
