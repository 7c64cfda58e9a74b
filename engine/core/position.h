// The board: pieces, side to move, castling and en passant rights, clocks, keys, and the
// history of states needed to take moves back and to recognise repetitions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/bitboard.h"
#include "engine/core/types.h"

namespace pythia {

constexpr std::string_view START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// What one move changes, kept so that undo_move needs no search and repetitions can be found.
// What a move needs in order to give check, computed once for the position (check_info()) so
// that gives_check(m, info) is a few masks per move instead of two slider lookups.
struct CheckInfo {
    Bitboard squares[PIECE_TYPE_NB];  // from where a piece of each type attacks the enemy king
    Bitboard discoverers;             // our pieces whose leaving the line uncovers a check
    Square enemy_king;
};

struct StateInfo {
    Key key = 0;       // full Polyglot key of the position
    Key pawn_key = 0;  // key of the pawns alone (for the pawn hash table)
    int castling = NO_CASTLING;
    int rule50 = 0;              // plies since the last capture or pawn move
    int plies_from_null = 0;     // plies since the last null move (repetitions cannot cross it)
    Square ep_square = SQ_NONE;  // set only when a pawn of the side to move could capture there
    Bitboard checkers = 0;       // pieces giving check to the side to move
    Piece captured = NO_PIECE;   // piece captured by `move`
    Move move;                   // the move that led to this state
    // 0: no earlier occurrence; i > 0: the same position occurred i plies ago; -i: it occurred
    // i plies ago and had itself occurred before (so this is at least the third time).
    int repetition = 0;
};

class Position {
public:
    Position();  // the start position

    // Parses a FEN (4 or 6 fields). On failure returns false, leaves *this unchanged and, when
    // `error` is given, stores a message naming the problem. With `chess960` the castling field
    // may be X-FEN (KQkq: the outermost rook on that side) or Shredder-FEN (the rooks' files,
    // HAha), king and rooks on any back-rank squares, and castling moves are king-takes-rook
    // (e1h1); without it castling needs the king on e1/e8 and the rooks in the corners.
    bool set_fen(std::string_view fen, std::string* error = nullptr, bool chess960 = false);
    // X-FEN: in Chess960 a right whose rook is not the outermost one is written as its file.
    std::string fen() const;
    std::string pretty() const;  // board diagram with FEN and key, for the `d` command

    // Board access.
    Piece piece_on(Square s) const { return board_[s]; }
    bool empty(Square s) const { return board_[s] == NO_PIECE; }
    Bitboard pieces() const { return by_type_[NO_PIECE_TYPE]; }
    Bitboard pieces(Color c) const { return by_color_[c]; }
    Bitboard pieces(PieceType pt) const { return by_type_[pt]; }
    Bitboard pieces(PieceType a, PieceType b) const { return by_type_[a] | by_type_[b]; }
    Bitboard pieces(Color c, PieceType pt) const { return by_color_[c] & by_type_[pt]; }
    Bitboard pieces(Color c, PieceType a, PieceType b) const { return by_color_[c] & (by_type_[a] | by_type_[b]); }
    int count(Color c, PieceType pt) const { return piece_count_[make_piece(c, pt)]; }
    int count(Piece p) const { return piece_count_[p]; }
    int count_all() const { return popcount(pieces()); }
    Square king_square(Color c) const { return lsb(pieces(c, KING)); }

    // State access.
    Color side_to_move() const { return side_; }
    Square ep_square() const { return st().ep_square; }
    int castling_rights() const { return st().castling; }
    bool can_castle(int rights) const { return st().castling & rights; }
    bool is_chess960() const { return chess960_; }
    // For one right (WHITE_OO, ...): the rook's start square (SQ_NONE if never granted), the
    // squares that must be empty (king and rook themselves aside), the squares the king goes
    // through and to (which must not be attacked), and the move that castles.
    Square castling_rook_square(int right) const { return castling_rook_[castling_index(right)]; }
    Bitboard castling_path(int right) const { return castling_path_[castling_index(right)]; }
    Bitboard castling_king_path(int right) const { return castling_king_path_[castling_index(right)]; }
    Move castling_move(int right) const { return castling_move_[castling_index(right)]; }
    int rule50() const { return st().rule50; }
    int game_ply() const { return game_ply_; }
    int fullmove_number() const { return 1 + game_ply_ / 2; }
    Key key() const { return st().key; }
    Key pawn_key() const { return st().pawn_key; }
    Bitboard checkers() const { return st().checkers; }
    bool in_check() const { return st().checkers != 0; }
    Piece captured_piece() const { return st().captured; }
    Move last_move() const { return st().move; }
    const StateInfo& state() const { return st(); }
    // Number of moves made since set_fen (the length of the undo history).
    int moves_made() const { return int(states_.size()) - 1; }

