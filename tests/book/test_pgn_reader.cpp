#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "book/pgn_reader.h"

using namespace pythia;
using Status = PgnReader::Status;

namespace {

std::vector<std::string> sans(const PgnGame& game) {
    std::vector<std::string> out;
    for (const PgnMove& m : game.moves) out.push_back(m.san);
    return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("PGN tags, movetext, comments, variations, NAGs and results", "[book][pgn]") {
    std::istringstream in(
        "% an escape line, ignored\n"
        "[Event \"Club \\\"open\\\" \\\\ 2024\"]\n"
        "[White \"Ann\"]\n"
        "[Black \"Bob\"]\n"
        "[Result \"1-0\"]\n"
        "\n"
        "1. e4 {a comment (with parentheses) and [brackets]} e5 2.Nf3 (2. f4 exf4 (2... d5 3. exd5) 3. Nf3) "
        "2...Nc6 $1 3. Bb5!? a6?! ; to the end of the line 4. Bxc6\n"
        "4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 "
        "Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 "
        "22. Bxc4 Nb6 23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+ 26. Qxe1 Kxf7 27. Qe3 Qg5 28. Qxg5 hxg5 29. b3 "
        "Ke6 30. a3 Kd6 31. axb4 cxb4 32. Ra5 Nd5 33. f3 Bc8 34. Kf2 Bf5 35. Ra7 g6 36. Ra6+ Kc5 37. Ke1 Nf4 "
        "38. g3 Nxh3 39. Kd2 Kb5 40. Rd6 Kc5 41. Ra6 Nf2 42. g4 Bd3 43. Re6 1-0\n"
        "\n"
        "[Event \"Second\"]\n"
        "[Result \"*\"]\n"
        "1. d4 d5 *\n");
    PgnReader reader(in);
    PgnGame game;
    std::string error;

    REQUIRE(reader.next(game, &error) == Status::GAME);
    CHECK(game.number == 1);
    CHECK(game.line == 2);
    REQUIRE(game.tags.size() == 4);
    CHECK(*game.tag("Event") == "Club \"open\" \\ 2024");
    CHECK(*game.tag("White") == "Ann");
    CHECK(game.tag("Site") == nullptr);
    CHECK(game.termination == "1-0");
    REQUIRE(game.moves.size() == 85);
    Strings all = sans(game), first(all.begin(), all.begin() + 10);
    CHECK(first == Strings{"e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"});
    CHECK(game.moves[6].line == 8);  // Ba4 is on the line after the ';' comment
    CHECK(game.moves[46].san == "Bxf7+");
    CHECK(game.moves.back().san == "Re6");
    CHECK(game.description() == "game 1 (Ann - Bob, line 2)");

    REQUIRE(reader.next(game, &error) == Status::GAME);
    CHECK(game.number == 2);
    CHECK(game.termination == "*");
    CHECK(sans(game) == Strings{"d4", "d5"});
    CHECK(game.description() == "game 2 (line 10)");

    CHECK(reader.next(game, &error) == Status::END);
    CHECK(reader.next(game, &error) == Status::END);
}

TEST_CASE("PGN layout variants: no result marker, CRLF, byte order mark, move numbers", "[book][pgn]") {
    std::istringstream in(
        "\xEF\xBB\xBF[Event \"a\"]\r\n\r\n1.e4 e5 2.Nf3\r\n"  // no result marker: the next tag ends the game
        "[Event \"b\"]\n1... e5 2. Nf3 1/2-1/2 "              // starts with Black's move number
        "1. c4 12... e5 0-1\n"                                // no tags at all
        "[Event \"c\"]\n1. a3");                              // end of file, no marker
    PgnReader reader(in);
    PgnGame game;
    REQUIRE(reader.next(game) == Status::GAME);
    CHECK(*game.tag("Event") == "a");
    CHECK(game.termination.empty());
    CHECK(sans(game) == Strings{"e4", "e5", "Nf3"});
    REQUIRE(reader.next(game) == Status::GAME);
    CHECK(sans(game) == Strings{"e5", "Nf3"});
    CHECK(game.termination == "1/2-1/2");
    REQUIRE(reader.next(game) == Status::GAME);
    CHECK(game.tags.empty());
    CHECK(sans(game) == Strings{"c4", "e5"});
    CHECK(game.termination == "0-1");
    REQUIRE(reader.next(game) == Status::GAME);
    CHECK(sans(game) == Strings{"a3"});
    CHECK(reader.next(game) == Status::END);
}

TEST_CASE("malformed PGN games are reported by name and skipped", "[book][pgn]") {
    struct Case {
        const char* text;
        const char* message;
    };
    const Case cases[] = {
        {"[White \"X\"]\n[Black \"Y\"]\n[Event \"never closed]\n\n1. e4 e5 *\n", "string not closed"},
        {"[White \"X\"]\n[Black \"Y\"]\n[Event]\n\n1. e4 e5 *\n", "a quoted value must follow"},
        {"[White \"X\"]\n[Black \"Y\"]\n[Event \"e\" \"f\"]\n\n1. e4 e5 *\n", "']' expected"},
        {"[White \"X\"]\n[Black \"Y\"]\n\n1. e4 e5) 2. Nf3 *\n", "')' without a variation"},
        {"[White \"X\"]\n[Black \"Y\"]\n\n1. e4 (1. d4 1-0) e5 *\n", "result inside a variation"},
        {"[White \"X\"]\n[Black \"Y\"]\n\n1. e4 e5 2. Nf3 & Nc6 *\n", "unexpected '&'"},
        {"[White \"X\"]\n[Black \"Y\"]\n\n1. e4 e5 2. Nf3 \x01 Nc6 *\n", "unexpected byte 0x01"},
        {"[White \"X\"]\n[Black \"Y\"]\n\n1. e4 $1234 e5 *\n", "NAG with more than three digits"},
        {"[White \"X\"]\n[Black \"Y\"]\n\n1. e4 \"quoted\" e5 *\n", "quoted string in the movetext"},
    };
    for (const Case& c : cases) {
        INFO(c.text);
        // The bad game between two good ones: both good ones must come through.
        std::istringstream in(std::string("[Event \"ok\"]\n\n1. d4 d5 *\n\n") + c.text +
                              "\n[Event \"next\"]\n\n1. c4 c5 2. Nc3 *\n");
        PgnReader reader(in);
        PgnGame game;
        std::string error;
        REQUIRE(reader.next(game, &error) == Status::GAME);
        REQUIRE(reader.next(game, &error) == Status::ERROR);
        CHECK_THAT(error, Catch::StartsWith("game 2 (X - Y, line 5): ") && Catch::Contains(c.message) &&
                              Catch::Contains("at line "));
        REQUIRE(reader.next(game, &error) == Status::GAME);
        CHECK(game.number == 3);
        CHECK(*game.tag("Event") == "next");
        CHECK(sans(game) == Strings{"c4", "c5", "Nc3"});
        CHECK(reader.next(game, &error) == Status::END);
    }
}

TEST_CASE("PGN errors that run to the end of the file", "[book][pgn]") {
    const char* texts[] = {
        "[Event \"e\"]\n1. e4 {never closed\n2. Nf3 *\n",
        "[Event \"e\"]\n1. e4 (1. d4 d5\n",
    };
    for (const char* text : texts) {
        INFO(text);
        std::istringstream in(text);
        PgnReader reader(in);
        PgnGame game;
        std::string error;
        CHECK(reader.next(game, &error) == Status::ERROR);
        CHECK_THAT(error, Catch::Contains("never closed") || Catch::Contains("not closed"));
        CHECK(reader.next(game, &error) == Status::END);
    }
}

TEST_CASE("overlong PGN symbols and strings are errors", "[book][pgn]") {
    std::string long_move(PgnReader::MAX_SYMBOL + 1, 'a');
    std::string long_value(PgnReader::MAX_STRING + 1, 'v');
    std::istringstream in("[Event \"" + long_value + "\"]\n1. e4 *\n\n[Event \"x\"]\n1. " + long_move +
                          " *\n\n[Event \"y\"]\n1. f4 *\n");
    PgnReader reader(in);
    PgnGame game;
    std::string error;
    CHECK(reader.next(game, &error) == Status::ERROR);
    CHECK_THAT(error, Catch::Contains("string longer than"));
    CHECK(reader.next(game, &error) == Status::ERROR);
    CHECK_THAT(error, Catch::Contains("symbol longer than"));
    REQUIRE(reader.next(game, &error) == Status::GAME);
    CHECK(sans(game) == Strings{"f4"});
}

// Not a fuzzer (that comes later), but damaged input of every kind must end cleanly: every
// call returns, the game count grows, and the sanitizer build sees no bad access.
TEST_CASE("damaged PGN text never hangs or crashes the reader", "[book][pgn]") {
    const std::string good =
        "[Event \"e\"]\n[White \"w\"]\n\n1. e4 {c} e5 (1... c5 2. Nf3) 2. Nf3 $2 Nc6 3. Bb5 a6! ; x\n4. Ba4 1-0\n"
        "[Event \"f\"]\n1. d4 d5 2. c4 e6 *\n";
    const std::string alphabet = "[]{}()\"\\;%$!?.*-/=+#0123456789abcdefghNBRQKOx \n\r\t\x01\xff";
    std::mt19937 rng(12345);
    for (int round = 0; round < 3000; ++round) {
        std::string text = good;
        int edits = 1 + int(rng() % 8);
        for (int e = 0; e < edits; ++e) {
            size_t at = rng() % (text.size() + 1);
            char c = alphabet[rng() % alphabet.size()];
            switch (rng() % 3) {
                case 0:
                    text.insert(text.begin() + at, c);
                    break;
                case 1:
                    if (at < text.size()) text[at] = c;
                    break;
                default:
                    if (at < text.size()) text.erase(at, 1 + rng() % 5);
                    break;
            }
        }
        std::istringstream in(text);
        PgnReader reader(in);
        PgnGame game;
        int calls = 0, last_number = 0;
        PgnReader::Status s;
        while ((s = reader.next(game)) != Status::END) {
            REQUIRE(game.number == last_number + 1);
            last_number = game.number;
            REQUIRE(++calls < 100);
        }
    }
}
