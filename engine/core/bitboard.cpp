#include "engine/core/bitboard.h"

#include <cstdlib>

namespace pythia::bitboards {

Bitboard PAWN_ATTACKS[COLOR_NB][SQUARE_NB];
Bitboard KNIGHT_ATTACKS[SQUARE_NB];
Bitboard KING_ATTACKS[SQUARE_NB];
Bitboard BETWEEN[SQUARE_NB][SQUARE_NB];
Bitboard LINE[SQUARE_NB][SQUARE_NB];
SliderTable BISHOP_TABLE[SQUARE_NB];
SliderTable ROOK_TABLE[SQUARE_NB];
int DISTANCE[SQUARE_NB][SQUARE_NB];

namespace {

Bitboard rook_table_storage[0x19000];   // 102,400 entries: sum over squares of 2^relevant bits
Bitboard bishop_table_storage[0x1480];  // 5,248 entries

constexpr int ROOK_DIRS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int BISHOP_DIRS[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

// Slow ray walk used only to fill the tables.
Bitboard slide(const int (&dirs)[4][2], Square s, Bitboard occupied) {
    Bitboard attacks = 0;
    for (const auto& d : dirs) {
        int f = file_of(s) + d[0], r = rank_of(s) + d[1];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            Bitboard b = square_bb(make_square(f, r));
            attacks |= b;
            if (occupied & b) break;
            f += d[0];
            r += d[1];
        }
    }
    return attacks;
}

// xorshift64*: deterministic, so magic search gives the same tables on every run.
struct Prng {
    uint64_t s;
    uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 2685821657736338717ULL;
    }
    uint64_t sparse() { return next() & next() & next(); }
};

void init_slider(const int (&dirs)[4][2], SliderTable* table, Bitboard* storage) {
    [[maybe_unused]] Bitboard occupancy[4096];
    Bitboard reference[4096];
    int epoch[4096] = {}, current = 0;
    Prng rng{0x9E3779B97F4A7C15ULL};

    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        // Edges do not matter for the attacks unless the slider stands on them.
        Bitboard edges =
            ((RANK_1_BB | RANK_8_BB) & ~rank_bb(rank_of(s))) | ((FILE_A_BB | FILE_H_BB) & ~file_bb(file_of(s)));
        SliderTable& t = table[s];
        t.mask = slide(dirs, s, 0) & ~edges;
        t.shift = 64 - popcount(t.mask);
        t.attacks = s == SQ_A1 ? storage : table[s - 1].attacks + (1u << (64 - table[s - 1].shift));

        // Enumerate every subset of the mask (Carry-Rippler) with its true attacks.
        int size = 0;
        Bitboard b = 0;
        do {
            occupancy[size] = b;
            reference[size] = slide(dirs, s, b);
#if defined(PYTHIA_USE_PEXT)
            t.attacks[_pext_u64(b, t.mask)] = reference[size];
#endif
            ++size;
            b = (b - t.mask) & t.mask;
        } while (b);

#if !defined(PYTHIA_USE_PEXT)
        // Try sparse random multipliers until one maps every subset without a harmful collision.
        for (int i = 0; i < size;) {
            do {
                t.magic = rng.sparse();
            } while (popcount((t.mask * t.magic) >> 56) < 6);
            ++current;
            for (i = 0; i < size; ++i) {
                unsigned idx = t.index(occupancy[i]);
                if (epoch[idx] < current) {
                    epoch[idx] = current;
                    t.attacks[idx] = reference[i];
                } else if (t.attacks[idx] != reference[i]) {
                    break;
                }
            }
        }
#else
        (void)rng;
        (void)epoch;
        (void)current;
#endif
    }
}

struct StaticInit {
    StaticInit() { init(); }
} static_init;

}  // namespace

void init() {
    static bool done = false;
    if (done) return;
    done = true;

    for (Square a = SQ_A1; a <= SQ_H8; ++a)
        for (Square b = SQ_A1; b <= SQ_H8; ++b) {
            int df = std::abs(file_of(a) - file_of(b)), dr = std::abs(rank_of(a) - rank_of(b));
            DISTANCE[a][b] = df > dr ? df : dr;
        }

    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        Bitboard b = square_bb(s);
        PAWN_ATTACKS[WHITE][s] = pawn_attacks_bb<WHITE>(b);
        PAWN_ATTACKS[BLACK][s] = pawn_attacks_bb<BLACK>(b);
        KING_ATTACKS[s] = shift<8>(b) | shift<-8>(b) | shift<1>(b) | shift<-1>(b) | shift<9>(b) | shift<7>(b) |
                          shift<-7>(b) | shift<-9>(b);
        KNIGHT_ATTACKS[s] = 0;
        constexpr int jumps[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
        for (const auto& j : jumps) {
            int f = file_of(s) + j[0], r = rank_of(s) + j[1];
            if (f >= 0 && f < 8 && r >= 0 && r < 8) KNIGHT_ATTACKS[s] |= square_bb(make_square(f, r));
        }
    }

    init_slider(ROOK_DIRS, ROOK_TABLE, rook_table_storage);
    init_slider(BISHOP_DIRS, BISHOP_TABLE, bishop_table_storage);

    for (Square a = SQ_A1; a <= SQ_H8; ++a)
        for (Square b = SQ_A1; b <= SQ_H8; ++b) {
            LINE[a][b] = 0;
            BETWEEN[a][b] = square_bb(b);
            if (a == b) continue;
            for (PieceType pt : {BISHOP, ROOK}) {
                if (attacks_bb(pt, a, 0) & square_bb(b)) {
                    LINE[a][b] = (attacks_bb(pt, a, 0) & attacks_bb(pt, b, 0)) | square_bb(a) | square_bb(b);
                    BETWEEN[a][b] |= attacks_bb(pt, a, square_bb(b)) & attacks_bb(pt, b, square_bb(a));
                }
            }
        }
}

std::string pretty(Bitboard b) {
    std::string s = "+---+---+---+---+---+---+---+---+\n";
    for (int r = RANK_8; r >= RANK_1; --r) {
        for (int f = FILE_A; f <= FILE_H; ++f) s += (b & square_bb(make_square(f, r))) ? "| X " : "|   ";
        s += "| " + std::to_string(r + 1) + "\n+---+---+---+---+---+---+---+---+\n";
    }
    return s + "  a   b   c   d   e   f   g   h\n";
}

}  // namespace pythia::bitboards
