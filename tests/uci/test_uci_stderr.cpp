// The engine's stderr at the default log level: empty through a whole game step. GUIs and
// python-chess log each stderr line of an engine (python-chess as a warning), so what the
// engine found at start-up goes to `info string` only; SPDLOG_LEVEL=debug shows it on stderr.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "uci/engine_process.h"

using pythia::test::EngineProcess;
namespace fs = std::filesystem;

namespace {

// uci, isready, a position, a search and quit; the engine's stderr and its `info string` lines.
struct Session {
    std::string err;
    std::vector<std::string> info_strings;
};

Session play_one_move(const std::vector<std::string>& setup = {}) {
    const fs::path err_file = fs::temp_directory_path() / ("pythia-stderr-" + std::to_string(::getpid()));
    std::vector<std::string> lines;
    {
        EngineProcess e(PYTHIA_BINARY, {}, err_file.string());
        e.send("uci");
        REQUIRE(e.read_line_starting("uciok", 20000, &lines));
        for (const std::string& line : setup) e.send(line);
        e.send("isready");
        REQUIRE(e.read_line_starting("readyok", 20000, &lines));
        e.send("position startpos moves e2e4 e7e5");
        e.send("go depth 6");
        REQUIRE(e.read_line_starting("bestmove", 60000, &lines));
        e.send("quit");
        REQUIRE(e.wait_exit(5000) == 0);
    }
    Session s;
    std::stringstream text;
    text << std::ifstream(err_file).rdbuf();
    s.err = text.str();
    fs::remove(err_file);
    for (const std::string& l : lines)
        if (l.rfind("info string", 0) == 0) s.info_strings.push_back(l);
    return s;
}

// SPDLOG_LEVEL for the engines started in this scope (unset: the default level).
struct LogLevel {
    explicit LogLevel(const char* level) {
        if (const char* old = std::getenv("SPDLOG_LEVEL")) saved = old;
        if (level)
            setenv("SPDLOG_LEVEL", level, 1);
        else
            unsetenv("SPDLOG_LEVEL");
    }
    ~LogLevel() {
        if (saved.empty())
            unsetenv("SPDLOG_LEVEL");
        else
            setenv("SPDLOG_LEVEL", saved.c_str(), 1);
    }
    std::string saved;
};

}  // namespace

TEST_CASE("the engine writes nothing on stderr at the default log level", "[uci][stderr]") {
    LogLevel level(nullptr);
    SECTION("with the defaults: what they found is told in info strings only") {
        const Session s = play_one_move();
        CHECK(s.err.empty());
        CHECK_FALSE(s.info_strings.empty());  // the tables and the book it found or missed
    }
    SECTION("with folders that do not exist") {
        const Session s = play_one_move({"setoption name TablebasePath value /nonexistent/pythia-tables",
                                         "setoption name SyzygyPath value /nonexistent/pythia-syzygy"});
        CHECK(s.err.empty());
        bool told = false;
        for (const std::string& l : s.info_strings) told |= l.find("/nonexistent/pythia-tables") != std::string::npos;
        CHECK(told);
    }
}

TEST_CASE("SPDLOG_LEVEL=debug shows the start-up notices on stderr too", "[uci][stderr]") {
    LogLevel level("debug");
    const Session s = play_one_move();
    REQUIRE_FALSE(s.info_strings.empty());
    // The first notice (what the default tables' folder held) is the same text on both.
    const std::string first = s.info_strings.front().substr(std::string("info string ").size());
    CHECK_THAT(s.err, Catch::Contains(first));
}
