// Index schemes: a bijection between the positions of a table (one side to move) and the
// integers [0, size()), up to symmetry.
//
// - Pawnless tables use the 8 symmetries of the board: the white king is brought into the
//   triangle a1-d1-d4, the black king below or on the a1-h8 diagonal when the white king is
//   on it; these are the 462 legal king pairs. When both kings stand on the diagonal, the
//   reflection in it is resolved by the other pieces (the smaller index wins), so every
//   position has exactly one index.
// - Tables with pawns use the left-right mirror, chosen so that the pawns' sorted square list
//   is the smaller one (the lowest pawn stands on files a-d). A pawn configuration is a
//   "slice"; slices are numbered in generation order, most advanced pawns first, because pawn
//   moves only lead into earlier slices. Inside a slice, both kings range over 64 squares, so a
//   move that is neither a capture nor a pawn move stays in the slice with the same orientation.
// - Identical pieces are indexed as combinations of squares, not permutations.
//
// Slot order (the order of squares in a Placement): white king, black king, then white
// Q R B N P, then black Q R B N P; identical pieces are adjacent (a "group").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tablebase/format/material.h"

namespace pythia::tb {

constexpr int MAX_PIECES = 6;

struct Slot {
    Color color;
    PieceType type;
};

using Placement = std::array<Square, MAX_PIECES>;

class TableIndex {
public:
    explicit TableIndex(const Material& material);  // material must be normalised

    const Material& material() const { return material_; }
    uint64_t size() const { return size_; }  // positions per side to move
    int num_slots() const { return num_slots_; }
    const Slot& slot(int i) const { return slots_[i]; }
    // The first slot of each colour and type (colour * 8 + type), -1 where the table has none:
    // the pieces of a kind take consecutive slots from there.
    int8_t first_slot(Color c, PieceType pt) const { return first_slot_[c * 8 + pt]; }
    bool has_pawns() const { return has_pawns_; }

    // Index of a placement given in any orientation (the symmetry is applied here). Squares of
    // identical pieces may come in any order. Every square must be on the board.
    uint64_t encode(const Placement& squares) const;
    // The placement of an index, in canonical orientation. Returns false for an index that is
    // not a real position's canonical index (two pieces on one square, or the mirror twin of
    // another index); such entries are "don't care".
    bool decode(uint64_t index, Placement& squares) const;

    // The index after moving the piece in `slot` to the empty square `to`, given the canonical
    // placement of `index` (as decode returns it). The slot must not be a pawn. Much faster than
    // encode: most moves only shift one term of the index.
    uint64_t encode_moved(uint64_t index, const Placement& canonical, int slot, Square to) const {
        // The common case inline: a piece that is alone of its kind (or a king of a pawn table)
        // shifts its own term of the index; pawnless tables with both kings on the diagonal
        // need the full symmetry treatment.
        const int64_t w = slot_weight_[slot];
        if (w && !(both_kings_on_diagonal(canonical))) return index + (int64_t(to) - int64_t(canonical[slot])) * w;
        return encode_moved_slow(index, canonical, slot, to);
    }
    uint64_t encode_moved_slow(uint64_t index, const Placement& canonical, int slot, Square to) const;

    // The index as a mixed-radix number: the radix of each digit, most significant first.
    // Pawnless: the king pair (462), then each piece group (its combinations of 64 squares);
    // with pawns: the slice, the white king (64), the black king (64), then each piece group.
    // Their product is size(). A file may store positions in another order of these digits
    // (storage_order.h).
    std::vector<uint64_t> digit_radices() const;
    // A short name of each digit, as above: "KK", "P", "K", "k", then the group ("Q", "r",
    // "R2" for two white rooks): what `tb info` prints.
    std::vector<std::string> digit_names() const;

    // Slices (pawn tables; a pawnless table is one slice).
    int num_slices() const { return int(slice_pawns_.size()); }
    uint64_t slice_size() const { return slice_size_; }
    // Positions per king pair inside a slice: a slice is its king pairs (462 pawnless, 64 x 64
    // with pawns), each followed by this many positions of the other pieces, which move without
    // leaving their king pair.
    uint64_t king_pair_size() const { return rest_size_; }

private:
    struct Group {
        int first_slot;
        int count;
        bool pawn;
    };

    uint64_t encode_rest(const Placement& squares, int transform) const;
    bool both_kings_on_diagonal(const Placement& p) const {
        return !has_pawns_ && file_of(p[0]) == rank_of(p[0]) && file_of(p[1]) == rank_of(p[1]);
    }
    void decode_rest(uint64_t rest, Placement& squares) const;
    uint64_t pawn_key(const Placement& squares, bool mirror) const;

    Material material_;
    Slot slots_[MAX_PIECES];
    int num_slots_ = 0;
    int8_t first_slot_[16];
    bool has_pawns_ = false;
    std::vector<Group> piece_groups_;  // non-king, non-pawn groups (and pawn groups in pawnless... none)
    std::vector<Group> pawn_groups_;   // pawn groups, white first
    uint64_t rest_size_ = 1;           // product of the piece groups' combination counts
    // When every piece group is a single piece (KQRvKR, not KRRvK), the rest of the index is
    // one 6-bit digit per piece and the index splits by shifts instead of divisions:
    // rest_bits_ = 6 x the number of pieces other than kings and pawns, else -1.
    int rest_bits_ = -1;
    int group_of_slot_[MAX_PIECES];           // index into piece_groups_, or -1 (kings, pawns)
    uint64_t group_weight_[MAX_PIECES] = {};  // weight of each piece group's rank in the index
    int64_t slot_weight_[MAX_PIECES] = {};    // index step per square of a slot, 0 if not that simple
    uint64_t slice_size_ = 0;
    uint64_t size_ = 0;

    // Pawn tables: slice id of a pawn key (-1: not canonical or overlapping), and the pawn
    // squares of each slice.
    std::vector<int32_t> slice_of_key_;
    std::vector<std::array<Square, MAX_PIECES>> slice_pawns_;
};

// Board symmetries used by the index: bit 0 mirrors files (a<->h), bit 1 mirrors ranks
// (1<->8), bit 2 reflects in the a1-h8 diagonal (applied last).
Square transform_square(Square s, int transform);

}  // namespace pythia::tb
