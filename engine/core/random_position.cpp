#include "engine/core/random_position.h"

#include "engine/core/movegen.h"

namespace pythia {

std::string placement_fen(const char (&squares)[64]) {
    std::string fen;
    for (int rank = 7; rank >= 0; --rank) {
        int empty = 0;
        for (int file = 0; file < 8; ++file) {
            const char c = squares[rank * 8 + file];
            if (!c) {
                ++empty;
                continue;
            }
            if (empty) fen += char('0' + empty);
            empty = 0;
            fen += c;
        }
        if (empty) fen += char('0' + empty);
        if (rank) fen += '/';
    }
    return fen;
}

std::optional<Position> random_position(std::mt19937_64& rng, std::string_view pieces, Color stm) {
    for (int attempt = 0; attempt < 10000; ++attempt) {
        char squares[64] = {};
        bool ok = true;
        for (char p : pieces) {
            const int sq = int(rng() % 64);
            ok = !squares[sq] && !((p == 'P' || p == 'p') && (sq < 8 || sq >= 56));
            if (!ok) break;
            squares[sq] = p;
        }
        if (!ok) continue;
        Position pos;
        if (pos.set_fen(placement_fen(squares) + (stm == WHITE ? " w - - 0 1" : " b - - 0 1")) &&
            MoveList(pos).size() > 0)
            return pos;
    }
    return std::nullopt;
}

}  // namespace pythia
