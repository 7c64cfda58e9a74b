// Basic chess types shared by every layer: colours, pieces, squares, moves.
#pragma once

#include <cstdint>

namespace pythia {

using Bitboard = uint64_t;
using Key = uint64_t;

constexpr int MAX_MOVES = 256;  // more than the legal moves of any reachable position
constexpr int MAX_PLY = 246;    // deepest search ply

enum Color : int { WHITE, BLACK, COLOR_NB = 2 };

constexpr Color operator~(Color c) { return Color(c ^ 1); }

enum PieceType : int {
    NO_PIECE_TYPE,
    PAWN,
    KNIGHT,
    BISHOP,
    ROOK,
    QUEEN,
    KING,
    PIECE_TYPE_NB = 7,
};

// A piece is colour * 8 + type, so that colour and type are one shift or mask away.
enum Piece : int {
    NO_PIECE,
    W_PAWN = PAWN,
    W_KNIGHT,
    W_BISHOP,
    W_ROOK,
    W_QUEEN,
    W_KING,
    B_PAWN = PAWN + 8,
    B_KNIGHT,
    B_BISHOP,
    B_ROOK,
    B_QUEEN,
    B_KING,
    PIECE_NB = 16,
};

constexpr Piece make_piece(Color c, PieceType pt) { return Piece((c << 3) + pt); }
constexpr PieceType type_of(Piece p) { return PieceType(p & 7); }
constexpr Color color_of(Piece p) { return Color(p >> 3); }

// clang-format off
enum Square : int {
    SQ_A1, SQ_B1, SQ_C1, SQ_D1, SQ_E1, SQ_F1, SQ_G1, SQ_H1,
    SQ_A2, SQ_B2, SQ_C2, SQ_D2, SQ_E2, SQ_F2, SQ_G2, SQ_H2,
    SQ_A3, SQ_B3, SQ_C3, SQ_D3, SQ_E3, SQ_F3, SQ_G3, SQ_H3,
    SQ_A4, SQ_B4, SQ_C4, SQ_D4, SQ_E4, SQ_F4, SQ_G4, SQ_H4,
    SQ_A5, SQ_B5, SQ_C5, SQ_D5, SQ_E5, SQ_F5, SQ_G5, SQ_H5,
    SQ_A6, SQ_B6, SQ_C6, SQ_D6, SQ_E6, SQ_F6, SQ_G6, SQ_H6,
    SQ_A7, SQ_B7, SQ_C7, SQ_D7, SQ_E7, SQ_F7, SQ_G7, SQ_H7,
    SQ_A8, SQ_B8, SQ_C8, SQ_D8, SQ_E8, SQ_F8, SQ_G8, SQ_H8,
    SQ_NONE,
    SQUARE_NB = 64,
};
// clang-format on

enum File : int { FILE_A, FILE_B, FILE_C, FILE_D, FILE_E, FILE_F, FILE_G, FILE_H };
enum Rank : int { RANK_1, RANK_2, RANK_3, RANK_4, RANK_5, RANK_6, RANK_7, RANK_8 };

constexpr Square make_square(int file, int rank) { return Square(rank * 8 + file); }
constexpr int file_of(Square s) { return s & 7; }
constexpr int rank_of(Square s) { return s >> 3; }
constexpr bool is_ok(Square s) { return s >= SQ_A1 && s <= SQ_H8; }
constexpr Square flip_rank(Square s) { return Square(s ^ 56); }  // a1 <-> a8
constexpr Square flip_file(Square s) { return Square(s ^ 7); }   // a1 <-> h1
// The rank as seen from the side c (RANK_1 is c's back rank).
constexpr int relative_rank(Color c, Square s) { return rank_of(s) ^ (c * 7); }
constexpr Square relative_square(Color c, Square s) { return Square(s ^ (c * 56)); }
constexpr int pawn_push(Color c) { return c == WHITE ? 8 : -8; }

constexpr Square operator+(Square s, int d) { return Square(int(s) + d); }
constexpr Square operator-(Square s, int d) { return Square(int(s) - d); }
inline Square& operator++(Square& s) { return s = Square(int(s) + 1); }

// Castling rights as four bits; Polyglot orders them the same way (K, Q, k, q).
enum CastlingRights : int {
    NO_CASTLING = 0,
    WHITE_OO = 1,
    WHITE_OOO = 2,
    BLACK_OO = 4,
    BLACK_OOO = 8,
    WHITE_CASTLING = WHITE_OO | WHITE_OOO,
    BLACK_CASTLING = BLACK_OO | BLACK_OOO,
    ANY_CASTLING = 15,
};

// The right of side c to castle on the king's side (O-O) or the queen's side (O-O-O).
constexpr int castling_right(Color c, bool king_side) {
    return (c == WHITE ? WHITE_OO : BLACK_OO) << (king_side ? 0 : 1);
}

// A move in 16 bits: from (0-5), to (6-11), promotion piece minus KNIGHT (12-13), kind (14-15).
// Castling is stored as the king's own move (e1g1), as UCI prints it for standard chess; in a
// Chess960 position as king takes own rook (e1h1), as UCI prints it for Chess960, so that a
// king that does not move still makes a move with from != to.
class Move {
public:
    enum Kind : uint16_t { NORMAL = 0, PROMOTION = 1 << 14, EN_PASSANT = 2 << 14, CASTLING = 3 << 14 };

    constexpr Move() = default;
    constexpr explicit Move(uint16_t raw) : data_(raw) {}
    constexpr Move(Square from, Square to) : data_(uint16_t(from | (to << 6))) {}

    static constexpr Move make(Square from, Square to, Kind kind, PieceType promo = KNIGHT) {
        return Move(uint16_t(from | (to << 6) | ((promo - KNIGHT) << 12) | kind));
    }
    static constexpr Move none() { return Move(); }
    static constexpr Move null() { return Move(uint16_t(65)); }  // from == to == b1: never a real move

    constexpr Square from() const { return Square(data_ & 63); }
    constexpr Square to() const { return Square((data_ >> 6) & 63); }
    constexpr Kind kind() const { return Kind(data_ & (3 << 14)); }
    constexpr PieceType promotion() const { return PieceType(((data_ >> 12) & 3) + KNIGHT); }
    constexpr uint16_t raw() const { return data_; }
    constexpr bool is_ok() const { return from() != to(); }  // false for none() and null()

    constexpr bool operator==(const Move& o) const { return data_ == o.data_; }
    constexpr bool operator!=(const Move& o) const { return data_ != o.data_; }
    constexpr explicit operator bool() const { return data_ != 0; }

private:
    uint16_t data_ = 0;
};

}  // namespace pythia