    // Attacks.
    Bitboard attackers_to(Square s, Bitboard occupied) const;
    Bitboard attackers_to(Square s) const { return attackers_to(s, pieces()); }
    bool attacked_by(Color c, Square s) const { return attackers_to(s) & pieces(c); }

    // Facts about a move that must be legal in this position.
    Piece moved_piece(Move m) const { return board_[m.from()]; }
    bool is_capture(Move m) const {
        return (!empty(m.to()) && m.kind() != Move::CASTLING) || m.kind() == Move::EN_PASSANT;
    }
    // Captures and promotions: the moves that change material.
    bool is_tactical(Move m) const { return is_capture(m) || m.kind() == Move::PROMOTION; }
    bool gives_check(Move m) const;
    CheckInfo check_info() const;
    // The same answer as gives_check(m), from the position's check_info().
    bool gives_check(Move m, const CheckInfo& info) const {
        if (m.kind() != Move::NORMAL) return gives_check(m);  // promotions, en passant, castling
        if (info.squares[type_of(board_[m.from()])] & square_bb(m.to())) return true;
        return (info.discoverers & square_bb(m.from())) && !aligned(m.from(), m.to(), info.enemy_king);
    }
    // The key the position will have after m; exact except for en passant and castling
    // rights, which is enough to prefetch a hash table entry.
    Key key_after(Move m) const;

    // Making moves. do_move takes a legal move; undo_move takes back the last one.
    void do_move(Move m);
    void undo_move();
    void do_null_move();  // only when not in check
    void undo_null_move();

    // Draws. `ply` is the distance from the search root: a repetition counts as a draw if the
    // earlier occurrence lies inside the search (ply > distance), or if it is the third time.
    bool is_draw(int ply) const;
    bool is_fifty_move_draw() const;  // 50 moves without capture or pawn move, and not mated
    bool is_threefold_repetition() const { return st().repetition < 0; }
    bool has_repeated() const { return st().repetition != 0; }
    // Neither side can mate by any sequence of legal moves (K v K, K+minor v K, bishops all
    // on one colour).
    bool has_insufficient_material() const;

    // Consistency check of every incremental structure, for tests and debug builds.
    bool is_consistent(std::string* why = nullptr) const;

private:
    struct Blank {};
    static constexpr int castling_index(int right) { return right == 1 ? 0 : right == 2 ? 1 : right == 4 ? 2 : 3; }
    explicit Position(Blank) { clear(); }

    const StateInfo& st() const { return states_.back(); }
    StateInfo& st() { return states_.back(); }

    void clear();
    void put_piece(Piece p, Square s);
    void remove_piece(Square s);
    void move_piece(Square from, Square to);
    Key compute_key() const;
    Key compute_pawn_key() const;
    void update_repetition();
    // Grants one castling right with its rook on `rook_sq` (the king is on its back rank).
    void add_castling_right(Color c, Square rook_sq);

    Piece board_[SQUARE_NB];
    Bitboard by_type_[PIECE_TYPE_NB];  // index 0: all pieces
    Bitboard by_color_[COLOR_NB];
    int piece_count_[PIECE_NB];
    Color side_ = WHITE;
    int game_ply_ = 0;
    bool chess960_ = false;
    // Castling geometry, fixed by the FEN: per right (index K, Q, k, q) and per square.
    Square castling_rook_[4];
    Bitboard castling_path_[4];
    Bitboard castling_king_path_[4];
    Move castling_move_[4];
    uint8_t castling_mask_[SQUARE_NB];  // rights lost when a piece moves from or to a square
    std::vector<StateInfo> states_;
};

}  // namespace pythia
