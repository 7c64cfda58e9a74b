// Reading games from PGN text: tag pairs, and the main line of the movetext as SAN strings.
// Comments ({...}, ;... and %-escape lines), variations (...), NAGs ($n, !, ?!, ...), move
// numbers and the result are understood and set aside. A malformed game is reported with its
// number, players and line and skipped; reading goes on with the next game.
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace pythia {

struct PgnTag {
    std::string name, value;
};

struct PgnMove {
    std::string san;  // as written, check marks included, annotations (!, ?!) not: "Nf3", "e8=Q+"
    int line = 0;     // where it stands in the file
};

struct PgnGame {
    int number = 0;  // 1 for the first game of the file
    int line = 0;    // line of its first token
    std::vector<PgnTag> tags;
    std::vector<PgnMove> moves;  // the main line; variations are left out
    std::string termination;     // "1-0", "0-1", "1/2-1/2", "*", or "" when the game has none

    // The value of a tag, or nullptr (names are case-sensitive, as in the PGN standard).
    const std::string* tag(std::string_view name) const;
    // "game 3 (Anand - Carlsen, line 41)": how messages name the game.
    std::string description() const;
};

class PgnReader {
public:
    enum class Status { GAME, END, ERROR };

    explicit PgnReader(std::istream& in) : in_(in) {}

    // Reads the next game into `game`. GAME: a game was read. END: no more games. ERROR: the
    // game at hand is malformed; `error` names it and the fault (line and column), `game` holds
    // what was read of it, and the reader has moved on to the next game.
    Status next(PgnGame& game, std::string* error = nullptr);

    // Longest accepted symbol (move, tag name) and tag value; longer ones are errors.
    static constexpr size_t MAX_SYMBOL = 255;
    static constexpr size_t MAX_STRING = 4096;

private:
    enum class TokenType {
        END,
        TAG_OPEN,
        TAG_CLOSE,
        STRING,
        SYMBOL,
        INTEGER,
        PERIOD,
        NAG,
        RAV_OPEN,
        RAV_CLOSE,
        RESULT,
        ERROR
    };
    struct Token {
        TokenType type = TokenType::END;
        std::string text;  // symbol, string value, result, or the error message
        int line = 0, column = 0;
    };

    int get();                             // next character (0-255) or EOF, tracking line and column
    int peek();                            // next character without consuming it
    bool skip_blanks(std::string* error);  // white space and comments; false on an unterminated comment
    Token read_token();
    Token next_token();
    void unread_token(const Token& t) { pending_ = t, has_pending_ = true; }
    void skip_to_next_game(bool in_movetext);

    std::istream& in_;
    int line_ = 1, column_ = 0;
    bool started_ = false;
    int games_ = 0;
    Token pending_;
    bool has_pending_ = false;
};

}  // namespace pythia
