// The training-data record: one position in 32 bytes, with the search's score and the game's
// result. `pythia datagen` writes these, eval/nnue/train.py reads them (its numpy dtype must
// stay equal to this layout), and the tests round-trip them.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/core/position.h"

namespace pythia::nnue {

// Game results as stored, from White's point of view.
enum class GameResult : uint8_t { BLACK_WIN = 0, DRAW = 1, WHITE_WIN = 2 };

// Little-endian, no padding, 32 bytes:
//   occupancy  every occupied square, a1 = bit 0
//   pieces     one nibble per occupied square in square order, low nibble first; the nibble is
//              Pythia's Piece (colour * 8 + type), so 0 never occurs for an occupied square
//   score      the search score in centipawns from White's point of view (not the side to
//              move's: a record reads the same whoever is to move, and the trainer flips it)
//   result     GameResult, White's point of view
//   stm        0 White to move, 1 Black
//   game       the game's number within its run (the generator resumes after the largest)
// Castling and en passant rights and the clocks are not kept: the network does not see them.
struct PackedPosition {
    uint64_t occupancy;
    uint8_t pieces[16];
    int16_t score;
    uint8_t result;
    uint8_t stm;
    uint32_t game;
};
static_assert(sizeof(PackedPosition) == 32, "the data files are read as 32-byte records");

PackedPosition pack_position(const Position& pos, int score_white, GameResult result, uint32_t game);

// The board of a record (no castling or en passant rights, clocks zero); nothing when the record
// is not a legal position (a corrupt file).
std::optional<Position> unpack_position(const PackedPosition& record);

}  // namespace pythia::nnue
