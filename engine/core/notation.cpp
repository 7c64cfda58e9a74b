#include "engine/core/notation.h"

#include "engine/core/movegen.h"

namespace pythia {

namespace {

constexpr std::string_view SAN_PIECES = "  NBRQK";

PieceType piece_from_letter(char c) {
    switch (c) {
        case 'N':
        case 'n':
            return KNIGHT;
        case 'B':
        case 'b':
            return BISHOP;
        case 'R':
        case 'r':
            return ROOK;
        case 'Q':
        case 'q':
            return QUEEN;
        case 'K':
        case 'k':
            return KING;
        default:
            return NO_PIECE_TYPE;
    }
}

}  // namespace

std::string square_to_string(Square s) { return {char('a' + file_of(s)), char('1' + rank_of(s))}; }

Square parse_square(std::string_view text) {
    if (text.size() != 2 || text[0] < 'a' || text[0] > 'h' || text[1] < '1' || text[1] > '8') return SQ_NONE;
    return make_square(text[0] - 'a', text[1] - '1');
}

std::string move_to_uci(Move m) {
    if (!m.is_ok()) return "0000";
    std::string s = square_to_string(m.from()) + square_to_string(m.to());
    if (m.kind() == Move::PROMOTION) s += "  nbrq"[m.promotion()];
    return s;
}

Move parse_uci_move(const Position& pos, std::string_view text) {
    if (text.size() != 4 && text.size() != 5) return Move::none();
    for (Move m : MoveList(pos))
        if (move_to_uci(m) == text) return m;
    // Accept an upper-case promotion letter too (e7e8Q), as some GUIs send it.
    if (text.size() == 5) {
        std::string lower(text);
        lower[4] = char(std::tolower(static_cast<unsigned char>(lower[4])));
        if (lower != text) return parse_uci_move(pos, lower);
    }
    return Move::none();
}

std::string move_to_san(const Position& pos, Move m) {
    std::string san;
    const Square from = m.from(), to = m.to();
    const PieceType pt = type_of(pos.moved_piece(m));

    if (m.kind() == Move::CASTLING) {
        san = to > from ? "O-O" : "O-O-O";
    } else {
        if (pt == PAWN) {
            if (pos.is_capture(m)) san += char('a' + file_of(from));
        } else {
            san += SAN_PIECES[pt];
            // Disambiguate among other pieces of the same kind that can reach `to`.
            bool ambiguous = false, same_file = false, same_rank = false;
            for (Move other : MoveList(pos)) {
                if (other == m || other.to() != to || other.from() == from) continue;
                if (type_of(pos.moved_piece(other)) != pt) continue;
                ambiguous = true;
                same_file |= file_of(other.from()) == file_of(from);
                same_rank |= rank_of(other.from()) == rank_of(from);
            }
            if (ambiguous) {
                if (!same_file)
                    san += char('a' + file_of(from));
                else if (!same_rank)
                    san += char('1' + rank_of(from));
                else
                    san += square_to_string(from);
            }
        }
        if (pos.is_capture(m)) san += 'x';
        san += square_to_string(to);
        if (m.kind() == Move::PROMOTION) {
            san += '=';
            san += SAN_PIECES[m.promotion()];
        }
    }

    Position after = pos;
    after.do_move(m);
    if (after.in_check()) san += MoveList(after).empty() ? '#' : '+';
    return san;
}

Move parse_san_move(const Position& pos, std::string_view text) {
    std::string s(text);
    // Strip check marks and annotations.
    while (!s.empty() && std::string_view("+#!?").find(s.back()) != std::string_view::npos) s.pop_back();
    if (s.size() > 4 && s.ends_with("e.p.")) s.resize(s.size() - 4);
    if (s.empty()) return Move::none();

    if (s == "O-O" || s == "0-0" || s == "O-O-O" || s == "0-0-0") {
        bool king_side = s.size() == 3;
        for (Move m : MoveList(pos))
            if (m.kind() == Move::CASTLING && (m.to() > m.from()) == king_side) return m;
        return Move::none();
    }

    PieceType piece = PAWN;
    size_t i = 0;
    if (std::string_view("NBRQK").find(s[0]) != std::string_view::npos) {
        piece = piece_from_letter(s[0]);
        i = 1;
    }

    PieceType promotion = NO_PIECE_TYPE;
    if (piece == PAWN && s.size() >= 2) {
        PieceType p = piece_from_letter(s.back());
        // The last character is a promotion piece if it follows a rank digit ("e8Q") or '='.
        char before = s[s.size() - 2];
        if (p != NO_PIECE_TYPE && p != KING && (before == '=' || (before >= '1' && before <= '8'))) {
            promotion = p;
            s.pop_back();
            if (!s.empty() && s.back() == '=') s.pop_back();
        }
    }
    if (s.size() < i + 2) return Move::none();
    Square to = parse_square(std::string_view(s).substr(s.size() - 2));
    if (to == SQ_NONE) return Move::none();

    // What lies between the piece letter and the destination: disambiguation and 'x'.
    int from_file = -1, from_rank = -1;
    for (size_t k = i; k < s.size() - 2; ++k) {
        char c = s[k];
        if (c >= 'a' && c <= 'h' && from_file < 0)
            from_file = c - 'a';
        else if (c >= '1' && c <= '8' && from_rank < 0)
            from_rank = c - '1';
        else if (c == 'x' || c == ':' || c == '-')
            continue;
        else
            return Move::none();
    }

    Move found = Move::none();
    for (Move m : MoveList(pos)) {
        if (m.to() != to || type_of(pos.moved_piece(m)) != piece || m.kind() == Move::CASTLING) continue;
        if (from_file >= 0 && file_of(m.from()) != from_file) continue;
        if (from_rank >= 0 && rank_of(m.from()) != from_rank) continue;
        if ((m.kind() == Move::PROMOTION ? m.promotion() : NO_PIECE_TYPE) != promotion) continue;
        if (found) return Move::none();  // ambiguous
        found = m;
    }
    return found;
}

}  // namespace pythia
