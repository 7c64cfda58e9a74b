// Pawn structure terms and their hash table: they depend only on the pawns, which change
// rarely, so each thread caches them by the pawn key.
#pragma once

#include <vector>

#include "engine/core/position.h"
#include "eval/score.h"

namespace pythia {

struct PawnEntry {
    Key key = 0;
    Score score = SCORE_ZERO;  // structure terms, from White's side
    Bitboard passed[COLOR_NB] = {};
    Bitboard attacks[COLOR_NB] = {};
    Bitboard attack_span[COLOR_NB] = {};  // squares the colour's pawns may attack some day
};

class PawnTable {
public:
    explicit PawnTable(size_t entries = 1 << 14) : entries_(entries) {}
    // The entry of pos, computed on a miss.
    const PawnEntry& probe(const Position& pos);
    void clear() { entries_.assign(entries_.size(), PawnEntry{}); }

private:
    std::vector<PawnEntry> entries_;  // size is a power of two
};

}  // namespace pythia
