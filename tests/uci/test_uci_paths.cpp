// The engine finds its book and tables relative to its own binary (engine/core/data_paths.h),
// so that a copied binary or a moved checkout keeps them, and it tells the GUI at `isready`
// what it found or missed: a GUI shows `info string` lines, never stderr.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "book/book_settings.h"
#include "test_mode.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;
namespace fs = std::filesystem;

namespace {

bool contains(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& l : lines)
        if (l.find(text) != std::string::npos) return true;
    return false;
}

// A fresh folder holding a copy of the binary, nothing else.
fs::path copied_binary(const std::string& tag) {
    const fs::path dir = fs::temp_directory_path() / ("pythia-paths-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(PYTHIA_BINARY, dir / "pythia");
    fs::permissions(dir / "pythia", fs::perms::owner_all, fs::perm_options::add);
    return dir;
}

// uci + isready; the lines up to readyok.
std::vector<std::string> handshake(EngineProcess& e) {
    std::vector<std::string> lines;
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000, &lines));
    e.send("isready");
    REQUIRE(e.read_line_starting("readyok", 20000, &lines));
    return lines;
}

}  // namespace

TEST_CASE("a copied binary uses the book and tables beside it", "[uci][paths]") {
    if (!fs::is_regular_file(fs::path(PYTHIA_DEFAULT_TB_DIR) / "KQvK.pytw")) {
        if (pythia::test::in_ci()) FAIL("no tables in " PYTHIA_DEFAULT_TB_DIR);
        WARN("skipped: no tables in " PYTHIA_DEFAULT_TB_DIR " (scripts/test makes them)");
        return;
    }
    const fs::path dir = copied_binary("beside");
    fs::create_directories(dir / "book");
    fs::copy_file(PYTHIA_BUILD_BOOK, dir / "book" / "pythia.bin");
    fs::create_directories(dir / "tablebases");
    for (const char* f : {"KQvK.pytw", "KQvK.pytd"})
        fs::copy_file(fs::path(PYTHIA_DEFAULT_TB_DIR) / f, dir / "tablebases" / f);
    {
        EngineProcess e((dir / "pythia").string(), {});
        const std::vector<std::string> lines = handshake(e);
        CHECK(contains(lines, "option name TablebasePath type string default " + (dir / "tablebases").string()));
        CHECK(contains(lines, "option name BookFile type string default " + (dir / "book" / "pythia.bin").string()));
        CHECK(contains(lines, "info string tablebases: 1 WDL and 1 DTM/DTZ tables, up to 3 pieces"));

        // The tables are used: KQvK is decided at the root.
        std::vector<std::string> played;
        e.send("position fen 8/8/8/4k3/8/8/8/KQ6 w - - 0 1");
        e.send("go depth 3");
        REQUIRE(e.read_line_starting("bestmove", 20000, &played));
        CHECK(contains(played, "info string tablebase win"));
        // And the book: the start position is answered from it.
        played.clear();
        e.send("position startpos");
        e.send("go depth 3");
        REQUIRE(e.read_line_starting("bestmove", 20000, &played));
        CHECK(contains(played, "info string book move"));
        e.send("quit");
        CHECK(e.wait_exit(10000) == 0);
    }
    fs::remove_all(dir);
}

TEST_CASE("a binary with nothing beside it says at isready what it did not find, and plays", "[uci][paths]") {
    const fs::path dir = copied_binary("alone");
    {
        EngineProcess e((dir / "pythia").string(), {});
        const std::vector<std::string> lines = handshake(e);
        CHECK(contains(lines, "info string tablebase folder '" + (dir / "tablebases").string() + "' does not exist"));
        // The book: Debian's gnuchess book when it is installed, else a word that there is none.
        if (fs::is_regular_file(std::string(DEBIAN_BOOK_FILE)))
            CHECK(contains(lines, "option name BookFile type string default " + std::string(DEBIAN_BOOK_FILE)));
        else
            CHECK(contains(lines, "info string book: none found"));
        // Said once, not at every isready.
        e.send("isready");
        std::vector<std::string> again;
        REQUIRE(e.read_line_starting("readyok", 20000, &again));
        CHECK_FALSE(contains(again, "does not exist"));

        std::vector<std::string> played;
        e.send("position startpos moves e2e4 e7e5 g1f3");
        e.send("go depth 4");
        REQUIRE(e.read_line_starting("bestmove", 20000, &played));
        e.send("quit");
        CHECK(e.wait_exit(10000) == 0);
    }
    fs::remove_all(dir);
}
