// Move-ordering statistics learned during the search: quiet-move history (butterfly and
// continuation), capture history and counter-moves. One set per search thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "engine/core/types.h"
#include "search/params.h"

namespace pythia {

// Moves an entry towards HISTORY_MAX (or -HISTORY_MAX) by `bonus`, slower as it gets there.
inline void update_history_entry(int16_t& entry, int bonus) {
    using search_params::HISTORY_MAX;
    bonus = std::clamp(bonus, -HISTORY_MAX, HISTORY_MAX);
    entry = int16_t(entry + bonus - entry * std::abs(bonus) / HISTORY_MAX);
}

inline int history_bonus(int depth) {
    using namespace search_params;
    return std::min(HISTORY_BONUS_QUADRATIC * depth * depth + HISTORY_BONUS_LINEAR * depth, HISTORY_BONUS_MAX);
}

// Correction history: what searches from positions with these pawns found beyond the static
// evaluation, a running average by depth in 1/CORRECTION_GRAIN centipawns, added to the next
// static evaluations of such positions. An evaluation blind to a pawn structure's worth is
// corrected after a few searches of it. Its learning constants are in search/params.h.
constexpr int CORRECTION_SIZE = 16384;  // entries per side, by the pawn key

inline void update_correction(int32_t& entry, int difference, int depth) {
    using namespace search_params;
    const int weight = std::min(depth + 1, CORRECTION_WEIGHT_MAX);
    const int scaled = std::clamp(difference, -CORRECTION_MAX, CORRECTION_MAX) * CORRECTION_GRAIN;
    entry = (entry * (CORRECTION_WEIGHT_SCALE - weight) + scaled * weight) / CORRECTION_WEIGHT_SCALE;
}

// Continuation history of one previous move (piece and destination): [piece][to] of the reply.
using ContinuationTable = int16_t[PIECE_NB][SQUARE_NB];

struct History {
    int16_t quiet[COLOR_NB][SQUARE_NB][SQUARE_NB];        // [side][from][to]
    int16_t capture[PIECE_NB][SQUARE_NB][PIECE_TYPE_NB];  // [mover][to][captured]
    ContinuationTable continuation[PIECE_NB][SQUARE_NB];  // [prev piece][prev to]
    Move counter[PIECE_NB][SQUARE_NB];                    // reply to [piece][to]
    int32_t correction[COLOR_NB][CORRECTION_SIZE];        // [side][pawn key]

    void clear() {
        std::memset(quiet, 0, sizeof quiet);
        std::memset(capture, 0, sizeof capture);
        std::memset(continuation, 0, sizeof continuation);
        std::memset(correction, 0, sizeof correction);
        for (auto& row : counter)
            for (Move& m : row) m = Move::none();
    }
};

}  // namespace pythia
