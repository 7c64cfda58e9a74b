#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <tuple>

#include "book_test_util.h"

using namespace pythia;
using namespace pythia::test;

namespace {

const char* POLYGLOT = "/usr/games/polyglot";

// Games written for this test, each exercising something a book must get right: castling on
// both wings by both colours, en passant by both colours, promotions to every piece by both
// colours, a transposition (games 2 and 7), a repetition (game 8), and comments, variations
// and NAGs. Each is written several times with different results below. No game starts from a
// FEN tag: Debian's polyglot 2.0.4 ignores that tag, starts every game from the initial
// position and so stops at the first move of such a game.
const std::vector<std::string> MOVETEXTS = {
    "1. e4 {best by test} e5 2. Nf3 $1 (2. f4 exf4 3. Nf3 (3. Bc4)) Nc6 3. Bc4!? Bc5 ; Giuoco\n"
    "4. O-O Nf6 5. d3 O-O 6. Bg5 h6 7. Bh4 d6",
    "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Qc2 Nbd7 7. O-O-O c5",
    "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 Nf6 5. Nf3 Bf5 6. Bd2 Nc6 7. Bc4 O-O-O",
    "1. e4 Nf6 2. e5 d5 3. exd6 cxd6 4. d4 g6",
    "1. a3 d5 2. a4 d4 3. e4 dxe3 4. fxe3 e5",
    "1. a4 b5 2. axb5 a6 3. bxa6 Bb7 4. axb7 Nc6 5. bxa8=N Qxa8",
    "1. c4 e6 2. Nc3 d5 3. d4 Nf6 4. Bg5 Be7 5. e3 h6",
    "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Ke2 Ke7 5. Ke1 Ke8",
    "1. a4 b5 2. axb5 a6 3. bxa6 Bb7 4. axb7 Nc6 5. bxa8=Q Qxa8",
    "1. g4 h5 2. a3 hxg4 3. a4 g3 4. a5 gxh2 5. a6 hxg1=R 6. Rxg1 Nxa6",
    "1. g4 h5 2. a3 hxg4 3. a4 g3 4. a5 gxh2 5. a6 hxg1=B 6. Rxg1 Nxa6",
    "1. g4 h5 2. a3 hxg4 3. a4 g3 4. a5 gxh2 5. a6 hxg1=Q 6. Rxg1 Nxa6",
    "1. Nf3 d5 2. g3 c5 3. Bg2 Nc6 4. O-O e5 5. d3 Nf6",
};

std::string test_pgn() {
    const char* results[] = {"1-0", "0-1", "1/2-1/2", "*"};
    std::ostringstream pgn;
    int number = 0;
    for (size_t i = 0; i < MOVETEXTS.size(); ++i) {
        for (size_t copy = 0; copy <= i % 4; ++copy) {  // 1 to 4 copies, each with its own result
            const char* result = results[(i + copy * 3) % 4];
            pgn << "[Event \"compare " << ++number << "\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"" << result
                << "\"]\n\n"
                << MOVETEXTS[i] << " " << result << "\n\n";
        }
    }
    return pgn.str();
}

using Row = std::tuple<Key, uint16_t, uint16_t>;

// A book's entries as a sorted list; Polyglot's header entries (key 0) left out.
std::vector<Row> rows_of(const std::string& path) {
    std::vector<Row> rows;
    for (const PolyglotEntry& e : read_raw_entries(path))
        if (e.key != POLYGLOT_HEADER_KEY) rows.emplace_back(e.key, e.move, e.weight);
    std::sort(rows.begin(), rows.end());
    return rows;
}

int run(const std::string& command) { return std::system((command + " > /dev/null 2>&1").c_str()); }

}  // namespace

TEST_CASE("pythia book build makes the book polyglot make-book makes", "[book][polyglot]") {
    if (skip_without(std::filesystem::exists(POLYGLOT), std::string("polyglot (") + POLYGLOT + ")")) return;
    TempDir dir;
    const std::string pgn = dir.file("games.pgn");
    write_text(pgn, test_pgn());
    int skipped = -1;
    build_from_pgn(test_pgn(), {}, &skipped);
    REQUIRE(skipped == 0);  // Polyglot stops at the first bad game: the comparison needs none

    // Pythia's options and the same in Polyglot's spelling.
    const std::pair<const char*, const char*> option_sets[] = {
        {"--min-games 1", "-min-game 1"},
        {"--min-games 2", "-min-game 2"},
        {"--min-games 3", "-min-game 3"},
        {"--max-ply 6 --min-games 1", "-max-ply 6 -min-game 1"},
        {"--only-white --min-games 1", "-only-white -min-game 1"},
        {"--only-black --min-games 2", "-only-black -min-game 2"},
    };
    for (const auto& [ours, theirs] : option_sets) {
        INFO("pythia book build " << ours << " / polyglot make-book " << theirs);
        REQUIRE(run(std::string(PYTHIA_BINARY) + " book build " + pgn + " " + dir.file("pythia.bin") + " " + ours) ==
                0);
        std::filesystem::remove(dir.file("polyglot.bin"));
        // Polyglot exits with 0 even when it stops on an error, so the file itself must show it worked.
        run(std::string(POLYGLOT) + " make-book -pgn " + pgn + " -bin " + dir.file("polyglot.bin") + " " + theirs);
        REQUIRE(std::filesystem::exists(dir.file("polyglot.bin")));
        auto pythia_rows = rows_of(dir.file("pythia.bin")), polyglot_rows = rows_of(dir.file("polyglot.bin"));
        CHECK(pythia_rows.size() > 10);
        // Same keys and moves, and the same weights (no position reaches Polyglot's 16384 games).
        CHECK(pythia_rows == polyglot_rows);
    }
}
