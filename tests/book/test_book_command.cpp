#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>

#include "book_test_util.h"

using namespace pythia::test;

namespace {

struct Outcome {
    int status;
    std::string output;  // stdout and stderr together
};

Outcome run_pythia(const std::string& args) {
    std::string command = std::string(PYTHIA_BINARY) + " " + args + " 2>&1";
    FILE* p = popen(command.c_str(), "r");
    REQUIRE(p);
    std::string output;
    std::array<char, 4096> buffer;
    size_t n;
    while ((n = fread(buffer.data(), 1, buffer.size(), p)) > 0) output.append(buffer.data(), n);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

const std::string GAMES =
    "[Event \"one\"]\n[White \"Ann\"]\n[Black \"Bob\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n"
    "[Event \"two\"]\n[White \"Bad\"]\n[Black \"Game\"]\n[Result \"0-1\"]\n\n1. e4 e5 2. Ke3 Nc6 0-1\n\n"
    "[Event \"three\"]\n[White \"Cy\"]\n[Black \"Di\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n\n"
    "[Event \"four\"]\n[White \"Ed\"]\n[Black \"Flo\"]\n[Result \"1-0\"]\n\n1. e4 {unclosed comment 1-0\n";

}  // namespace

TEST_CASE("pythia book build skips bad games by name, probe lists moves", "[book][cli]") {
    TempDir dir;
    write_text(dir.file("g.pgn"), GAMES);
    Outcome built = run_pythia("book build " + dir.file("g.pgn") + " " + dir.file("g.bin"));
    INFO(built.output);
    CHECK(built.status == 0);
    CHECK_THAT(built.output, Catch::Contains("skipped game 2 (Bad - Game, line 8): illegal, ambiguous or "
                                             "unreadable move 2.Ke3 at line 13"));
    CHECK_THAT(built.output, Catch::Contains("skipped game 4 (Ed - Flo, line 22): comment opened at line 27"));
    CHECK_THAT(built.output, Catch::Contains("games: 4 read, 2 used, 2 skipped"));
    // The winners' moves (both sides' in a draw): e4 and Nf3 of game one, d4 and d5 of game three.
    CHECK_THAT(built.output, Catch::Contains("entries: 4 in 3 positions, written to " + dir.file("g.bin")));

    Outcome probe = run_pythia("book probe startpos --book " + dir.file("g.bin"));
    INFO(probe.output);
    CHECK(probe.status == 0);
    CHECK_THAT(probe.output, Catch::Contains("position rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 "
                                             "(key 463b96181691fc9c)"));
    CHECK_THAT(probe.output, Catch::Contains("e2e4   e4            2  66.67%"));
    CHECK_THAT(probe.output, Catch::Contains("d2d4   d4            1  33.33%"));
    CHECK_THAT(probe.output, Catch::Contains("2 moves, total weight 3"));

    // The same position given as FEN fields, and a position reached by moves.
    CHECK_THAT(
        run_pythia("book probe rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 --book " + dir.file("g.bin"))
            .output,
        Catch::Contains("2 moves, total weight 3"));
    Outcome after = run_pythia("book probe startpos moves e2e4 e7e5 --book " + dir.file("g.bin"));
    CHECK_THAT(after.output, Catch::Contains("g1f3   Nf3           2 100.00%"));
    CHECK_THAT(run_pythia("book probe startpos moves a2a3 --book " + dir.file("g.bin")).output,
               Catch::Contains("no book moves"));
}

TEST_CASE("pythia book refuses bad files and bad arguments", "[book][cli]") {
    TempDir dir;
    write_text(dir.file("g.pgn"), GAMES);
    write_text(dir.file("short.bin"), std::string(33, '\0'));

    Outcome missing = run_pythia("book probe startpos --book " + dir.file("nothing.bin"));
    CHECK(missing.status == 1);
    CHECK_THAT(missing.output,
               Catch::Contains("book refused") && Catch::Contains("cannot open") && Catch::Contains("nothing.bin"));
    Outcome truncated = run_pythia("book probe --book " + dir.file("short.bin"));
    CHECK(truncated.status == 1);
    CHECK_THAT(truncated.output, Catch::Contains("truncated") && Catch::Contains("33 bytes"));

    CHECK(run_pythia("book").status == 2);
    CHECK(run_pythia("book frobnicate").status == 2);
    CHECK(run_pythia("book probe not/a/fen w - - 0 1").status == 2);
    CHECK(run_pythia("book probe startpos moves e2e5").status == 2);
    CHECK(run_pythia("book build " + dir.file("g.pgn")).status == 2);
    CHECK(run_pythia("book build " + dir.file("g.pgn") + " x.bin --min-games 0").status == 2);
    CHECK(run_pythia("book build " + dir.file("g.pgn") + " x.bin --max-ply ten").status == 2);
    CHECK(run_pythia("book build " + dir.file("g.pgn") + " x.bin --only-white --only-black").status == 2);
    CHECK(run_pythia("book build " + dir.file("g.pgn") + " x.bin --unknown").status == 2);

    Outcome no_pgn = run_pythia("book build " + dir.file("none.pgn") + " " + dir.file("x.bin"));
    CHECK(no_pgn.status == 1);
    CHECK_THAT(no_pgn.output, Catch::Contains("cannot open"));

    // Nothing passes the filter: an error, and no file is written.
    Outcome empty = run_pythia("book build " + dir.file("g.pgn") + " " + dir.file("x.bin") + " --min-games 50");
    CHECK(empty.status == 1);
    CHECK_THAT(empty.output, Catch::Contains("not written"));
    CHECK_FALSE(std::filesystem::exists(dir.file("x.bin")));
}
