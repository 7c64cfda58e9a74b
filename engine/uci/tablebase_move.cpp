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

// The legal moves of a position as one set of tables values them, before the game's history;
// nullopt when the tables do not cover the position.
using Source = std::function<std::optional<std::vector<Candidate>>(const Position&, bool fifty_move_rule)>;

Source own_tables(const tb::Tablebases& tables) {
    return [&tables](const Position& root, bool fifty_move_rule) -> std::optional<std::vector<Candidate>> {
        const std::optional<std::vector<tb::RootMove>> moves = tables.rank_root_moves(root);
        if (!moves || moves->empty()) return std::nullopt;
        std::vector<Candidate> all;
        for (const tb::RootMove& rm : *moves) {
            Candidate c;
            c.move = rm.move;
            c.outcome = fifty_move_rule ? rm.wdl50 : rm.wdl > 0 ? 2 : rm.wdl < 0 ? -2 : 0;
            if (rm.dtm) c.dtm = distance_of(*rm.dtm);
            if (rm.dtz) c.dtz = distance_of(*rm.dtz);
            all.push_back(c);
        }
        return all;
    };
}

// Syzygy's DTZ files: no DTM, so wins go by the shortest DTZ50, which always makes progress.
Source syzygy_tables(const tb::SyzygyTables& syzygy) {
    return [&syzygy](const Position& root, bool fifty_move_rule) -> std::optional<std::vector<Candidate>> {
        const std::optional<std::vector<tb::SyzygyRootMove>> moves = syzygy.rank_root_moves(root);
        if (!moves || moves->empty()) return std::nullopt;
        std::vector<Candidate> all;
        for (const tb::SyzygyRootMove& sm : *moves) {
            Candidate c;
            c.move = sm.move;
            c.outcome = fifty_move_rule ? sm.wdl : sm.wdl > 0 ? 2 : sm.wdl < 0 ? -2 : 0;
            if (sm.dtz != 0) c.dtz = std::abs(sm.dtz);
            all.push_back(c);
        }
        return all;
    };
}

std::optional<Ranked> rank(const Source& source, const Position& root, bool fifty_move_rule,
                           const std::vector<Move>& allowed) {
    std::optional<std::vector<Candidate>> valued = source(root, fifty_move_rule);
    if (!valued) return std::nullopt;
    Ranked r;
    r.probes = valued->size();
    Position pos = root;
    std::vector<Candidate> all;
    for (Candidate c : *valued) {
        if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), c.move) == allowed.end()) continue;
        // The game's history: a move into a threefold repetition, or one that completes 50
        // moves without a capture or pawn move (the tables assume a fresh count), is a draw.
        pos.do_move(c.move);
        if (pos.is_threefold_repetition() || (fifty_move_rule && pos.is_fifty_move_draw())) {
            c.outcome = 0;
            c.dtm = c.dtz = std::nullopt;
        }
        pos.undo_move();
        all.push_back(c);
    }
    if (all.empty()) return std::nullopt;
    r.outcome = std::max_element(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
                    return a.outcome < b.outcome;
                })->outcome;
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

Value score_of(const Candidate& c, int outcome) {
    if (outcome == 2) return c.dtm ? mate_in(*c.dtm) : tb_win_in(c.dtz.value_or(1));
    if (outcome == -2) return c.dtm ? mated_in(*c.dtm) : tb_loss_in(c.dtz.value_or(1));
    return VALUE_DRAW;
}

const char* outcome_name(int outcome) {
    switch (outcome) {
    case 2: return "win";
    case 1: return "cursed win (a draw under the 50-move rule)";
    case 0: return "draw";
    case -1: return "blessed loss (a draw under the 50-move rule)";
    default: return "loss";
    }
}

}  // namespace

namespace {

std::optional<TablebaseMove> decide(const Source& source, const std::string& label, const Position& pos,
                                    bool fifty_move_rule, const std::vector<Move>& allowed) {
    const std::optional<Ranked> r = rank(source, pos, fifty_move_rule, allowed);
    if (!r) return std::nullopt;
    TablebaseMove out;
    for (const Candidate& c : r->best) out.moves.push_back(c.move);
    const Candidate& first = r->best.front();
    out.verdict.score = score_of(first, r->outcome);
    out.verdict.wdl = r->outcome == 2 ? std::array<int, 3>{1000, 0, 0}
                      : r->outcome == -2 ? std::array<int, 3>{0, 0, 1000}
                                         : std::array<int, 3>{0, 1000, 0};
    out.verdict.tbhits = r->probes;

    if (out.moves.size() == 1) {
        // The tables' line: both sides' choices while the tables decide alone, a few moves deep.
        Position line = pos;
        Move m = first.move;
        for (int ply = 0; ply < 16; ++ply) {
            out.verdict.pv.push_back(m);
            line.do_move(m);
            const std::optional<Ranked> next = rank(source, line, fifty_move_rule, {});
            if (!next || next->best.size() != 1) break;
            out.verdict.tbhits += next->probes;
            m = next->best.front().move;
        }
        std::string distance;
        if (first.dtm && r->outcome > 0) distance = ", mate in " + std::to_string((*first.dtm + 1) / 2) + " moves";
        else if (first.dtm) distance = ", mated in " + std::to_string(*first.dtm / 2) + " moves";
        else if (first.dtz) distance = ", " + std::to_string(*first.dtz) + (*first.dtz == 1 ? " ply" : " plies") + " to a capture or pawn move";
        out.info = label + " " + outcome_name(r->outcome) + distance + ": " + move_to_uci(first.move);
    } else {
        out.info = label + " " + outcome_name(r->outcome) + ": " + std::to_string(out.moves.size()) +
                   " moves keep it, the search chooses";
    }
    return out;
}

}  // namespace

std::optional<TablebaseMove> tablebase_move(const tb::Tablebases& tables, const Position& pos, bool fifty_move_rule,
                                            const std::vector<Move>& allowed) {
    return decide(own_tables(tables), "tablebase", pos, fifty_move_rule, allowed);
}

std::optional<TablebaseMove> syzygy_move(const tb::SyzygyTables& syzygy, const Position& pos, bool fifty_move_rule,
                                         const std::vector<Move>& allowed) {
    return decide(syzygy_tables(syzygy), "Syzygy tablebase", pos, fifty_move_rule, allowed);
}

}  // namespace pythia
