// A weaker Pythia on request (UCI_LimitStrength, UCI_Elo): fewer plies and nodes, and the
// move chosen among the best few root moves with a noise that shrinks as the Elo rises.
// The limits only ever end a search sooner, so the clock is kept as at full strength, and the
// move is always one of the searched root moves, so it is always legal.
//
// The scale is Stockfish's (whose UCI_Elo is anchored to the CCRL rating list), calibrated by
// matches against Debian's Stockfish 15.1 limited to the same UCI_Elo (scripts/calibrate-elo,
// 10+0.1; figures in bench/README.md) with the embedded net: the measured rating rises linearly
// with the level, so the mapping is the least-squares line through the measured points
// (STRENGTH_ELO_LEVEL_0 and STRENGTH_ELO_LEVEL_20), the points scattering around it by about their
// own error. A new net or search moves the line: measure again and refit.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "search/limits.h"
#include "search/worker.h"

namespace pythia {

constexpr int STRENGTH_ELO_MIN = 1320;
constexpr int STRENGTH_ELO_MAX = 3190;
constexpr int STRENGTH_CANDIDATES = 4;       // root moves searched with MultiPV to choose among
constexpr int STRENGTH_ELO_LEVEL_0 = 1265;   // the (extrapolated) rating of level 0
constexpr int STRENGTH_ELO_LEVEL_20 = 2476;  // full strength: from here up nothing is limited

struct StrengthLimit {
    bool enabled = false;
    int elo = STRENGTH_ELO_MAX;

    // 0.9 at UCI_Elo 1320, rising linearly to 20 at 2476 and above; at 20 nothing is limited.
    double level() const;
    bool active() const { return enabled && level() < 20.0; }
    int depth_cap() const;         // iterations at most: 1 at level 0, 20 at level 19
    uint64_t node_cap() const;     // nodes at most (search/params.h): about 1.3 M at level 19
    int noise_centipawns() const;  // the largest random bonus of a root move: level 0's, a quarter at 10, 0 at 20
    // Applies the caps to a `go`'s limits (keeping any smaller limit of the GUI's); `go
    // infinite` and `go ponder` get the depth cap only.
    void restrict(SearchLimits& limits) const;
};

// The move to play among the first `candidates` root moves (sorted best first, each with a
// score from the last iteration): each gets its score plus a random bonus below the noise,
// and the highest total is played. A forced mate found for us is always played.
const RootMove& choose_weakened_move(const std::vector<RootMove>& root_moves, int candidates,
                                     const StrengthLimit& strength, std::mt19937_64& rng);

}  // namespace pythia
