// The weights of the evaluation, in one struct of Scores so that the Texel tuner (eval/tune.cpp)
// can treat them as one flat vector: every field is a Score or an array of Scores.
#pragma once

#include <array>
#include <string>

#include "eval/score.h"

namespace pythia {

struct EvalParams {
    std::array<Score, PIECE_TYPE_NB> piece_value;  // PAWN..QUEEN; [0] and [KING] stay zero
    // Piece-square tables from White's side (a1 = 0); Black reads them with the rank flipped.
    std::array<std::array<Score, SQUARE_NB>, PIECE_TYPE_NB> psqt;
    // Mobility by the number of safe squares a piece reaches.
    std::array<Score, 9> knight_mobility;
    std::array<Score, 14> bishop_mobility;
    std::array<Score, 15> rook_mobility;
    std::array<Score, 28> queen_mobility;
    // Pawn structure.
    std::array<Score, 8> passed_pawn;                 // by relative rank
    std::array<Score, 8> passed_free_advance;         // stop square empty and not attacked, by rank
    std::array<Score, 8> passed_our_king_distance;    // by king distance to the stop square
    std::array<Score, 8> passed_their_king_distance;  // same for the defending king
    std::array<Score, 8> connected_pawn;              // supported or side by side, by relative rank
    Score isolated_pawn;
    Score doubled_pawn;
    Score backward_pawn;
    // King safety: the pawn shelter and storm on the king's file and its neighbours, by the
    // relative rank of the nearest pawn (0: no pawn), and attacks on the king zone.
    std::array<Score, 8> pawn_shelter;
    std::array<Score, 8> pawn_storm;
    std::array<Score, PIECE_TYPE_NB> king_zone_attack;  // per zone square attacked, from 2 attackers
    std::array<Score, PIECE_TYPE_NB> safe_check;        // a safe checking square exists
    // Pieces.
    Score bishop_pair;
    Score rook_open_file;
    Score rook_semi_open_file;
    Score knight_outpost;
    // Threats, by the type of the attacked piece.
    std::array<Score, PIECE_TYPE_NB> threat_by_pawn;
    std::array<Score, PIECE_TYPE_NB> threat_by_minor;
    std::array<Score, PIECE_TYPE_NB> threat_by_rook;
    Score hanging;  // a piece attacked and not defended at all
    Score tempo;    // the side to move
};

constexpr int EVAL_PARAM_COUNT = int(sizeof(EvalParams) / sizeof(Score));
static_assert(sizeof(EvalParams) % sizeof(Score) == 0, "EvalParams must hold only Scores");

// The weights in use. Mutable only so that the tuner can vary them; the engine never writes.
extern EvalParams PARAMS;

// The weights as shipped (what PARAMS starts as).
EvalParams default_params();

// Index of a weight inside the flat vector, for the tuner's trace.
inline int param_index(const Score& weight) { return int(&weight - reinterpret_cast<const Score*>(&PARAMS)); }
inline Score* param_vector(EvalParams& p) { return reinterpret_cast<Score*>(&p); }

// C++ source that reproduces `p` as the body of default_params() (the tuner's output).
std::string params_to_source(const EvalParams& p);

}  // namespace pythia
