// The engine's stderr at the default log level: empty through a whole game step. GUIs and
// python-chess log each stderr line of an engine (python-chess as a warning), so what the
// engine found at start-up goes to `info string` only; SPDLOG_LEVEL=debug shows it on stderr.
// Changing SyzygyPath, whose library once crashed on a second load and then wrote on stderr,
// leaves it empty too (with the Syzygy truth files; skipped without them).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "test_mode.h"
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

TEST_CASE("SyzygyPath set again and again between searches: the engine plays on, stderr stays empty",
          "[uci][stderr][syzygy]") {
    const std::string syzygy_3_4 = PYTHIA_TRUTH_DIR "/syzygy", syzygy_5 = PYTHIA_TRUTH_DIR "/../truth5/syzygy";
    if (!fs::is_regular_file(syzygy_3_4 + "/KRvK.rtbw") || !fs::is_regular_file(syzygy_5 + "/KRPvKR.rtbw")) {
        if (pythia::test::in_ci()) FAIL("no Syzygy truth files in " << syzygy_3_4 << " and " << syzygy_5);
        std::cout << "PYTHIA_TEST_SKIPPED: no Syzygy truth files in " << syzygy_3_4 << std::endl;
        return;
    }
    LogLevel level(nullptr);
    const fs::path err_file = fs::temp_directory_path() / ("pythia-stderr-syzygy-" + std::to_string(::getpid()));
    {
        EngineProcess e(PYTHIA_BINARY, {}, err_file.string());
        e.send("uci");
        REQUIRE(e.read_line_starting("uciok", 20000));
        e.send("setoption name TablebasePath value <empty>");
        // KRvK from the 3-4-piece files, Lucena's position (KRPvKR) from the 5-piece ones, KRvK
        // again after the files were taken away and given back.
        const std::string krk = "position fen 8/8/8/8/8/8/1k6/R6K w - - 0 1";
        const std::string lucena = "position fen 1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1";
        for (const auto& [paths, position, pieces] : std::vector<std::tuple<std::string, std::string, std::string>>{
                 {syzygy_3_4, krk, "up to 4 pieces"},
                 {syzygy_5 + ":" + syzygy_3_4, lucena, "up to 5 pieces"},
                 {"<empty>", "", ""},
                 {syzygy_3_4, krk, "up to 4 pieces"}}) {
            INFO(paths);
            std::vector<std::string> lines;
            e.send("setoption name SyzygyPath value " + paths);
            e.send("isready");
            REQUIRE(e.read_line_starting("readyok", 20000, &lines));
            if (position.empty()) continue;
            bool loaded = false;
            for (const std::string& l : lines) loaded |= l.find(pieces) != std::string::npos;
            CHECK(loaded);
            e.send(position);
            e.send("go depth 3");
            const auto win = e.read_line_starting("info string Syzygy tablebase win", 20000, &lines);
            CHECK(win);
            REQUIRE(e.read_line_starting("bestmove", 20000, &lines));
        }
        e.send("quit");
        REQUIRE(e.wait_exit(5000) == 0);
    }
    std::stringstream text;
    text << std::ifstream(err_file).rdbuf();
    fs::remove(err_file);
    CHECK(text.str().empty());
}
