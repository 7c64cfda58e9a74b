// FEN from a plain board, and random legal positions of given pieces: for tests, benchmarks and
// tools that need many positions of one material (tablebase checks, fuzz seeds).
#pragma once

#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "engine/core/position.h"

namespace pythia {

// The piece-placement field of a FEN from 64 squares (a1 = 0, h8 = 63), each a FEN piece letter
// ('K', 'p', ...) or 0 for an empty square.
std::string placement_fen(const char (&squares)[64]);

// A random legal position with these pieces (FEN letters, e.g. "KQkr"), `stm` to move, no
// castling rights or en passant, where the side to move has a legal move. Nothing when 10000
// random placements fail (impossible pieces).
std::optional<Position> random_position(std::mt19937_64& rng, std::string_view pieces, Color stm);

}  // namespace pythia
