#include "engine/uci/tablebase_move.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "engine/core/notation.h"

namespace pythia {

namespace {

using tb::distance_of;

// A root move as the decision sees it: its outcome after the 50-move rule and the game's
// history, and its distances (plies, counting the move itself) where the tables have them.
struct Candidate {
    Move move;
    int outcome = 0;  // 2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss (mover's view)
    std::optional<int> dtm, dtz;
};

struct Ranked {
    std::vector<Candidate> best;  // the moves that keep the best outcome
    int outcome = 0;
    uint64_t probes = 0;
};

// A candidate into a threefold repetition, or one that completes 50 moves without a capture or
// pawn move (the tables assume a fresh count), is a draw: the game's history decides.
void apply_history(const Position& root, bool fifty_move_rule, Candidate& c) {
    Position pos = root;
    pos.do_move(c.move);
    if (pos.is_threefold_repetition() || (fifty_move_rule && pos.is_fifty_move_draw())) {
        c.outcome = 0;
        c.dtm = c.dtz = std::nullopt;
    }
}

// The moves that keep the best outcome of `all`, best first. `all_known`: false if some moves'
// outcomes are unknown; then only a known win is played (an unknown move might do better than
// a known draw or loss, but a known win is won whatever the others are).
std::optional<Ranked> pick(std::vector<Candidate> all, bool all_known, uint64_t probes) {
    if (all.empty()) return std::nullopt;
    Ranked r;
    r.probes = probes;
    r.outcome = std::max_element(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
                    return a.outcome < b.outcome;
                })->outcome;
    if (!all_known && r.outcome != 2) return std::nullopt;
    for (const Candidate& c : all)
        if (c.outcome == r.outcome) r.best.push_back(c);

