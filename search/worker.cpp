#include "search/worker.h"

#include <algorithm>
#include <cmath>

#include "engine/core/movegen.h"
#include "eval/evaluation.h"
#include "search/movepick.h"
#include "search/params.h"
#include "search/see.h"
#include "tablebase/probe/syzygy.h"
#include "tablebase/probe/tablebases.h"

namespace pythia {

using namespace search_params;

namespace {

// Late-move reduction by depth and move number: deeper and later means more reduced.
struct ReductionTable {
    int8_t r[64][64];
    ReductionTable() { fill(); }
    void fill() {
        for (int d = 0; d < 64; ++d)
            for (int m = 0; m < 64; ++m)
                r[d][m] = d && m ? int8_t(LMR_BASE / 100.0 + std::log(d) * std::log(m) / (LMR_DIVISOR / 100.0)) : 0;
    }
};
#ifdef PYTHIA_TUNE
ReductionTable REDUCTIONS;  // refilled by refresh_tuned_tables() when a tuner sets LMR_BASE or LMR_DIVISOR
#else
const ReductionTable REDUCTIONS;
#endif

int reduction(int depth, int move_count) { return REDUCTIONS.r[std::min(depth, 63)][std::min(move_count, 63)]; }

bool has_non_pawn_material(const Position& pos, Color c) { return pos.pieces(c) & ~pos.pieces(c, PAWN, KING); }

constexpr int STACK_OFFSET = 7;  // sentinel plies before the root, read by the continuation history

}  // namespace

#ifdef PYTHIA_TUNE
void refresh_tuned_tables() { REDUCTIONS.fill(); }
#endif

void Worker::clear() {
    history_.clear();
    pawns_.clear();
}

void Worker::prepare(const Position& root, const std::vector<Move>& moves) {
    pos_ = root;
    accumulators_.reset();
    // The root's accumulator now, once: a node's is then made from its nearest computed
    // ancestor's by the moves between, where an uncomputed root would make every node below
    // it that is evaluated before the root refresh from scratch.
    if (const nnue::Network* net = nnue::active_network()) accumulators_.current(*net, pos_);
    root_moves_.clear();
    for (Move m : moves) root_moves_.emplace_back(m);
    nodes_.store(0, std::memory_order_relaxed);
    tbhits_.store(0, std::memory_order_relaxed);
    root_depth_ = completed_depth_ = sel_depth_ = 0;
    multipv_ = std::clamp(shared_.multipv, 1, int(root_moves_.size()));
    check_countdown_ = TIME_CHECK_INTERVAL;
}

void Worker::count_node() {
    nodes_.store(nodes_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (id_ == 0 && --check_countdown_ <= 0) {
        check_countdown_ = TIME_CHECK_INTERVAL;
        check_time();
    }
}

// Main thread only: stops the search at the hard time limit or the node limit. Pondering
// ignores the clock until `ponderhit`.
void Worker::check_time() {
    const SearchLimits& limits = shared_.limits;
    if (limits.nodes && shared_.total_nodes() >= limits.nodes) shared_.stop = true;
    if (shared_.pondering.load(std::memory_order_relaxed)) return;
    if (shared_.time.time_limited() && shared_.time.elapsed_ms() >= shared_.time.maximum_ms()) shared_.stop = true;
}

void Worker::update_pv(int ply, Move m) {
    pv_table_[ply][0] = m;
    const int child = pv_length_[ply + 1];
    std::copy(pv_table_[ply + 1], pv_table_[ply + 1] + child, pv_table_[ply] + 1);
    pv_length_[ply] = child + 1;
}

void Worker::update_continuations(SearchStack* ss, Piece piece, Square to, int bonus) {
    for (int i : {1, 2})
        if ((ss - i)->move.is_ok()) update_history_entry((*(ss - i)->continuation)[piece][to], bonus);
}

void Worker::update_quiet_stats(SearchStack* ss, Move m, int bonus) {
    if (ss->killers[0] != m) {
        ss->killers[1] = ss->killers[0];
        ss->killers[0] = m;
    }
    const Color us = pos_.side_to_move();
    update_history_entry(history_.quiet[us][m.from()][m.to()], bonus);
    update_continuations(ss, pos_.moved_piece(m), m.to(), bonus);
    if ((ss - 1)->move.is_ok()) history_.counter[(ss - 1)->moved_piece][(ss - 1)->move.to()] = m;
}

void Worker::iterative_deepening() {
    SearchStack stack[MAX_PLY + STACK_OFFSET + 3] = {};
    SearchStack* ss = stack + STACK_OFFSET;
    for (int i = 0; i < MAX_PLY + STACK_OFFSET + 3; ++i) {
        stack[i].ply = i - STACK_OFFSET;
        stack[i].continuation = &history_.continuation[NO_PIECE][0];
    }
    const SearchLimits& limits = shared_.limits;
    const bool main = id_ == 0;
    // Helper threads start one ply deeper half of the time, so that the threads spread over
    // different depths and fill the shared table with different results.
    const int first_depth = (id_ & 1) ? 2 : 1;
    double instability = 1.0;

    for (int depth = first_depth; depth < MAX_PLY && !stopping(); ++depth) {
        if (limits.depth && depth > limits.depth) break;
        root_depth_ = depth;
        for (RootMove& rm : root_moves_) rm.previous_score = rm.score;
        best_move_changes_ = 0;

        for (pv_idx_ = 0; pv_idx_ < multipv_ && !stopping(); ++pv_idx_) {
            sel_depth_ = 0;
            // Aspiration window around the last score, widened on each failure.
            const Value previous = root_moves_[pv_idx_].previous_score;
            Value delta = ASPIRATION_DELTA, alpha = -VALUE_INFINITE, beta = VALUE_INFINITE;
            if (root_depth_ >= ASPIRATION_MIN_DEPTH && previous != -VALUE_INFINITE && !is_decisive(previous)) {
                alpha = std::max(previous - delta, -VALUE_INFINITE);
                beta = std::min(previous + delta, VALUE_INFINITE);
            }
            while (true) {
                pv_length_[0] = 0;
                const Value v = search<true>(ss, alpha, beta, root_depth_, false);
                // Moves that did not reach alpha are at -INF and sort by their last score.
                std::stable_sort(
                    root_moves_.begin() + pv_idx_, root_moves_.end(), [](const RootMove& a, const RootMove& b) {
                        return a.score != b.score ? a.score > b.score : a.previous_score > b.previous_score;
                    });
                if (stopping()) break;
                if (v <= alpha) {
                    root_moves_[pv_idx_].bound = BOUND_UPPER;
                    beta = (alpha + beta) / 2;
                    alpha = std::max(v - delta, -VALUE_INFINITE);
                } else if (v >= beta) {
                    root_moves_[pv_idx_].bound = BOUND_LOWER;
                    beta = std::min(v + delta, VALUE_INFINITE);
                } else {
                    root_moves_[pv_idx_].bound = BOUND_EXACT;
                    break;
                }
                if (main && shared_.time.elapsed_ms() > REPORT_BOUNDS_AFTER_MS && multipv_ == 1) shared_.report(*this);
                delta += delta / 2;
            }
            std::stable_sort(root_moves_.begin(), root_moves_.begin() + pv_idx_ + 1,
                             [](const RootMove& a, const RootMove& b) { return a.score > b.score; });
        }
        if (!stopping()) completed_depth_ = root_depth_;
        if (!main) continue;
        shared_.report(*this);

        // A mate within the asked number of moves ends a `go mate` search.
        const Value best = root_moves_[0].score;
        if (limits.mate && best >= VALUE_MATE_IN_MAX_PLY && VALUE_MATE - best <= 2 * limits.mate) shared_.stop = true;

        // Time: stop once the optimum is used up, sooner when the best move is stable and
        // later when it keeps changing. One legal move needs no thought.
        if (shared_.time.time_limited() && !shared_.time.fixed() &&
            !shared_.pondering.load(std::memory_order_relaxed) && !stopping()) {
            const int changes = std::min(best_move_changes_, INSTABILITY_MAX_CHANGES);
            instability = INSTABILITY_OLD_WEIGHT * instability +
                          INSTABILITY_NEW_WEIGHT * (INSTABILITY_BASE + INSTABILITY_PER_CHANGE * changes);
            const double budget = shared_.time.optimum_ms() * std::clamp(instability, INSTABILITY_MIN, INSTABILITY_MAX);
            const bool mate_proven =
                is_mate_score(best) && root_depth_ > 2 * (VALUE_MATE - std::abs(best)) + MATE_PROVEN_EXTRA_DEPTH;
            if (root_moves_.size() == 1 || mate_proven || shared_.time.elapsed_ms() >= budget * TIME_ITERATION_SHARE)
                shared_.stop = true;
        }
    }
}

template <bool PV>
Value Worker::search(SearchStack* ss, Value alpha, Value beta, int depth, bool cut_node) {
    const bool root = ss->ply == 0;
    const int ply = ss->ply;

    // Step 1. At the horizon, settle the captures with quiescence search.
    if (depth <= 0) return qsearch<PV>(ss, alpha, beta);
    depth = std::min(depth, MAX_PLY - 1);

    // Step 2. Bookkeeping: count the node (and look at the clock), start a fresh PV.
    count_node();
    if constexpr (PV) {
        pv_length_[ply] = 0;
        sel_depth_ = std::max(sel_depth_, ply + 1);
    }
    ss->in_check = pos_.in_check();
    ss->move_count = 0;
    (ss + 1)->excluded = Move::none();
    (ss + 2)->killers[0] = (ss + 2)->killers[1] = Move::none();

    if (!root) {
        // Step 3. Aborted search, draws by repetition, the 50-move rule or material, and the
        // end of the stack.
        if (stopping()) return VALUE_ZERO;
        if (pos_.is_draw(ply) || pos_.has_insufficient_material()) return VALUE_DRAW;
        if (ply >= MAX_PLY - 1) return ss->in_check ? VALUE_DRAW : static_evaluation(pos_, pawns_, accumulators_);

        // Step 4. Mate distance pruning: no line from here can beat a mate already found
        // nearer the root.
        alpha = std::max(mated_in(ply), alpha);
        beta = std::min(mate_in(ply + 1), beta);
        if (alpha >= beta) return alpha;
    }

    // Step 5. Transposition table: a deep enough result with a fitting bound ends the node
    // (not in PV nodes, whose line we want to keep exact, and not near the 50-move horizon,
    // which the stored value does not know).
    const Key key = pos_.key();
    TTData tte;
    const bool tt_hit = pos_.rule50() < TT_RULE50_LIMIT ? shared_.tt.probe(key, ply, tte) : false;
    const Move tt_move = root ? root_moves_[pv_idx_].move : tt_hit ? tte.move : Move::none();
    if (!PV && !ss->excluded && tt_hit && tte.depth >= depth && tte.value != VALUE_NONE &&
        (tte.bound & (tte.value >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tte.value;

    // Step 6. Tablebase WDL probe: right after a capture or pawn move (so that the 50-move
    // counter the tables assume is the real one), with no castling rights and few enough
    // pieces, the tables give the outcome. A win is a score below the mates, nearer the root
    // better (tb_win_in); it is a lower bound (a mate may be found), a loss an upper bound, a
    // draw exact. A bound that cuts, or an exact draw, ends the node and goes to the table.
    // Pythia's own tables first; Syzygy's (tablebase/probe/syzygy.h) for what they do not hold.
    Value tb_ceiling = VALUE_INFINITE, tb_floor = -VALUE_INFINITE;
    const TablebaseProbing& tbp = shared_.tb;
    if (!root && (tbp.tables || tbp.syzygy) && !ss->excluded && pos_.rule50() == 0 && !pos_.castling_rights()) {
        std::optional<int> wdl;
        bool fifty_move_rule = tbp.fifty_move_rule;
        if (tbp.tables && pos_.count_all() <= tbp.piece_limit && depth >= tbp.min_depth)
            wdl = tbp.tables->probe_wdl(pos_);
        if (!wdl && tbp.syzygy && pos_.count_all() <= tbp.syzygy_piece_limit && depth >= tbp.syzygy_min_depth) {
            wdl = tbp.syzygy->probe_wdl(pos_);
            fifty_move_rule = tbp.syzygy_fifty_move_rule;
        }
        if (wdl) {
            tbhits_.store(tbhits_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            const int draw_band = fifty_move_rule ? 1 : 0;  // |wdl| <= this is a draw
            const Value v = *wdl > draw_band    ? tb_win_in(ply)
                            : *wdl < -draw_band ? tb_loss_in(ply)
                                                : VALUE_DRAW + *wdl;  // a cursed win a hair above 0
            const Bound b = *wdl > draw_band ? BOUND_LOWER : *wdl < -draw_band ? BOUND_UPPER : BOUND_EXACT;
            if (b == BOUND_EXACT || (b == BOUND_LOWER ? v >= beta : v <= alpha)) {
                shared_.tt.store(key, ply, Move::none(), v, VALUE_NONE,
                                 std::min(depth + TB_STORE_EXTRA_DEPTH, MAX_PLY - 1), b);
                return v;
            }
            if constexpr (PV) {
                if (b == BOUND_LOWER) {
                    tb_floor = v;
                    alpha = std::max(alpha, v);
                } else {
                    tb_ceiling = v;
                }
            }
        }
    }

    // Step 7. Static evaluation, and whether it improved on two plies ago.
    Value eval, raw_eval = VALUE_NONE;  // raw: as the evaluation gives it, which the TT keeps
    bool improving = false;
    if (ss->in_check) {
        ss->static_eval = eval = VALUE_NONE;
    } else {
        if (tt_hit && tte.eval != VALUE_NONE)
            raw_eval = tte.eval;
        else {
            raw_eval = static_evaluation(pos_, pawns_, accumulators_);
            if (!tt_hit) shared_.tt.store(key, ply, Move::none(), VALUE_NONE, raw_eval, -1, BOUND_NONE);
        }
        ss->static_eval = eval = corrected(raw_eval);
        // A stored search result is a better estimate than the static evaluation.
        if (tt_hit && tte.value != VALUE_NONE && (tte.bound & (tte.value > eval ? BOUND_LOWER : BOUND_UPPER)))
            eval = tte.value;
        const Value earlier = (ss - 2)->static_eval != VALUE_NONE ? (ss - 2)->static_eval : (ss - 4)->static_eval;
        improving = earlier == VALUE_NONE || ss->static_eval > earlier;
    }

    if (!PV && !ss->in_check && !ss->excluded && !is_decisive(eval)) {
        // Step 8. Reverse futility pruning: so far above beta that a quiet move of ours is
        // unlikely to be refuted at this small depth.
        if (depth <= RFP_MAX_DEPTH && eval - RFP_MARGIN * (depth - improving) >= beta) return eval;

        // Step 9. Razoring: hopelessly below alpha; if the captures cannot help, give up.
        if (depth <= RAZOR_MAX_DEPTH && eval + RAZOR_MARGIN * depth <= alpha && !is_mate_score(alpha)) {
            const Value v = qsearch<false>(ss, alpha, alpha + 1);
            if (v <= alpha) return v;
        }

        // Step 10. Null move pruning: if passing still fails high, a real move would too
        // (not in pawn endings, where zugzwang makes passing a poor guide).
        if (depth >= NMP_MIN_DEPTH && eval >= beta && ss->static_eval >= beta && (ss - 1)->move != Move::null() &&
            !ss->excluded && has_non_pawn_material(pos_, pos_.side_to_move()) && beta > VALUE_TB_LOSS_IN_MAX_PLY) {
            const int r =
                NMP_BASE + depth / NMP_DEPTH_DIVISOR + std::min((eval - beta) / NMP_EVAL_DIVISOR, NMP_EVAL_MAX);
            ss->move = Move::null();
            ss->moved_piece = NO_PIECE;
            ss->continuation = &history_.continuation[NO_PIECE][0];
            accumulators_.push_null();
            pos_.do_null_move();
            const Value v = -search<false>(ss + 1, -beta, -beta + 1, depth - r, !cut_node);
            pos_.undo_null_move();
            accumulators_.pop();
            if (stopping()) return VALUE_ZERO;
            if (v >= beta) return v >= VALUE_TB_WIN_IN_MAX_PLY ? beta : v;
        }
    }

    // Step 11. Internal iterative reduction: without a stored move the ordering is poor and
    // a full-depth search of this node is probably wasted.
    if (!root && !tt_move && depth >= IIR_MIN_DEPTH && (PV || cut_node)) --depth;

    // Step 12. The move loop.
    const Move counter =
        (ss - 1)->move.is_ok() ? history_.counter[(ss - 1)->moved_piece][(ss - 1)->move.to()] : Move::none();
    MovePicker picker(pos_, tt_move, history_, ss, counter, false);
    const CheckInfo check_info = pos_.check_info();
    const Color us = pos_.side_to_move();
    Value best = tb_floor;
    Move best_move = Move::none();
    Move quiets_tried[64], captures_tried[32];
    int quiet_count = 0, capture_count = 0, move_count = 0;
    bool skip_quiets = false;

    for (Move m = picker.next(); m; m = picker.next()) {
        if (m == ss->excluded) continue;
        // At the root only the moves of this MultiPV line and the ones after it.
        if (root && std::find_if(root_moves_.begin() + pv_idx_, root_moves_.end(),
                                 [m](const RootMove& rm) { return rm.move == m; }) == root_moves_.end())
            continue;
        ss->move_count = ++move_count;
        const bool capture = pos_.is_capture(m);
        const bool quiet = !pos_.is_tactical(m);
        const bool gives_check = pos_.gives_check(m, check_info);
        const Piece moved = pos_.moved_piece(m);
        const int history_score = quiet ? history_.quiet[us][m.from()][m.to()] +
                                              (*(ss - 1)->continuation)[moved][m.to()] +
                                              (*(ss - 2)->continuation)[moved][m.to()]
                                        : 0;

        // Step 13. Pruning at shallow depth, once a move has saved us from being mated (and
        // not while looking for a shorter mate than one already found: that needs every move).
        if (!root && best > VALUE_TB_LOSS_IN_MAX_PLY && has_non_pawn_material(pos_, us) && !is_mate_score(alpha)) {
            if (quiet && !gives_check) {
                if (skip_quiets) continue;
                // Late move pruning: enough quiet moves tried at this small depth.
                if (depth <= LMP_MAX_DEPTH && move_count >= (LMP_BASE + depth * depth) / (2 - improving)) {
                    skip_quiets = true;
                    continue;
                }
                const int lmr_depth = std::max(depth - 1 - reduction(depth, move_count), 0);
                // Futility pruning: the static evaluation plus a margin cannot reach alpha.
                if (!ss->in_check && lmr_depth <= FUTILITY_MAX_DEPTH &&
                    ss->static_eval + FUTILITY_BASE + FUTILITY_PER_DEPTH * lmr_depth <= alpha)
                    continue;
                // History pruning: a move that has failed everywhere so far.
                if (lmr_depth <= HISTORY_PRUNING_MAX_DEPTH && history_score < -HISTORY_PRUNING_MARGIN * depth) continue;
                // SEE pruning: the move loses material on its square.
                if (lmr_depth <= SEE_PRUNING_MAX_DEPTH && !see_ge(pos_, m, -SEE_QUIET_MARGIN * lmr_depth * lmr_depth))
                    continue;
            } else if (depth <= SEE_PRUNING_MAX_DEPTH && !see_ge(pos_, m, -SEE_TACTICAL_MARGIN * depth)) {
                continue;  // a losing capture or check at small depth
            }
        }

        // Step 14. Extensions. Singular extension: when the stored move is much better than
        // every alternative (a reduced search without it fails low), search it one ply deeper;
        // when even the alternatives beat beta, the node fails high without more work
        // (multi-cut). Otherwise a check is searched one ply deeper (within reason).
        int extension = 0;
        if (!root && m == tt_move && depth >= SINGULAR_MIN_DEPTH && !ss->excluded && tt_hit &&
            (tte.bound & BOUND_LOWER) && tte.depth >= depth - SINGULAR_TT_DEPTH_MARGIN && tte.value != VALUE_NONE &&
            !is_decisive(tte.value) && ply < EXTENSION_PLY_FACTOR * root_depth_) {
            const Value singular_beta = tte.value - SINGULAR_MARGIN * depth;
            ss->excluded = m;
            const Value v = search<false>(ss, singular_beta - 1, singular_beta, (depth - 1) / 2, cut_node);
            ss->excluded = Move::none();
            if (stopping()) return VALUE_ZERO;
            if (v < singular_beta)
                extension = 1;
            else if (singular_beta >= beta)
                return singular_beta;
        } else if (gives_check && ply < EXTENSION_PLY_FACTOR * root_depth_) {
            extension = 1;
        }
        const int new_depth = depth - 1 + extension;

        // Make the move.
        ss->move = m;
        ss->moved_piece = moved;
        ss->continuation = &history_.continuation[moved][m.to()];
        shared_.tt.prefetch(pos_.key_after(m));
        accumulators_.push(pos_, m);
        pos_.do_move(m);
        // The child's line starts empty: a null-window child does not reset it, and a fail
        // high in a PV node copies it (a stale line here once ran on past a mate).
        if constexpr (PV) pv_length_[ply + 1] = 0;

        // Step 15. Late move reductions, then principal variation search: later moves get
        // a reduced null-window search first, and only those that beat alpha are searched again.
        Value v = -VALUE_INFINITE;
        if (depth >= LMR_MIN_DEPTH && move_count > 1 + root && (quiet || move_count > LMR_TACTICAL_MIN_MOVES) &&
            !is_mate_score(alpha)) {
            int r = reduction(depth, move_count);
            r += !PV;
            r += !improving;
            r += cut_node;
            r -= m == ss->killers[0] || m == ss->killers[1] || m == counter;
            r -= gives_check;
            r -= history_score / LMR_HISTORY_DIVISOR;
            const int reduced = std::clamp(new_depth - r, 1, new_depth);
            if constexpr (PV) pv_length_[ply + 1] = 0;
            v = -search<false>(ss + 1, -(alpha + 1), -alpha, reduced, true);
            if (v > alpha && reduced < new_depth)
                v = -search<false>(ss + 1, -(alpha + 1), -alpha, new_depth, !cut_node);
        } else if (!PV || move_count > 1) {
            v = -search<false>(ss + 1, -(alpha + 1), -alpha, new_depth, !cut_node);
        }
        if (PV && (move_count == 1 || (v > alpha && (root || v < beta)))) {
            pv_length_[ply + 1] = 0;
            v = -search<true>(ss + 1, -beta, -alpha, new_depth, false);
        }
        pos_.undo_move();
        accumulators_.pop();
        if (stopping()) return VALUE_ZERO;

        // Step 16. At the root, remember the score and line of every move that raised alpha.
        if (root) {
            RootMove& rm =
                *std::find_if(root_moves_.begin(), root_moves_.end(), [m](const RootMove& r) { return r.move == m; });
            if (move_count == 1 || v > alpha) {
                rm.score = v;
                rm.sel_depth = sel_depth_;
                rm.pv.assign(1, m);
                rm.pv.insert(rm.pv.end(), pv_table_[1], pv_table_[1] + pv_length_[1]);
                if (move_count > 1) ++best_move_changes_;
            } else {
                rm.score = -VALUE_INFINITE;
            }
        }

        // Step 17. A new best move; beyond beta the node fails high.
        if (v > best) {
            best = v;
            if (v > alpha) {
                best_move = m;
                if (PV && !root) update_pv(ply, m);
                if (v >= beta) break;
                alpha = v;
            }
        }
        if (m != best_move) {
            if (quiet && quiet_count < 64)
                quiets_tried[quiet_count++] = m;
            else if (capture && capture_count < 32)
                captures_tried[capture_count++] = m;
        }
    }

    // Step 18. No legal move: checkmate or stalemate.
    if (!move_count) return ss->excluded ? alpha : ss->in_check ? mated_in(ply) : VALUE_DRAW;

    // Step 19. Learn from a cutoff: reward the move that caused it, penalise those tried before.
    if (best >= beta && best_move) {
        const int bonus = history_bonus(depth);
        if (!pos_.is_tactical(best_move)) {
            update_quiet_stats(ss, best_move, bonus);
            for (int i = 0; i < quiet_count; ++i) {
                update_history_entry(history_.quiet[us][quiets_tried[i].from()][quiets_tried[i].to()], -bonus);
                update_continuations(ss, pos_.moved_piece(quiets_tried[i]), quiets_tried[i].to(), -bonus);
            }
        } else if (pos_.is_capture(best_move)) {
            const PieceType victim =
                best_move.kind() == Move::EN_PASSANT ? PAWN : type_of(pos_.piece_on(best_move.to()));
            update_history_entry(history_.capture[pos_.moved_piece(best_move)][best_move.to()][victim], bonus);
        }
        for (int i = 0; i < capture_count; ++i) {
            const Move c = captures_tried[i];
            const PieceType victim = c.kind() == Move::EN_PASSANT ? PAWN : type_of(pos_.piece_on(c.to()));
            update_history_entry(history_.capture[pos_.moved_piece(c)][c.to()][victim], -bonus);
        }
    }

    // A tablebase loss bounds what the moves could show (PV nodes search on for the line).
    if constexpr (PV) best = std::min(best, tb_ceiling);

    // Step 19b. Teach the correction history what the search found beyond the static
    // evaluation: only from a quiet best move (a capture's gain is no error of the evaluation)
    // and only what the bound proves (a fail high above the evaluation, a fail low below it).
    if (!ss->in_check && !ss->excluded && (!best_move || !pos_.is_tactical(best_move)) && !is_decisive(best) &&
        !(best >= beta && best <= ss->static_eval) && !(!best_move && best >= ss->static_eval))
        update_correction(correction_entry(), best - raw_eval, depth);

    // Step 20. Store the result (not for the secondary lines of MultiPV, whose root scores
    // exclude the better moves).
    if (!ss->excluded && !(root && pv_idx_ > 0))
        shared_.tt.store(key, ply, best_move, best, raw_eval, depth,
                         best >= beta      ? BOUND_LOWER
                         : PV && best_move ? BOUND_EXACT
                                           : BOUND_UPPER);
    return best;
}

template <bool PV>
Value Worker::qsearch(SearchStack* ss, Value alpha, Value beta) {
    const int ply = ss->ply;
    count_node();
    if constexpr (PV) {
        pv_length_[ply] = 0;
        sel_depth_ = std::max(sel_depth_, ply + 1);
    }
    ss->in_check = pos_.in_check();

    // Step 1. Aborted search, draws, end of the stack.
    if (stopping()) return VALUE_ZERO;
    if (pos_.is_draw(ply) || pos_.has_insufficient_material()) return VALUE_DRAW;
    if (ply >= MAX_PLY - 1) return ss->in_check ? VALUE_DRAW : static_evaluation(pos_, pawns_, accumulators_);

    // Step 2. Transposition table.
    const Key key = pos_.key();
    TTData tte;
    const bool tt_hit = shared_.tt.probe(key, ply, tte);
    if (!PV && tt_hit && tte.value != VALUE_NONE && (tte.bound & (tte.value >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tte.value;

    // Step 3. Stand pat: outside check the side to move may decline every capture.
    Value best = -VALUE_INFINITE, raw_eval = VALUE_NONE;
    if (ss->in_check) {
        ss->static_eval = VALUE_NONE;
    } else {
        raw_eval = tt_hit && tte.eval != VALUE_NONE ? tte.eval : static_evaluation(pos_, pawns_, accumulators_);
        ss->static_eval = best = corrected(raw_eval);
        if (tt_hit && tte.value != VALUE_NONE && (tte.bound & (tte.value > best ? BOUND_LOWER : BOUND_UPPER)))
            best = tte.value;
        if (best >= beta) {
            if (!tt_hit) shared_.tt.store(key, ply, Move::none(), best, raw_eval, DEPTH_QS, BOUND_LOWER);
            return best;
        }
        alpha = std::max(alpha, best);
    }

    // Step 4. Captures (and every evasion when in check), with futility and SEE pruning.
    MovePicker picker(pos_, tt_hit ? tte.move : Move::none(), history_, ss, Move::none(), true);
    Move best_move = Move::none();
    int move_count = 0;
    for (Move m = picker.next(); m; m = picker.next()) {
        ++move_count;
        if (!ss->in_check && best > VALUE_TB_LOSS_IN_MAX_PLY) {
            if (m.kind() != Move::PROMOTION && pos_.is_capture(m)) {
                const PieceType victim = m.kind() == Move::EN_PASSANT ? PAWN : type_of(pos_.piece_on(m.to()));
                const Value futility = ss->static_eval + QS_FUTILITY_MARGIN + SEE_VALUE[victim];
                if (futility <= alpha && !pos_.gives_check(m)) {
                    best = std::max(best, futility);
                    continue;
                }
            }
            if (!see_ge(pos_, m, 0)) continue;
        }
        ss->move = m;
        ss->moved_piece = pos_.moved_piece(m);
        ss->continuation = &history_.continuation[ss->moved_piece][m.to()];
        accumulators_.push(pos_, m);
        pos_.do_move(m);
        const Value v = -qsearch<PV>(ss + 1, -beta, -alpha);
        pos_.undo_move();
        accumulators_.pop();
        if (stopping()) return VALUE_ZERO;
        if (v > best) {
            best = v;
            if (v > alpha) {
                best_move = m;
                if constexpr (PV) update_pv(ply, m);
                if (v >= beta) break;
                alpha = v;
            }
        }
    }

    // Step 5. In check without a move: mated.
    if (ss->in_check && !move_count) return mated_in(ply);

    shared_.tt.store(key, ply, best_move, best, raw_eval, DEPTH_QS,
                     best >= beta      ? BOUND_LOWER
                     : PV && best_move ? BOUND_EXACT
                                       : BOUND_UPPER);
    return best;
}

template Value Worker::search<true>(SearchStack*, Value, Value, int, bool);
template Value Worker::search<false>(SearchStack*, Value, Value, int, bool);

}  // namespace pythia
