#include "book/pgn_reader.h"

#include <cstdio>

namespace pythia {

namespace {

bool is_digit(int c) { return c >= '0' && c <= '9'; }
bool is_alnum(int c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
// Characters that may continue a symbol (a move such as "exd8=Q+", a tag name, "0-0-0").
bool is_symbol_next(int c) {
    return is_alnum(c) || c == '_' || c == '+' || c == '#' || c == '=' || c == ':' || c == '-' || c == '/';
}

std::string describe_char(int c) {
    if (c >= 0x21 && c < 0x7F) return std::string("'") + char(c) + "'";
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", c & 0xFF);
    return std::string("byte ") + hex;
}

}  // namespace

const std::string* PgnGame::tag(std::string_view name) const {
    for (const PgnTag& t : tags)
        if (t.name == name) return &t.value;
    return nullptr;
}

std::string PgnGame::description() const {
    std::string inside;
    const std::string* white = tag("White");
    const std::string* black = tag("Black");
    if (white || black) inside = (white ? *white : "?") + " - " + (black ? *black : "?") + ", ";
    return "game " + std::to_string(number) + " (" + inside + "line " + std::to_string(line) + ")";
}

int PgnReader::get() {
    std::streambuf* buf = in_.rdbuf();
    int c = buf ? buf->sbumpc() : EOF;
    if (c == EOF) return EOF;
    if (c == '\n')
        ++line_, column_ = 0;
    else
        ++column_;
    return c;
}

int PgnReader::peek() {
    std::streambuf* buf = in_.rdbuf();
    return buf ? buf->sgetc() : EOF;
}

bool PgnReader::skip_blanks(std::string* error) {
    for (;;) {
        int c = peek();
        if (is_space(c)) {
            get();
        } else if (c == ';' || (c == '%' && column_ == 0)) {  // comment or escape to the end of the line
            while ((c = get()) != EOF && c != '\n') {
            }
        } else if (c == '{') {
            int line = line_, column = column_;
            get();
            while ((c = get()) != '}') {
                if (c == EOF) {
                    *error = "comment opened at line " + std::to_string(line) + ", column " +
                             std::to_string(column + 1) + " is never closed";
                    return false;
                }
            }
        } else {
            return true;
        }
    }
}

PgnReader::Token PgnReader::read_token() {
    Token t;
    if (!skip_blanks(&t.text)) {
        t.type = TokenType::ERROR;
        t.line = line_, t.column = column_;
        return t;
    }
    t.line = line_, t.column = column_;
    auto error = [&](std::string what) {
        t.type = TokenType::ERROR;
        t.text = std::move(what);
        return t;
    };
    int c = get();
    switch (c) {
        case EOF:
            t.type = TokenType::END;
            return t;
        case '[':
            t.type = TokenType::TAG_OPEN;
            return t;
        case ']':
            t.type = TokenType::TAG_CLOSE;
            return t;
        case '(':
            t.type = TokenType::RAV_OPEN;
            return t;
        case ')':
            t.type = TokenType::RAV_CLOSE;
            return t;
        case '.':
            t.type = TokenType::PERIOD;
            return t;
        case '*':
            t.type = TokenType::RESULT, t.text.push_back(c);
            return t;  // "*"
        case '!':
        case '?':  // suffix annotations: ! ? !! ?? !? ?!
            t.type = TokenType::NAG, t.text.push_back(char(c));
            if (peek() == '!' || peek() == '?') t.text += char(get());
            return t;
        case '$':
            t.type = TokenType::NAG, t.text.push_back('$');
            while (is_digit(peek())) {
                if (t.text.size() > 3) return error("NAG with more than three digits");
                t.text += char(get());
            }
            if (t.text.size() == 1) return error("'$' without a NAG number");
            return t;
        case '"':
            t.type = TokenType::STRING;
            for (;;) {
                c = get();
                if (c == EOF || c == '\n') return error("string not closed on its line");
                if (c == '"') return t;
                if (c == '\\') {
                    int next = get();
                    if (next == EOF || next == '\n') return error("string not closed on its line");
                    if (next != '"' && next != '\\') t.text += '\\';  // not an escape: keep both characters
                    c = next;
                }
                if (t.text.size() >= MAX_STRING)
                    return error("string longer than " + std::to_string(MAX_STRING) + " characters");
                t.text += char(c);
            }
        default:
            break;
    }
    if (!is_alnum(c)) return error("unexpected " + describe_char(c));
    // A symbol, a move number, or a result.
    t.text.push_back(char(c));
    bool digits = is_digit(c);
    while (is_symbol_next(peek())) {
        if (t.text.size() >= MAX_SYMBOL)
            return error("symbol longer than " + std::to_string(MAX_SYMBOL) + " characters");
        c = get();
        digits = digits && is_digit(c);
        t.text += char(c);
    }
    if (t.text == "1-0" || t.text == "0-1" || t.text == "1/2-1/2")
        t.type = TokenType::RESULT;
    else
        t.type = digits ? TokenType::INTEGER : TokenType::SYMBOL;
    return t;
}

PgnReader::Token PgnReader::next_token() {
    if (has_pending_) {
        has_pending_ = false;
        return pending_;
    }
    return read_token();
}

// After an error: skip what is left of the game, up to the next line that opens a tag. An
// error among the tags first skips the remaining tag lines, which belong to the same game.
void PgnReader::skip_to_next_game(bool in_movetext) {
    has_pending_ = false;
    auto skip_line = [this] {
        int c;
        while ((c = get()) != EOF && c != '\n') {
        }
    };
    if (column_ != 0) skip_line();
    if (!in_movetext)
        while (peek() == '[') skip_line();
    for (;;) {
        int c = peek();
        if (c == EOF || c == '[') return;
        skip_line();
    }
}

PgnReader::Status PgnReader::next(PgnGame& game, std::string* error) {
    game = PgnGame();
    if (!started_) {  // a UTF-8 byte order mark may precede the first game
        started_ = true;
        if (peek() == 0xEF) {
            get();
            if (peek() == 0xBB) get();
            if (peek() == 0xBF) get();
            column_ = 0;
        }
    }
    Token t = next_token();
    if (t.type == TokenType::END) return Status::END;
    game.number = ++games_;
    game.line = t.line;

    bool in_movetext = false;
    auto fail = [&](const Token& at, const std::string& what) {
        if (error)
            *error = game.description() + ": " + what + " at line " + std::to_string(at.line) + ", column " +
                     std::to_string(at.column + 1);
        skip_to_next_game(in_movetext);
        return Status::ERROR;
    };

    // Tag pairs: [Name "value"]
    while (t.type == TokenType::TAG_OPEN) {
        Token name = next_token();
        if (name.type == TokenType::ERROR) return fail(name, name.text);
        if (name.type != TokenType::SYMBOL) return fail(name, "malformed tag: a tag name must follow '['");
        Token value = next_token();
        if (value.type == TokenType::ERROR) return fail(value, value.text);
        if (value.type != TokenType::STRING)
            return fail(value, "malformed tag " + name.text + ": a quoted value must follow");
        Token close = next_token();
        if (close.type == TokenType::ERROR) return fail(close, close.text);
        if (close.type != TokenType::TAG_CLOSE) return fail(close, "malformed tag " + name.text + ": ']' expected");
        game.tags.push_back({name.text, value.text});
        t = next_token();
    }

    // Movetext: the main line's moves; variations are skipped by their nesting depth.
    in_movetext = true;
    int depth = 0;
    for (;; t = next_token()) {
        switch (t.type) {
            case TokenType::END:
                if (depth > 0) return fail(t, "variation not closed before the end of the file");
                return Status::GAME;  // a last game without a result marker
            case TokenType::TAG_OPEN:
                if (depth > 0) return fail(t, "tag inside a variation");
                unread_token(t);  // the next game begins: this one had no result marker
                return Status::GAME;
            case TokenType::RESULT:
                if (depth > 0) return fail(t, "result inside a variation");
                game.termination = t.text;
                return Status::GAME;
            case TokenType::RAV_OPEN:
                ++depth;
                break;
            case TokenType::RAV_CLOSE:
                if (depth == 0) return fail(t, "')' without a variation to close");
                --depth;
                break;
            case TokenType::INTEGER:
            case TokenType::PERIOD:
            case TokenType::NAG:
                break;  // move numbers and annotations
            case TokenType::SYMBOL:
                if (depth == 0) game.moves.push_back({t.text, t.line});
                break;
            case TokenType::ERROR:
                return fail(t, t.text);
            case TokenType::STRING:
                return fail(t, "quoted string in the movetext");
            case TokenType::TAG_CLOSE:
                return fail(t, "']' in the movetext");
        }
    }
}

}  // namespace pythia
