// Bitboards and precomputed attack tables. Sliding attacks use PEXT where the build targets
// BMI2 (fast on this project's AMD Zen 3+ / Intel Haswell+ machines) and magic multiplication
// otherwise; the choice is made at compile time (CMake option PYTHIA_PEXT; Zen 1/2
// CPUs, where PEXT is microcoded and slow, should build with it OFF).
#pragma once

#include <bit>
#include <string>

#include "engine/core/types.h"

#if defined(__BMI2__) && !defined(PYTHIA_NO_PEXT)
#define PYTHIA_USE_PEXT 1
#include <immintrin.h>
#endif

namespace pythia {

constexpr Bitboard FILE_A_BB = 0x0101010101010101ULL;
constexpr Bitboard FILE_H_BB = FILE_A_BB << 7;
constexpr Bitboard RANK_1_BB = 0xFFULL;
constexpr Bitboard RANK_8_BB = RANK_1_BB << 56;
constexpr Bitboard DARK_SQUARES = 0xAA55AA55AA55AA55ULL;  // a1 is dark

constexpr Bitboard square_bb(Square s) { return 1ULL << s; }
constexpr Bitboard file_bb(int file) { return FILE_A_BB << file; }
constexpr Bitboard rank_bb(int rank) { return RANK_1_BB << (8 * rank); }

inline int popcount(Bitboard b) { return std::popcount(b); }
inline Square lsb(Bitboard b) { return Square(std::countr_zero(b)); }
inline Square msb(Bitboard b) { return Square(63 - std::countl_zero(b)); }
inline bool more_than_one(Bitboard b) { return b & (b - 1); }
inline Square pop_lsb(Bitboard& b) {
    Square s = lsb(b);
    b &= b - 1;
    return s;
}

template <int D>
constexpr Bitboard shift(Bitboard b) {
    if constexpr (D == 8) return b << 8;
    if constexpr (D == -8) return b >> 8;
    if constexpr (D == 16) return b << 16;
    if constexpr (D == -16) return b >> 16;
    if constexpr (D == 1) return (b & ~FILE_H_BB) << 1;
    if constexpr (D == -1) return (b & ~FILE_A_BB) >> 1;
    if constexpr (D == 9) return (b & ~FILE_H_BB) << 9;
    if constexpr (D == 7) return (b & ~FILE_A_BB) << 7;
    if constexpr (D == -7) return (b & ~FILE_H_BB) >> 7;
    if constexpr (D == -9) return (b & ~FILE_A_BB) >> 9;
    return 0;
}

// Squares attacked by all pawns of colour c in b.
template <Color C>
constexpr Bitboard pawn_attacks_bb(Bitboard b) {
    return C == WHITE ? shift<7>(b) | shift<9>(b) : shift<-7>(b) | shift<-9>(b);
}

namespace bitboards {

// One slider's lookup: the relevant occupancy mask and its slice of the shared attack table.
struct SliderTable {
    Bitboard mask;
    Bitboard magic;
    Bitboard* attacks;
    unsigned shift;

    unsigned index(Bitboard occupied) const {
#if defined(PYTHIA_USE_PEXT)
        return unsigned(_pext_u64(occupied, mask));
#else
        return unsigned(((occupied & mask) * magic) >> shift);
#endif
    }
};

extern Bitboard PAWN_ATTACKS[COLOR_NB][SQUARE_NB];
extern Bitboard KNIGHT_ATTACKS[SQUARE_NB];
extern Bitboard KING_ATTACKS[SQUARE_NB];
extern Bitboard BETWEEN[SQUARE_NB][SQUARE_NB];  // squares strictly between, plus the target
extern Bitboard LINE[SQUARE_NB][SQUARE_NB];     // the full line through both, or 0
extern SliderTable BISHOP_TABLE[SQUARE_NB];
extern SliderTable ROOK_TABLE[SQUARE_NB];
extern int DISTANCE[SQUARE_NB][SQUARE_NB];  // king distance (Chebyshev)

// Fills the tables. Runs once, before main, from a static initialiser in bitboard.cpp; calling it
// again is harmless.
void init();

// A board diagram of b, for debugging.
std::string pretty(Bitboard b);

}  // namespace bitboards

inline Bitboard pawn_attacks(Color c, Square s) { return bitboards::PAWN_ATTACKS[c][s]; }
inline Bitboard knight_attacks(Square s) { return bitboards::KNIGHT_ATTACKS[s]; }
inline Bitboard king_attacks(Square s) { return bitboards::KING_ATTACKS[s]; }
inline Bitboard bishop_attacks(Square s, Bitboard occupied) {
    const auto& t = bitboards::BISHOP_TABLE[s];
    return t.attacks[t.index(occupied)];
}
inline Bitboard rook_attacks(Square s, Bitboard occupied) {
    const auto& t = bitboards::ROOK_TABLE[s];
    return t.attacks[t.index(occupied)];
}
inline Bitboard queen_attacks(Square s, Bitboard occupied) {
    return bishop_attacks(s, occupied) | rook_attacks(s, occupied);
}
// Attacks of a non-pawn piece type from s. Always inlined: the tablebase generator calls it for
// every piece of every position it scans, and left to itself the compiler makes it a call there.
[[gnu::always_inline]] inline Bitboard attacks_bb(PieceType pt, Square s, Bitboard occupied) {
    switch (pt) {
        case KNIGHT:
            return knight_attacks(s);
        case BISHOP:
            return bishop_attacks(s, occupied);
        case ROOK:
            return rook_attacks(s, occupied);
        case QUEEN:
            return queen_attacks(s, occupied);
        case KING:
            return king_attacks(s);
        default:
            return 0;
    }
}
inline Bitboard between_bb(Square a, Square b) { return bitboards::BETWEEN[a][b]; }
inline Bitboard line_bb(Square a, Square b) { return bitboards::LINE[a][b]; }
inline bool aligned(Square a, Square b, Square c) { return line_bb(a, b) & square_bb(c); }
inline int distance(Square a, Square b) { return bitboards::DISTANCE[a][b]; }

}  // namespace pythia
