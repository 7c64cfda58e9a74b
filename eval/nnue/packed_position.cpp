#include "eval/nnue/packed_position.h"

#include <algorithm>
#include <string>

#include "engine/core/random_position.h"

namespace pythia::nnue {

namespace {

constexpr char PIECE_LETTERS[] = " PNBRQK  pnbrqk ";  // by Piece; a blank is no piece
constexpr int SCORE_LIMIT = 32000;                    // inside int16, above any mate score the search reports

}  // namespace

PackedPosition pack_position(const Position& pos, int score_white, GameResult result, uint32_t game) {
    PackedPosition r{};
    r.occupancy = pos.pieces();
    int i = 0;
    for (Bitboard b = pos.pieces(); b; ++i) {
        const Square s = pop_lsb(b);
        r.pieces[i / 2] |= uint8_t(pos.piece_on(s) << (4 * (i % 2)));
    }
    r.score = int16_t(std::clamp(score_white, -SCORE_LIMIT, SCORE_LIMIT));
    r.result = uint8_t(result);
    r.stm = uint8_t(pos.side_to_move());
    r.game = game;
    return r;
}

std::optional<Position> unpack_position(const PackedPosition& r) {
    if (std::popcount(r.occupancy) > 32 || r.stm > 1 || r.result > 2) return std::nullopt;
    char squares[64] = {};
    int i = 0;
    for (Bitboard b = r.occupancy; b; ++i) {
        const Square s = pop_lsb(b);
        const int piece = (r.pieces[i / 2] >> (4 * (i % 2))) & 15;
        if (PIECE_LETTERS[piece] == ' ') return std::nullopt;
        squares[s] = PIECE_LETTERS[piece];
    }
    Position pos;
    const std::string fen = placement_fen(squares) + (r.stm ? " b" : " w") + " - - 0 1";
    if (!pos.set_fen(fen)) return std::nullopt;
    return pos;
}

}  // namespace pythia::nnue
