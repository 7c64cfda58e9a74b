// The book step of the move decision, through the UCI pipe: OwnBook, BookFile, BookDepth.
#include <catch2/catch.hpp>

#include "uci/engine_process.h"

using pythia::test::EngineProcess;

namespace {

bool contains(const std::vector<std::string>& lines, const std::string& text) {
    for (const auto& l : lines)
        if (l.find(text) != std::string::npos) return true;
    return false;
}

std::vector<std::string> go(EngineProcess& e, const std::string& position) {
    std::vector<std::string> lines;
    e.send(position);
    e.send("go movetime 300");
    REQUIRE(e.read_line_starting("bestmove", 20000, &lines));
    return lines;
}

}  // namespace

TEST_CASE("the opening book answers the start position, OwnBook and BookDepth turn it off", "[uci][book]") {
    EngineProcess e;
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000));

    auto lines = go(e, "position startpos");
    CHECK(contains(lines, "info string book move"));

    e.send("setoption name OwnBook value false");
    lines = go(e, "position startpos");
    CHECK_FALSE(contains(lines, "book move"));
    CHECK(contains(lines, "info depth"));

    e.send("setoption name OwnBook value true");
    e.send("setoption name BookDepth value 0");
    lines = go(e, "position startpos");
    CHECK_FALSE(contains(lines, "book move"));
}

TEST_CASE("a missing book file is reported and the engine plays on", "[uci][book]") {
    EngineProcess e;
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000));
    e.send("setoption name BookFile value /nonexistent/book.bin");
    e.send("isready");
    std::vector<std::string> lines;
    REQUIRE(e.read_line_starting("readyok", 20000, &lines));
    auto played = go(e, "position startpos");
    lines.insert(lines.end(), played.begin(), played.end());
    CHECK(contains(lines, "/nonexistent/book.bin"));
    CHECK_FALSE(contains(lines, "book move"));
    CHECK(contains(lines, "bestmove "));
}
