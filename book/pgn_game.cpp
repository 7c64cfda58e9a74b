#include "book/pgn_game.h"

#include <algorithm>
#include <cctype>

#include "engine/core/notation.h"

namespace pythia {

namespace {

GameResult parse_result(const std::string& text) {
    if (text == "1-0") return GameResult::WHITE_WINS;
    if (text == "0-1") return GameResult::BLACK_WINS;
    if (text == "1/2-1/2") return GameResult::DRAW;
    return GameResult::UNKNOWN;
}

bool is_standard_variant(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    return name.empty() || name == "standard" || name == "normal" || name == "chess";
}

bool fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
}

}  // namespace

GameResult game_result(const PgnGame& game) {
    if (const std::string* tag = game.tag("Result"); tag && parse_result(*tag) != GameResult::UNKNOWN)
        return parse_result(*tag);
    return parse_result(game.termination);
}

bool replay_game(const PgnGame& game, ReplayedGame& out, std::string* error) {
    out = ReplayedGame();
    out.result = game_result(game);
    if (const std::string* variant = game.tag("Variant"); variant && !is_standard_variant(*variant))
        return fail(error, "variant '" + *variant + "' is not standard chess");
    if (const std::string* fen = game.tag("FEN")) {
        std::string why;
        if (!out.start.set_fen(*fen, &why)) return fail(error, "bad FEN tag '" + *fen + "': " + why);
    }
    Position pos = out.start;
    out.moves.reserve(game.moves.size());
    for (const PgnMove& pm : game.moves) {
        Move m = parse_san_move(pos, pm.san);
        if (!m) {
            std::string number = std::to_string(pos.fullmove_number()) + (pos.side_to_move() == WHITE ? "." : "...");
            return fail(error, "illegal, ambiguous or unreadable move " + number + pm.san + " at line " +
                                   std::to_string(pm.line));
        }
        out.moves.push_back(m);
        pos.do_move(m);
    }
    return true;
}

}  // namespace pythia
