// Zobrist keys. They are the Polyglot book keys, so a position's key is also its book key.
#pragma once

#include "engine/core/types.h"

namespace pythia::zobrist {

extern const Key POLYGLOT_RANDOM[781];

// Polyglot numbers pieces black pawn 0, white pawn 1, black knight 2, ... white king 11.
inline Key piece_square(Piece p, Square s) {
    int kind = 2 * (type_of(p) - 1) + (color_of(p) == WHITE ? 1 : 0);
    return POLYGLOT_RANDOM[64 * kind + s];
}

// The xor of the keys of every right in `rights` (bit order K, Q, k, q as in Polyglot).
inline Key castling(int rights) {
    Key k = 0;
    for (int i = 0; i < 4; ++i)
        if (rights & (1 << i)) k ^= POLYGLOT_RANDOM[768 + i];
    return k;
}

inline Key en_passant_file(int file) { return POLYGLOT_RANDOM[772 + file]; }

// Polyglot hashes the side to move when White is to move.
inline Key white_to_move() { return POLYGLOT_RANDOM[780]; }

}  // namespace pythia::zobrist
