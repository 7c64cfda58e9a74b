// The search's constants, in one place and by name (as eval/params.h holds the evaluation's):
// pruning, reductions and extensions, the histories and move ordering, the transposition table,
// the clock, the strength limit. Margins are in centipawns, depths in plies. Changing one
// changes the bench signature (but for the clock's, the strength limit's and the WDL model's,
// which the bench does not use). A change needs a match (scripts/match --sprt) before it is
// kept, a timed one for the clock's; the strength limit's need a new calibration.
//
// The margins and weights are PYTHIA_TUNABLE(name, value, min, max): constants here, UCI options
// in the tuning build, where scripts/spsa moves them by SPSA within [min, max]. Depth limits and
// move counts stay plain constants, as a step of one is too coarse for SPSA, and so do the scales
// other constants are measured in and what a node-limited game does not see.
//
// The margins measured in evaluation units (aspiration, RFP, razoring, null move's eval
// divisor, futility, quiescence futility) are 1.4 times those tuned with the hand-written
// evaluation, because the net's scores are about 1.4 times as large (search/README.md). The
// SEE margins are in SEE's piece values and LMR's in plies; they did not move.
#pragma once

#include "search/tunable.h"

namespace pythia::search_params {

// Late-move reductions: reduction(depth, move) = (LMR_BASE + 100 ln(depth) ln(move) / LMR_DIVISOR)
// / 100 plies, both in hundredths.
PYTHIA_TUNABLE(LMR_BASE, 75, 0, 200);
PYTHIA_TUNABLE(LMR_DIVISOR, 225, 120, 400);
constexpr int LMR_MIN_DEPTH = 3;  // no reduction above the last plies
// Captures and promotions are reduced only after this many moves: they come in order of
// expected gain, so the first few are likely the best.
constexpr int LMR_TACTICAL_MIN_MOVES = 4;
// A ply less (more) per this much good (bad) history.
PYTHIA_TUNABLE(LMR_HISTORY_DIVISOR, 8000, 3000, 16000);

// Extensions (singular and check) only at plies below this many times the iteration's depth,
// so that a long line of checks cannot make an iteration endless.
constexpr int EXTENSION_PLY_FACTOR = 2;

// The clock: the time manager's budget (search/time_manager.cpp) and the stop after an
// iteration (search/worker.cpp). Plain constants: scripts/spsa plays by nodes, where the clock
// does not count; a timed match judges a change. Shares of the clock are in percent.
//
// The optimum: the usable clock over the moves to go, plus a share of the increment. Without
// movestogo (sudden death, increment) the plan is for DEFAULT moves, with it for at most MAX.
constexpr int TIME_MOVES_TO_GO_DEFAULT = 35;
constexpr int TIME_MOVES_TO_GO_MAX = 40;
constexpr int TIME_INCREMENT_PERCENT = 75;
// The reserve, left out of the plan (but for the last move before the time control): the
// smaller of a share of the clock and a number of move overheads, each at least MIN_OVERHEAD ms.
constexpr int TIME_RESERVE_PERCENT = 25;
constexpr int TIME_RESERVE_OVERHEADS = 5;
constexpr int TIME_RESERVE_MIN_OVERHEAD_MS = 10;
// The maximum, where the search stops at once: at most a share of the usable clock (of the
// whole clock before the time control's last move), and at most so many optimums.
constexpr int TIME_MAX_PERCENT = 60;
constexpr int TIME_LAST_MOVE_MAX_PERCENT = 90;
constexpr int TIME_MAX_OPTIMUMS = 5;

// After each iteration the search stops once this share of the move's budget (the time
// manager's optimum, scaled by the best move's instability) is used, since the next iteration
// would most likely not finish within what is left.
constexpr double TIME_ITERATION_SHARE = 1.0;

// Best-move instability: after each iteration instability = OLD_WEIGHT * instability +
// NEW_WEIGHT * (BASE + PER_CHANGE * min(changes, MAX_CHANGES)), with the iteration's changes of
// best move; the budget is the optimum times the instability clamped to [MIN, MAX]. A stable
// best move stops the search sooner, a changing one later.
constexpr double INSTABILITY_OLD_WEIGHT = 0.8;
constexpr double INSTABILITY_NEW_WEIGHT = 0.2;  // the weights sum to 1
constexpr double INSTABILITY_BASE = 0.7;
constexpr double INSTABILITY_PER_CHANGE = 0.6;
constexpr int INSTABILITY_MAX_CHANGES = 4;
constexpr double INSTABILITY_MIN = 0.6;
constexpr double INSTABILITY_MAX = 2.0;

// A mate found ends a timed search once the depth exceeds twice its distance (in plies) plus
// this many plies: deeper iterations would hardly find a shorter one.
constexpr int MATE_PROVEN_EXTRA_DEPTH = 10;

// The main thread looks at the clock and the node limit every this many nodes.
constexpr int TIME_CHECK_INTERVAL = 1024;

// From this age of the search (ms) on, the main thread also reports the bound of each failed
// aspiration search; earlier such lines would only flood the GUI.
constexpr int REPORT_BOUNDS_AFTER_MS = 3000;

// Aspiration windows: the first half-width around the last score, from this depth on; each
// failure widens it by half.
PYTHIA_TUNABLE(ASPIRATION_DELTA, 21, 5, 40);
constexpr int ASPIRATION_MIN_DEPTH = 4;

// Reverse futility pruning: eval - margin * (depth - improving) >= beta at depth <= max.
constexpr int RFP_MAX_DEPTH = 8;
PYTHIA_TUNABLE(RFP_MARGIN, 112, 30, 160);

// Razoring: eval + margin * depth <= alpha at depth <= max, confirmed by quiescence.
constexpr int RAZOR_MAX_DEPTH = 3;
PYTHIA_TUNABLE(RAZOR_MARGIN, 350, 100, 500);

// Null move pruning: from this depth, reduced by base + depth / divisor + the eval's excess over
// beta in units of EVAL_DIVISOR (at most EVAL_MAX).
constexpr int NMP_MIN_DEPTH = 3;
constexpr int NMP_BASE = 3;
constexpr int NMP_DEPTH_DIVISOR = 3;
PYTHIA_TUNABLE(NMP_EVAL_DIVISOR, 280, 80, 400);
constexpr int NMP_EVAL_MAX = 3;

// Internal iterative reduction: a ply less without a stored move, from this depth.
constexpr int IIR_MIN_DEPTH = 4;

// Late move pruning: at depth <= max, quiet moves after (LMP_BASE + depth^2) / (2 - improving).
constexpr int LMP_MAX_DEPTH = 8;
constexpr int LMP_BASE = 3;

// Futility pruning of quiet moves: static eval + base + per_depth * lmr_depth <= alpha.
constexpr int FUTILITY_MAX_DEPTH = 8;
PYTHIA_TUNABLE(FUTILITY_BASE, 140, 20, 250);
PYTHIA_TUNABLE(FUTILITY_PER_DEPTH, 126, 30, 200);

// History pruning: quiet moves whose history is below -margin * depth, at lmr_depth <= max.
constexpr int HISTORY_PRUNING_MAX_DEPTH = 3;
PYTHIA_TUNABLE(HISTORY_PRUNING_MARGIN, 2000, 500, 5000);

// SEE pruning: quiets losing more than margin * lmr_depth^2, captures and checks losing more
// than margin * depth, at depth <= max.
constexpr int SEE_PRUNING_MAX_DEPTH = 8;
PYTHIA_TUNABLE(SEE_QUIET_MARGIN, 20, 5, 60);
PYTHIA_TUNABLE(SEE_TACTICAL_MARGIN, 100, 30, 200);

// Singular extensions: from this depth, with a stored lower bound at most so much shallower;
// the alternatives must stay below the stored value minus margin * depth.
constexpr int SINGULAR_MIN_DEPTH = 8;
constexpr int SINGULAR_TT_DEPTH_MARGIN = 3;
constexpr int SINGULAR_MARGIN = 2;

// Quiescence futility: a capture whose victim plus this margin cannot reach alpha is skipped.
PYTHIA_TUNABLE(QS_FUTILITY_MARGIN, 210, 50, 350);

// History (search/history.h): entries saturate at +-HISTORY_MAX (they are int16_t), and a cutoff
// moves them by min(QUADRATIC * depth^2 + LINEAR * depth, BONUS_MAX).
constexpr int HISTORY_MAX = 16384;
PYTHIA_TUNABLE(HISTORY_BONUS_QUADRATIC, 16, 4, 48);
PYTHIA_TUNABLE(HISTORY_BONUS_LINEAR, 32, 0, 128);
PYTHIA_TUNABLE(HISTORY_BONUS_MAX, 1600, 400, 4000);

// Correction history (search/history.h): per pawn structure, a running average of the search's
// result minus the static evaluation, in 1/CORRECTION_GRAIN centipawns. Each difference is
// clipped to +-CORRECTION_MAX centipawns and weighs min(depth + 1, WEIGHT_MAX) / WEIGHT_SCALE.
constexpr int CORRECTION_GRAIN = 256;
PYTHIA_TUNABLE(CORRECTION_MAX, 64, 16, 160);
PYTHIA_TUNABLE(CORRECTION_WEIGHT_MAX, 16, 4, 64);
constexpr int CORRECTION_WEIGHT_SCALE = 256;

// Move ordering (search/movepick.cpp): a capture or queen promotion scores MVV_WEIGHT times the
// victim's SEE value, plus PROMOTION_BONUS for a promotion, plus its capture history divided by
// CAPTURE_HISTORY_DIVISOR, above every quiet move.
PYTHIA_TUNABLE(ORDER_MVV_WEIGHT, 16, 4, 64);
PYTHIA_TUNABLE(ORDER_PROMOTION_BONUS, 8000, 0, 16000);
constexpr int ORDER_CAPTURE_HISTORY_DIVISOR_MIN = 4;
PYTHIA_TUNABLE(ORDER_CAPTURE_HISTORY_DIVISOR, 8, ORDER_CAPTURE_HISTORY_DIVISOR_MIN, 32);
// How far below the good captures' base score a capture can fall (by its capture history), so
// that every move scored within it is a capture or promotion whose SEE the picker checks.
constexpr int ORDER_CAPTURE_BAND = HISTORY_MAX / ORDER_CAPTURE_HISTORY_DIVISOR_MIN;

// A tablebase cut is stored as if searched this much deeper.
constexpr int TB_STORE_EXTRA_DEPTH = 6;

// The transposition table is not trusted this close to the 50-move horizon.
constexpr int TT_RULE50_LIMIT = 90;

// Transposition table replacement (search/tt.cpp): a result of this search stays unless the new
// one for the same position is exact or at most KEEP_DEPTH_MARGIN plies shallower; among other
// positions the shallowest entry goes, each search of age counting as AGE_PLIES plies less.
constexpr int TT_KEEP_DEPTH_MARGIN = 3;
constexpr int TT_AGE_PLIES = 8;

// The strength limit (search/strength.cpp), on the levels 0-20 of search/strength.h: at most
// NODES_LEVEL_0 * NODES_GROWTH^level nodes, and each candidate root move a random bonus below
// NOISE_LEVEL_0 * (1 - level / 20)^2 centipawns. Calibrated with the Elo scale there, not tuned.
constexpr double STRENGTH_NODES_LEVEL_0 = 400.0;
constexpr double STRENGTH_NODES_GROWTH = 1.53;  // per level
constexpr double STRENGTH_NOISE_LEVEL_0 = 300.0;

// UCI_ShowWDL's model (search/wdl.h): the win chance of a score x is
// 1 / (1 + exp((WDL_MIDPOINT - x) / WDL_SCALE)), both in centipawns.
constexpr double WDL_MIDPOINT = 150.0;
constexpr double WDL_SCALE = 55.0;

}  // namespace pythia::search_params
