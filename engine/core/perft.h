// Perft: the number of leaf nodes of the legal move tree, the standard test of move generation.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/core/position.h"

namespace pythia {

uint64_t perft(Position& pos, int depth);

// Per root move: the move and the perft of depth - 1 below it.
std::vector<std::pair<Move, uint64_t>> perft_divide(Position& pos, int depth);

}  // namespace pythia
