// The Polyglot book format: 16-byte big-endian entries (key, move, weight, learn) sorted by
// key, and the translation between Polyglot's 16-bit moves and the engine's moves.
#pragma once

#include <cstdint>

#include "engine/core/position.h"

namespace pythia {

// One entry as stored. `move` is Polyglot's encoding: to square in bits 0-5, from square in
// bits 6-11, promotion piece in bits 12-14 (1 knight .. 4 queen); castling is written as the
// king taking its own rook (e1h1, e1a1, e8h8, e8a8).
struct PolyglotEntry {
    Key key = 0;
    uint16_t move = 0;
    uint16_t weight = 0;
    uint32_t learn = 0;

    bool operator==(const PolyglotEntry&) const = default;
};

constexpr size_t POLYGLOT_ENTRY_SIZE = 16;

// Polyglot 2.x writes its header (format, variants, comment) as entries with key 0 at the
// start of the file; no position has key 0 in practice, so readers skip that key.
constexpr Key POLYGLOT_HEADER_KEY = 0;

// Reads / writes one entry at `bytes` (16 bytes, big-endian fields).
PolyglotEntry read_polyglot_entry(const uint8_t* bytes);
void write_polyglot_entry(const PolyglotEntry& entry, uint8_t* bytes);

// Polyglot's encoding of a legal move of pos. Castling becomes king-takes-rook.
uint16_t encode_polyglot_move(Move m);

// The legal move of pos that Polyglot writes as `raw`, or Move::none() if there is none (an
// illegal, corrupt or foreign entry). Checked against the legal move list, so a rook that
// stands on e1 and moves to h1 is never mistaken for castling.
Move decode_polyglot_move(const Position& pos, uint16_t raw);

}  // namespace pythia
