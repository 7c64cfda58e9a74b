// Reading and writing squares and moves: UCI long algebraic (e2e4, e7e8q) and SAN (Nf3, exd5,
// O-O, e8=Q+).
#pragma once

#include <string>
#include <string_view>

#include "engine/core/position.h"

namespace pythia {

std::string square_to_string(Square s);
Square parse_square(std::string_view text);  // SQ_NONE unless exactly "a1".."h8"

// "e2e4", "e7e8q", castling as the king's move ("e1g1") or, in a Chess960 position, as king
// takes own rook ("e1h1"); "0000" for a null or missing move.
std::string move_to_uci(Move m);
// The legal move of pos written as `text` in UCI notation, or Move::none() if there is none.
Move parse_uci_move(const Position& pos, std::string_view text);

// SAN of a legal move, with check (+) and mate (#) marks.
std::string move_to_san(const Position& pos, Move m);
// The legal move of pos written as `text` in SAN; tolerates check marks, annotations (!?),
// "0-0" for castling and a missing '=' before the promotion piece. Move::none() when the text
// names no legal move or more than one.
Move parse_san_move(const Position& pos, std::string_view text);

}  // namespace pythia
