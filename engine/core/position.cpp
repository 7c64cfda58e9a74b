#include "engine/core/position.h"

#include <cctype>
#include <charconv>
#include <sstream>

#include "engine/core/movegen.h"
#include "engine/core/zobrist.h"

namespace pythia {

namespace {

constexpr std::string_view PIECE_LETTERS = " PNBRQK  pnbrqk";

struct CastlingKeyTable {
    Key key[16];
    CastlingKeyTable() {
        for (int r = 0; r < 16; ++r) key[r] = zobrist::castling(r);
    }
};
const CastlingKeyTable& castling_keys() {
    static const CastlingKeyTable table;
    return table;
}

std::string square_name(Square s) { return {char('a' + file_of(s)), char('1' + rank_of(s))}; }

bool fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
}

bool parse_int(std::string_view text, int& out) {
    if (text.empty() || text.size() > 9) return false;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

Position::Position() { set_fen(START_FEN); }

void Position::clear() {
    for (auto& p : board_) p = NO_PIECE;
    for (auto& b : by_type_) b = 0;
    for (auto& b : by_color_) b = 0;
    for (auto& n : piece_count_) n = 0;
    side_ = WHITE;
    game_ply_ = 0;
    chess960_ = false;
    for (int i = 0; i < 4; ++i) {
        castling_rook_[i] = SQ_NONE;
        castling_path_[i] = castling_king_path_[i] = 0;
        castling_move_[i] = Move::none();
    }
    for (auto& m : castling_mask_) m = 0;
    states_.clear();
    states_.reserve(512);
    states_.emplace_back();
}

void Position::put_piece(Piece p, Square s) {
    Bitboard b = square_bb(s);
    board_[s] = p;
    by_type_[NO_PIECE_TYPE] |= b;
    by_type_[type_of(p)] |= b;
    by_color_[color_of(p)] |= b;
    ++piece_count_[p];
}

void Position::remove_piece(Square s) {
    Piece p = board_[s];
    Bitboard b = square_bb(s);
    by_type_[NO_PIECE_TYPE] ^= b;
    by_type_[type_of(p)] ^= b;
    by_color_[color_of(p)] ^= b;
    board_[s] = NO_PIECE;
    --piece_count_[p];
}

void Position::move_piece(Square from, Square to) {
    Piece p = board_[from];
    Bitboard b = square_bb(from) | square_bb(to);
    by_type_[NO_PIECE_TYPE] ^= b;
    by_type_[type_of(p)] ^= b;
    by_color_[color_of(p)] ^= b;
    board_[from] = NO_PIECE;
    board_[to] = p;
}

void Position::add_castling_right(Color c, Square rook_sq) {
    const Square king = king_square(c);
    const bool king_side = rook_sq > king;
    const int right = castling_right(c, king_side);
    const int i = castling_index(right);
    const Square king_to = relative_square(c, king_side ? SQ_G1 : SQ_C1);
    const Square rook_to = relative_square(c, king_side ? SQ_F1 : SQ_D1);
    st().castling |= right;
    castling_rook_[i] = rook_sq;
    // between_bb(a, b) holds the squares strictly between a and b, and b.
    castling_path_[i] =
        (between_bb(king, king_to) | between_bb(rook_sq, rook_to)) & ~(square_bb(king) | square_bb(rook_sq));
    castling_king_path_[i] = between_bb(king, king_to) | square_bb(king_to);
    // Standard chess writes castling as the king's move (e1g1), Chess960 as king takes rook.
    castling_move_[i] = Move::make(king, chess960_ ? rook_sq : king_to, Move::CASTLING);
    castling_mask_[king] |= c == WHITE ? WHITE_CASTLING : BLACK_CASTLING;
    castling_mask_[rook_sq] |= right;
}

bool Position::set_fen(std::string_view fen, std::string* error, bool chess960) {
    std::vector<std::string_view> fields;
    for (size_t i = 0; i < fen.size();) {
        while (i < fen.size() && std::isspace(static_cast<unsigned char>(fen[i]))) ++i;
        size_t start = i;
        while (i < fen.size() && !std::isspace(static_cast<unsigned char>(fen[i]))) ++i;
        if (i > start) fields.push_back(fen.substr(start, i - start));
    }
    if (fields.size() != 4 && fields.size() != 6)
        return fail(error, "FEN must have 4 or 6 fields, found " + std::to_string(fields.size()));

    Position p{Blank{}};  // built aside, so that *this stays as it was on failure
    p.chess960_ = chess960;

    // 1. Piece placement, from rank 8 down to rank 1.
    int rank = RANK_8, file = FILE_A;
    for (char c : fields[0]) {
        if (c == '/') {
            if (file != 8) return fail(error, "rank " + std::to_string(rank + 1) + " does not have 8 squares");
            if (--rank < RANK_1) return fail(error, "more than 8 ranks in the piece placement");
            file = FILE_A;
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8) return fail(error, "rank " + std::to_string(rank + 1) + " has more than 8 squares");
        } else {
            size_t idx = PIECE_LETTERS.find(c);
            if (c == ' ' || idx == std::string_view::npos)
                return fail(error, std::string("bad piece letter '") + c + "'");
            if (file >= 8) return fail(error, "rank " + std::to_string(rank + 1) + " has more than 8 squares");
            p.put_piece(Piece(idx), make_square(file, rank));
            ++file;
        }
    }
    if (rank != RANK_1) return fail(error, "piece placement has fewer than 8 ranks");
    if (file != 8) return fail(error, "rank 1 does not have 8 squares");

    // 2. Side to move.
    if (fields[1] == "w")
        p.side_ = WHITE;
    else if (fields[1] == "b")
        p.side_ = BLACK;
    else
        return fail(error, "side to move must be 'w' or 'b', not '" + std::string(fields[1]) + "'");

    // Material sanity: one king each, no pawn on a back rank, no more pieces than a game allows.
    for (Color c : {WHITE, BLACK}) {
        const char* name = c == WHITE ? "white" : "black";
        if (p.count(c, KING) != 1)
            return fail(error,
                        std::string(name) + " must have exactly one king, found " + std::to_string(p.count(c, KING)));
        int pawns = p.count(c, PAWN);
        int promoted = std::max(0, p.count(c, QUEEN) - 1) + std::max(0, p.count(c, ROOK) - 2) +
                       std::max(0, p.count(c, BISHOP) - 2) + std::max(0, p.count(c, KNIGHT) - 2);
        if (pawns > 8) return fail(error, std::string(name) + " has more than 8 pawns");
        if (pawns + promoted > 8)
            return fail(error, std::string(name) + " has more promoted pieces than missing pawns");
    }
    if (p.pieces(PAWN) & (RANK_1_BB | RANK_8_BB)) return fail(error, "a pawn stands on the first or last rank");

    // 3. Castling rights: '-' or letters, each right at most once, king and rook in place. K/Q
    //    name the outermost rook on that side of the king (X-FEN), a file letter names the
    //    rook on that file (Shredder-FEN). Without Chess960 only the standard squares.
    if (fields[2] != "-") {
        for (char c : fields[2]) {
            const Color color = std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK;
            const char letter = char(std::toupper(static_cast<unsigned char>(c)));
            const std::string quoted = std::string("castling right '") + c + "'";
            const Square king = p.king_square(color);
            const Piece rook = make_piece(color, ROOK);
            if (letter != 'K' && letter != 'Q' && (letter < 'A' || letter > 'H'))
                return fail(error, std::string("bad castling letter '") + c + "'");
            if (!chess960 && king != relative_square(color, SQ_E1))
                return fail(error, quoted + " but the king is not on its start square (Chess960 needs UCI_Chess960)");
            if (relative_rank(color, king) != RANK_1)
                return fail(error, quoted + " but the king is not on its back rank");
            Square rook_sq = SQ_NONE;
            if (!chess960 && (letter == 'K' || letter == 'Q')) {
                rook_sq = relative_square(color, letter == 'K' ? SQ_H1 : SQ_A1);
                if (p.piece_on(rook_sq) != rook) return fail(error, quoted + " but no rook on " + square_name(rook_sq));
            } else if (letter == 'K' || letter == 'Q') {
                // The outermost rook on that side: scan from the corner towards the king.
                const int step = letter == 'K' ? -1 : 1;
                for (Square s = relative_square(color, letter == 'K' ? SQ_H1 : SQ_A1); s != king; s = s + step)
                    if (p.piece_on(s) == rook) {
                        rook_sq = s;
                        break;
                    }
                if (rook_sq == SQ_NONE)
                    return fail(error, quoted + " but no rook on the " + (letter == 'K' ? "king" : "queen") +
                                           "'s side of the king");
            } else {
                rook_sq = relative_square(color, make_square(letter - 'A', RANK_1));
                if (p.piece_on(rook_sq) != rook) return fail(error, quoted + " but no rook on " + square_name(rook_sq));
                if (!chess960 && file_of(rook_sq) != FILE_A && file_of(rook_sq) != FILE_H)
                    return fail(error, quoted + " names a rook that is not in a corner (Chess960 needs UCI_Chess960)");
            }
            const bool king_side = rook_sq > king;
            const int right = castling_right(color, king_side);
            if (p.st().castling & right)
                return fail(error,
                            quoted + " repeated: the " + (king_side ? "king" : "queen") + "-side right is given twice");
            p.add_castling_right(color, rook_sq);
        }
    }

    // 4. En passant square: on the sixth rank of the side to move, behind an enemy pawn that could
    //    just have made a double step. Kept only if a pawn of the side to move can take there.
    if (fields[3] != "-") {
        std::string_view ep = fields[3];
        if (ep.size() != 2 || ep[0] < 'a' || ep[0] > 'h' || ep[1] < '1' || ep[1] > '8')
            return fail(error, "bad en passant square '" + std::string(ep) + "'");
        Square s = make_square(ep[0] - 'a', ep[1] - '1');
        Color us = p.side_, them = ~us;
        if (relative_rank(us, s) != RANK_6)
            return fail(error,
                        "en passant square " + std::string(ep) + " is not on the right rank for the side to move");
        if (p.piece_on(s - pawn_push(us)) != make_piece(them, PAWN) || !p.empty(s) || !p.empty(s + pawn_push(us)))
            return fail(error, "en passant square " + std::string(ep) + " does not follow a double pawn step");
        if (pawn_attacks(them, s) & p.pieces(us, PAWN)) p.st().ep_square = s;
    }

    // 5. Clocks.
    if (fields.size() == 6) {
        int rule50, fullmove;
        if (!parse_int(fields[4], rule50) || rule50 < 0)
            return fail(error, "bad halfmove clock '" + std::string(fields[4]) + "'");
        if (!parse_int(fields[5], fullmove) || fullmove < 0)
            return fail(error, "bad fullmove number '" + std::string(fields[5]) + "'");
        if (fields[3] != "-" && rule50 != 0) return fail(error, "en passant square with a non-zero halfmove clock");
        p.st().rule50 = rule50;
        p.game_ply_ = 2 * (std::max(fullmove, 1) - 1) + (p.side_ == BLACK);
    } else {
        p.game_ply_ = p.side_ == BLACK;
    }

    // 6. Checks: the side not to move may not be in check. At most two pieces can give check, and
    //    one of two must be a slider, since only a slider's check can be discovered.
    Color us = p.side_, them = ~us;
    if (p.attackers_to(p.king_square(them)) & p.pieces(us)) return fail(error, "the side not to move is in check");
    Bitboard checkers = p.attackers_to(p.king_square(us)) & p.pieces(them);
    if (popcount(checkers) > 2) return fail(error, "the side to move is in check by more than two pieces");
    if (popcount(checkers) == 2 && !(checkers & (p.pieces(BISHOP, ROOK) | p.pieces(QUEEN))))
        return fail(error, "impossible double check by two pieces that are not sliders");
    p.st().checkers = checkers;
    p.st().key = p.compute_key();
    p.st().pawn_key = p.compute_pawn_key();

    *this = std::move(p);
    return true;
}

Key Position::compute_key() const {
    Key k = 0;
    for (Bitboard b = pieces(); b;) {
        Square s = pop_lsb(b);
        k ^= zobrist::piece_square(board_[s], s);
    }
    k ^= zobrist::castling(st().castling);
    if (st().ep_square != SQ_NONE) k ^= zobrist::en_passant_file(file_of(st().ep_square));
    if (side_ == WHITE) k ^= zobrist::white_to_move();
    return k;
}

Key Position::compute_pawn_key() const {
    Key k = 0;
    for (Bitboard b = pieces(PAWN); b;) {
        Square s = pop_lsb(b);
        k ^= zobrist::piece_square(board_[s], s);
    }
    return k;
}

std::string Position::fen() const {
    std::string out;
    for (int r = RANK_8; r >= RANK_1; --r) {
        int empty_run = 0;
        for (int f = FILE_A; f <= FILE_H; ++f) {
            Piece p = board_[make_square(f, r)];
            if (p == NO_PIECE) {
                ++empty_run;
                continue;
            }
            if (empty_run) out += char('0' + empty_run);
            empty_run = 0;
            out += PIECE_LETTERS[p];
        }
        if (empty_run) out += char('0' + empty_run);
        if (r > RANK_1) out += '/';
    }
    out += side_ == WHITE ? " w " : " b ";
    if (st().castling == NO_CASTLING) out += '-';
    for (int right : {WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO}) {
        if (!(st().castling & right)) continue;
        const Color c = right & WHITE_CASTLING ? WHITE : BLACK;
        const bool king_side = right & (WHITE_OO | BLACK_OO);
        const Square rook_sq = castling_rook_square(right);
        // X-FEN: K/Q unless another rook of ours stands further out on that side.
        const Square corner = relative_square(c, king_side ? SQ_H1 : SQ_A1);
        const Bitboard outside = (between_bb(rook_sq, corner) | square_bb(corner)) & ~square_bb(rook_sq);
        char letter = king_side ? 'K' : 'Q';
        if (outside & pieces(c, ROOK)) letter = char('A' + file_of(rook_sq));
        out += c == WHITE ? letter : char(std::tolower(letter));
    }
    out += ' ';
    out += st().ep_square == SQ_NONE ? "-" : square_name(st().ep_square);
    out += ' ' + std::to_string(st().rule50) + ' ' + std::to_string(fullmove_number());
    return out;
}

std::string Position::pretty() const {
    std::ostringstream os;
    os << "\n +---+---+---+---+---+---+---+---+\n";
    for (int r = RANK_8; r >= RANK_1; --r) {
        for (int f = FILE_A; f <= FILE_H; ++f) os << " | " << PIECE_LETTERS[board_[make_square(f, r)]];
        os << " | " << r + 1 << "\n +---+---+---+---+---+---+---+---+\n";
    }
    os << "   a   b   c   d   e   f   g   h\n\nFen: " << fen() << "\nKey: " << std::hex << std::uppercase;
    os.width(16);
    os.fill('0');
    os << key() << std::dec << "\nCheckers:";
    for (Bitboard b = checkers(); b;) os << ' ' << square_name(pop_lsb(b));
    os << '\n';
    return os.str();
}

Bitboard Position::attackers_to(Square s, Bitboard occupied) const {
    return (pawn_attacks(BLACK, s) & pieces(WHITE, PAWN)) | (pawn_attacks(WHITE, s) & pieces(BLACK, PAWN)) |
           (knight_attacks(s) & pieces(KNIGHT)) | (bishop_attacks(s, occupied) & pieces(BISHOP, QUEEN)) |
           (rook_attacks(s, occupied) & pieces(ROOK, QUEEN)) | (king_attacks(s) & pieces(KING));
}

bool Position::gives_check(Move m) const {
    Color us = side_;
    Square ksq = king_square(~us);
    Square from = m.from(), to = m.to();
    PieceType pt = type_of(board_[from]);
    Bitboard occ = (pieces() ^ square_bb(from)) | square_bb(to);
    Bitboard ours = pieces(us) ^ square_bb(from);

    switch (m.kind()) {
        case Move::PROMOTION:
            pt = m.promotion();
            break;
        case Move::EN_PASSANT:
            occ ^= square_bb(to - pawn_push(us));
            break;
        case Move::CASTLING: {
            const bool king_side = to > from;
            const Square rook_from = castling_rook_square(castling_right(us, king_side));
            const Square king_to = relative_square(us, king_side ? SQ_G1 : SQ_C1);
            const Square rook_to = relative_square(us, king_side ? SQ_F1 : SQ_D1);
            occ = (pieces() ^ square_bb(from) ^ square_bb(rook_from)) | square_bb(king_to) | square_bb(rook_to);
            return rook_attacks(rook_to, occ) & square_bb(ksq);
        }
        default:
            break;
    }
    // Direct check by the piece on its new square.
    Bitboard direct = pt == PAWN ? pawn_attacks(us, to) : attacks_bb(pt, to, occ);
    if (direct & square_bb(ksq)) return true;
    // Discovered check by a slider behind the vacated square(s).
    return ((bishop_attacks(ksq, occ) & pieces(BISHOP, QUEEN)) | (rook_attacks(ksq, occ) & pieces(ROOK, QUEEN))) &
           ours & ~square_bb(to);
}

CheckInfo Position::check_info() const {
    const Color us = side_;
    const Square ksq = king_square(~us);
    const Bitboard occ = pieces();
    CheckInfo info;
    info.enemy_king = ksq;
    info.squares[NO_PIECE_TYPE] = 0;
    info.squares[PAWN] = pawn_attacks(~us, ksq);
    info.squares[KNIGHT] = knight_attacks(ksq);
    info.squares[BISHOP] = bishop_attacks(ksq, occ);
    info.squares[ROOK] = rook_attacks(ksq, occ);
    info.squares[QUEEN] = info.squares[BISHOP] | info.squares[ROOK];
    info.squares[KING] = 0;
    // A piece of ours alone between one of our sliders and their king discovers check when it
    // leaves the line. (A slider's own move along the line cannot: it would be giving check
    // already, with us to move.)
    info.discoverers = 0;
    Bitboard snipers =
        ((bishop_attacks(ksq, 0) & pieces(BISHOP, QUEEN)) | (rook_attacks(ksq, 0) & pieces(ROOK, QUEEN))) & pieces(us);
    while (snipers) {
        const Square sniper = pop_lsb(snipers);
        const Bitboard blockers = between_bb(ksq, sniper) & occ & ~square_bb(sniper);  // between_bb holds its end
        if (blockers && !(blockers & (blockers - 1))) info.discoverers |= blockers & pieces(us);
    }
    return info;
}

Key Position::key_after(Move m) const {
    Square from = m.from(), to = m.to();
    Piece pc = board_[from];
    Key k = st().key ^ zobrist::white_to_move();
    if (board_[to] != NO_PIECE && m.kind() != Move::CASTLING) k ^= zobrist::piece_square(board_[to], to);
    return k ^ zobrist::piece_square(pc, from) ^ zobrist::piece_square(pc, to);
}

void Position::do_move(Move m) {
    const Color us = side_, them = ~us;
    const Square from = m.from(), to = m.to();
    const Piece pc = board_[from];

    states_.push_back(states_.back());
    StateInfo& s = states_.back();
    Key key = s.key ^ zobrist::white_to_move();
    s.move = m;
    s.captured = NO_PIECE;
    ++s.rule50;
    ++s.plies_from_null;
    ++game_ply_;

    if (s.ep_square != SQ_NONE) {
        key ^= zobrist::en_passant_file(file_of(s.ep_square));
        s.ep_square = SQ_NONE;
    }

    if (m.kind() == Move::CASTLING) {
        // `to` is the king's square (e1g1) or, in Chess960, its rook's (e1h1): either way the
        // king-side rook is the one towards the h-file. In Chess960 the king or the rook may
        // stay where it is or land where the other stood: both are lifted, then put down.
        const bool king_side = to > from;
        const Square rook_from = castling_rook_[castling_index(castling_right(us, king_side))];
        const Square king_to = relative_square(us, king_side ? SQ_G1 : SQ_C1);
        const Square rook_to = relative_square(us, king_side ? SQ_F1 : SQ_D1);
        const Piece rook = make_piece(us, ROOK);
        remove_piece(from);
        remove_piece(rook_from);
        put_piece(pc, king_to);
        put_piece(rook, rook_to);
        key ^= zobrist::piece_square(pc, from) ^ zobrist::piece_square(pc, king_to) ^
               zobrist::piece_square(rook, rook_from) ^ zobrist::piece_square(rook, rook_to);
    } else {
        Square cap_sq = m.kind() == Move::EN_PASSANT ? to - pawn_push(us) : to;
        Piece captured = board_[cap_sq];
        if (captured != NO_PIECE) {
            remove_piece(cap_sq);
            key ^= zobrist::piece_square(captured, cap_sq);
            if (type_of(captured) == PAWN) s.pawn_key ^= zobrist::piece_square(captured, cap_sq);
            s.captured = captured;
            s.rule50 = 0;
        }
        move_piece(from, to);
        key ^= zobrist::piece_square(pc, from) ^ zobrist::piece_square(pc, to);

        if (type_of(pc) == PAWN) {
            s.rule50 = 0;
            s.pawn_key ^= zobrist::piece_square(pc, from);
            if (m.kind() == Move::PROMOTION) {
                Piece promoted = make_piece(us, m.promotion());
                remove_piece(to);
                put_piece(promoted, to);
                key ^= zobrist::piece_square(pc, to) ^ zobrist::piece_square(promoted, to);
            } else {
                s.pawn_key ^= zobrist::piece_square(pc, to);
                // A double step grants en passant only if an enemy pawn stands ready to take
                // (this is also the condition under which Polyglot hashes the file).
                if ((int(to) ^ int(from)) == 16 && (pawn_attacks(us, to - pawn_push(us)) & pieces(them, PAWN))) {
                    s.ep_square = to - pawn_push(us);
                    key ^= zobrist::en_passant_file(file_of(s.ep_square));
                }
            }
        }
    }

    int lost = castling_mask_[from] | castling_mask_[to];
    if (s.castling & lost) {
        const auto& ck = castling_keys();
        key ^= ck.key[s.castling];
        s.castling &= ~lost;
        key ^= ck.key[s.castling];
    }

    side_ = them;
    s.key = key;
    s.checkers = attackers_to(king_square(them)) & pieces(us);
    update_repetition();
}

void Position::update_repetition() {
    StateInfo& s = states_.back();
    s.repetition = 0;
    int end = std::min(s.rule50, s.plies_from_null);
    const int last = int(states_.size()) - 1;
    for (int i = 4; i <= end && i <= last; i += 2) {
        const StateInfo& earlier = states_[last - i];
        if (earlier.key == s.key) {
            s.repetition = earlier.repetition ? -i : i;
            break;
        }
    }
}

void Position::undo_move() {
    const StateInfo& s = states_.back();
    const Move m = s.move;
    const Color us = ~side_;
    const Square from = m.from(), to = m.to();

    side_ = us;
    --game_ply_;
    if (m.kind() == Move::CASTLING) {
        const bool king_side = to > from;
        const Square rook_from = castling_rook_[castling_index(castling_right(us, king_side))];
        remove_piece(relative_square(us, king_side ? SQ_G1 : SQ_C1));
        remove_piece(relative_square(us, king_side ? SQ_F1 : SQ_D1));
        put_piece(make_piece(us, KING), from);
        put_piece(make_piece(us, ROOK), rook_from);
    } else {
        if (m.kind() == Move::PROMOTION) {
            remove_piece(to);
            put_piece(make_piece(us, PAWN), to);
        }
        move_piece(to, from);
        if (s.captured != NO_PIECE) put_piece(s.captured, m.kind() == Move::EN_PASSANT ? to - pawn_push(us) : to);
    }
    states_.pop_back();
}

void Position::do_null_move() {
    states_.push_back(states_.back());
    StateInfo& s = states_.back();
    s.key ^= zobrist::white_to_move();
    if (s.ep_square != SQ_NONE) {
        s.key ^= zobrist::en_passant_file(file_of(s.ep_square));
        s.ep_square = SQ_NONE;
    }
    s.move = Move::null();
    s.captured = NO_PIECE;
    ++s.rule50;
    s.plies_from_null = 0;
    s.checkers = 0;
    s.repetition = 0;
    side_ = ~side_;
    ++game_ply_;
}

void Position::undo_null_move() {
    states_.pop_back();
    side_ = ~side_;
    --game_ply_;
}

bool Position::is_fifty_move_draw() const {
    if (st().rule50 < 100) return false;
    if (!in_check()) return true;
    MoveList moves(*this);
    return moves.size() > 0;  // checkmate on the 100th ply is still checkmate
}

bool Position::is_draw(int ply) const {
    if (is_fifty_move_draw()) return true;
    return st().repetition && st().repetition < ply;
}

bool Position::has_insufficient_material() const {
    if (pieces(PAWN, ROOK) | pieces(QUEEN)) return false;
    Bitboard minors = pieces(KNIGHT, BISHOP);
    if (!more_than_one(minors)) return true;
    if (pieces(KNIGHT)) return false;
    Bitboard bishops = pieces(BISHOP);
    return !(bishops & DARK_SQUARES) || !(bishops & ~DARK_SQUARES);
}

bool Position::is_consistent(std::string* why) const {
    auto bad = [&](const std::string& what) {
        if (why) *why = what;
        return false;
    };
    Bitboard all = 0;
    int counts[PIECE_NB] = {};
    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        Piece p = board_[s];
        if (p == NO_PIECE) continue;
        all |= square_bb(s);
        ++counts[p];
        if (!(pieces(color_of(p), type_of(p)) & square_bb(s))) return bad("bitboards disagree with the board");
    }
    if (all != pieces()) return bad("occupancy disagrees with the board");
    if ((pieces(WHITE) | pieces(BLACK)) != all || (pieces(WHITE) & pieces(BLACK))) return bad("colour bitboards");
    for (int p = 0; p < PIECE_NB; ++p)
        if (p != NO_PIECE && counts[p] != piece_count_[p]) return bad("piece counts");
    if (st().key != compute_key()) return bad("incremental key differs from a fresh one");
    if (st().pawn_key != compute_pawn_key()) return bad("incremental pawn key differs from a fresh one");
    if (st().checkers != (attackers_to(king_square(side_)) & pieces(~side_))) return bad("checkers");
    for (int right : {WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO}) {
        if (!can_castle(right)) continue;
        const Color c = right & WHITE_CASTLING ? WHITE : BLACK;
        const Square rook_sq = castling_rook_square(right);
        if (rook_sq == SQ_NONE || piece_on(rook_sq) != make_piece(c, ROOK) ||
            relative_rank(c, king_square(c)) != RANK_1)
            return bad("a castling right without its king and rook in place");
    }
    return true;
}

}  // namespace pythia