    // Wins: the shortest mate (then the quickest zeroing); losses: the longest resistance.
    // Without DTM the DTZ50 order alone, which always makes progress under the 50-move rule.
    if (r.outcome == 2 || r.outcome == -2) {
        const bool all_dtm = std::all_of(r.best.begin(), r.best.end(), [](const Candidate& c) { return bool(c.dtm); });
        const bool all_dtz = std::all_of(r.best.begin(), r.best.end(), [](const Candidate& c) { return bool(c.dtz); });
        const int sign = r.outcome > 0 ? 1 : -1;  // wins: smaller is better; losses: larger
        auto key = [&](const Candidate& c) {
            return std::pair<int, int>(all_dtm ? sign * *c.dtm : 0, all_dtz ? sign * *c.dtz : 0);
        };
        std::stable_sort(r.best.begin(), r.best.end(),
                         [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
        if (all_dtm || all_dtz) r.best.resize(1);
    }
    return r;
}

bool is_allowed(const std::vector<Move>& allowed, Move m) {
    return allowed.empty() || std::find(allowed.begin(), allowed.end(), m) != allowed.end();
}

std::optional<Ranked> rank(const tb::Tablebases& tables, const Position& root, bool fifty_move_rule,
                           const std::vector<Move>& allowed) {
    const std::optional<std::vector<tb::RootMove>> moves = tables.rank_root_moves(root);
    if (!moves || moves->empty()) return std::nullopt;
    std::vector<Candidate> all;
    for (const tb::RootMove& rm : *moves) {
        if (!is_allowed(allowed, rm.move)) continue;
        Candidate c;
        c.move = rm.move;
        c.outcome = fifty_move_rule ? rm.wdl50 : rm.wdl > 0 ? 2 : rm.wdl < 0 ? -2 : 0;
        if (rm.dtm) c.dtm = distance_of(*rm.dtm);
        if (rm.dtz) c.dtz = distance_of(*rm.dtz);
        apply_history(root, fifty_move_rule, c);
        all.push_back(c);
    }
    return pick(std::move(all), true, moves->size());
}

// The same from Syzygy's DTZ files (no DTM: wins go by the shortest DTZ50, which always makes
// progress under the 50-move rule).
std::optional<Ranked> rank_syzygy(const tb::SyzygyTables& syzygy, const Position& root, bool fifty_move_rule,
                                  const std::vector<Move>& allowed) {
    const std::optional<std::vector<tb::SyzygyRootMove>> moves = syzygy.rank_root_moves(root);
    if (!moves || moves->empty()) return std::nullopt;
    std::vector<Candidate> all;
    for (const tb::SyzygyRootMove& sm : *moves) {
        if (!is_allowed(allowed, sm.move)) continue;
        Candidate c;
        c.move = sm.move;
        c.outcome = fifty_move_rule ? sm.wdl : sm.wdl > 0 ? 2 : sm.wdl < 0 ? -2 : 0;
        if (sm.dtz != 0) c.dtz = std::abs(sm.dtz);
        apply_history(root, fifty_move_rule, c);
        all.push_back(c);
    }
    return pick(std::move(all), true, moves->size());
}

// The same from a tablebase server's answer: each move's category is the opponent's view of
// the position after it, with the root's halfmove clock already counted.
std::optional<Ranked> rank_remote(const server::LichessResponse& answer, const Position& root, bool fifty_move_rule,
                                  const std::vector<Move>& allowed) {
    std::vector<Candidate> all;
    bool all_known = true;
    for (const server::MoveInfo& m : answer.moves) {
        if (!is_allowed(allowed, m.move)) continue;
        const std::optional<int> wdl = server::category_wdl(server::negate(m.after.category));
        if (!wdl) {
            all_known = false;
            continue;
        }
        Candidate c;
        c.move = m.move;
        c.outcome = fifty_move_rule ? *wdl : *wdl > 0 ? 2 : *wdl < 0 ? -2 : 0;
        if (m.after.checkmate)
            c.dtm = c.dtz = 1;
        else {
            if (m.after.dtm && *m.after.dtm != 0) c.dtm = std::abs(*m.after.dtm) + 1;
            if (m.zeroing && c.outcome != 0)
                c.dtz = 1;
            else if (m.after.dtz && *m.after.dtz != 0)
                c.dtz = std::abs(*m.after.dtz) + 1;
        }
        apply_history(root, fifty_move_rule, c);
        all.push_back(c);
    }
    return pick(std::move(all), all_known, 0);
}

Value score_of(const Candidate& c, int outcome) {
    if (outcome == 2) return c.dtm ? mate_in(*c.dtm) : tb_win_in(c.dtz.value_or(1));
    if (outcome == -2) return c.dtm ? mated_in(*c.dtm) : tb_loss_in(c.dtz.value_or(1));
    return VALUE_DRAW;
}

const char* outcome_name(int outcome) {
    switch (outcome) {
        case 2:
            return "win";
        case 1:
            return "cursed win (a draw under the 50-move rule)";
        case 0:
            return "draw";
        case -1:
            return "blessed loss (a draw under the 50-move rule)";
        default:
            return "loss";
    }
}

// The decision from ranked moves. `line`: extends the tables' line from a position (local
// tables only); `source`: "tablebase" or "tablebase server".
TablebaseMove decision(const Ranked& r, const Position& pos, const std::string& source,
                       const std::function<std::optional<Ranked>(const Position&)>& line_rank) {
    TablebaseMove out;
    for (const Candidate& c : r.best) out.moves.push_back(c.move);
    const Candidate& first = r.best.front();
    out.verdict.score = score_of(first, r.outcome);
    out.verdict.wdl = r.outcome == 2    ? std::array<int, 3>{1000, 0, 0}
                      : r.outcome == -2 ? std::array<int, 3>{0, 0, 1000}
                                        : std::array<int, 3>{0, 1000, 0};
    out.verdict.tbhits = r.probes;

    if (out.moves.size() == 1) {
        // The tables' line: both sides' choices while the tables decide alone, a few moves deep.
        Position line = pos;
        Move m = first.move;
        for (int ply = 0; ply < 16; ++ply) {
            out.verdict.pv.push_back(m);
            if (!line_rank) break;
            line.do_move(m);
            const std::optional<Ranked> next = line_rank(line);
            if (!next || next->best.size() != 1) break;
            out.verdict.tbhits += next->probes;
            m = next->best.front().move;
        }
        std::string distance;
        if (first.dtm && r.outcome > 0)
            distance = ", mate in " + std::to_string((*first.dtm + 1) / 2) + " moves";
        else if (first.dtm)
            distance = ", mated in " + std::to_string(*first.dtm / 2) + " moves";
        else if (first.dtz)
            distance = ", " + std::to_string(*first.dtz) + (*first.dtz == 1 ? " ply" : " plies") +
                       " to a capture or pawn move";
        out.info = source + " " + outcome_name(r.outcome) + distance + ": " + move_to_uci(first.move);
    } else {
        out.info = source + " " + outcome_name(r.outcome) + ": " + std::to_string(out.moves.size()) +
                   " moves keep it, the search chooses";
    }
    return out;
}

}  // namespace

std::optional<TablebaseMove> tablebase_move(const tb::Tablebases& tables, const Position& pos, bool fifty_move_rule,
                                            const std::vector<Move>& allowed) {
    const std::optional<Ranked> r = rank(tables, pos, fifty_move_rule, allowed);
    if (!r) return std::nullopt;
    return decision(*r, pos, "tablebase", [&](const Position& p) { return rank(tables, p, fifty_move_rule, {}); });
}

std::optional<TablebaseMove> syzygy_move(const tb::SyzygyTables& syzygy, const Position& pos, bool fifty_move_rule,
                                         const std::vector<Move>& allowed) {
    const std::optional<Ranked> r = rank_syzygy(syzygy, pos, fifty_move_rule, allowed);
    if (!r) return std::nullopt;
    return decision(*r, pos, "Syzygy tablebase",
                    [&](const Position& p) { return rank_syzygy(syzygy, p, fifty_move_rule, {}); });
}

std::optional<TablebaseMove> remote_tablebase_move(const server::LichessResponse& answer, const Position& pos,
                                                   bool fifty_move_rule, const std::vector<Move>& allowed) {
    const std::optional<Ranked> r = rank_remote(answer, pos, fifty_move_rule, allowed);
    if (!r) return std::nullopt;
    return decision(*r, pos, "tablebase server:", {});
}

}  // namespace pythia
