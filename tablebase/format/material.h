// Material configurations ("KQRvKR"): naming, normalisation (strong side first) and the list
// of every table up to a number of pieces, in an order where each table comes after every
// table it converts into.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/position.h"

namespace pythia::tb {

class Material {
public:
    Material() = default;

    // Parses "KQRvKR" (either side may come first; letters K Q R B N P, case-insensitive).
    static std::optional<Material> parse(std::string_view name);
    static Material of(const Position& pos);

    int count(Color c, PieceType pt) const { return count_[c][pt]; }
    void set_count(Color c, PieceType pt, int n) { count_[c][pt] = n; }
    int pieces(Color c) const;  // including the king
    int total() const { return pieces(WHITE) + pieces(BLACK); }
    bool has_pawns() const { return count_[WHITE][PAWN] + count_[BLACK][PAWN] > 0; }

    // The same material with the colours exchanged.
    Material flipped() const;
    // True if White holds the side that names the table first ("strong side"): more pieces,
    // then more material (Q9 R5 B3 N3 P1), then the piece letters in the order Q R B N P.
    bool is_normalized() const;
    Material normalized() const { return is_normalized() ? *this : flipped(); }

    // "KQRvKR" with White's pieces first.
    std::string name() const;
    bool operator==(const Material& o) const;

    // The materials reachable by one capture or promotion (normalised, without duplicates).
    std::vector<Material> successors() const;
    // The same tables with the sides to move that a generation of this table looks up in each
    // (bit 1 << WHITE, 1 << BLACK, in the successor's normalized colours): a capture of a
    // piece of colour c leaves c to move, a promotion of c's pawn the other side. A subtable
    // needs loading only for those sides (a pawn-against-pawn table's eight promotion
    // subtables would otherwise take 26 GB).
    std::vector<std::pair<Material, uint8_t>> successor_sides() const;

private:
    int count_[COLOR_NB][PIECE_TYPE_NB] = {};
};

// Every normalised material with 3..max_pieces pieces (two kings and at least one other
// piece), sorted so that each table follows all tables it depends on.
std::vector<Material> all_materials(int max_pieces);

// The given tables and, recursively, every table they convert into, in dependency order.
std::vector<Material> with_dependencies(const std::vector<Material>& tables);

}  // namespace pythia::tb
