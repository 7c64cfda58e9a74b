// Helpers for the book tests: a private temporary folder, files written from strings or entries.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "book/book_builder.h"
#include "book/pgn_game.h"
#include "book/polyglot_entry.h"
#include "engine/core/notation.h"
#include "test_mode.h"

namespace pythia::test {

// A fresh folder under the system's temporary directory, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() /
                ("pythia-book-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// Writes the entries exactly as given (unsorted if so given), 16 bytes each.
inline void write_raw_entries(const std::string& path, const std::vector<PolyglotEntry>& entries) {
    std::ofstream out(path, std::ios::binary);
    for (const PolyglotEntry& e : entries) {
        uint8_t bytes[POLYGLOT_ENTRY_SIZE];
        write_polyglot_entry(e, bytes);
        out.write(reinterpret_cast<const char*>(bytes), sizeof bytes);
    }
}

inline std::vector<PolyglotEntry> read_raw_entries(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<PolyglotEntry> entries;
    uint8_t bytes[POLYGLOT_ENTRY_SIZE];
    while (in.read(reinterpret_cast<char*>(bytes), sizeof bytes)) entries.push_back(read_polyglot_entry(bytes));
    return entries;
}

// The book that `pythia book build` makes of a PGN text: every readable game, in order.
// `skipped` receives the number of games left out.
inline std::vector<PolyglotEntry> build_from_pgn(const std::string& pgn, BookBuildOptions options = {},
                                                 int* skipped = nullptr) {
    std::istringstream in(pgn);
    PgnReader reader(in);
    BookBuilder builder(options);
    PgnGame game;
    ReplayedGame replayed;
    int bad = 0;
    for (PgnReader::Status s; (s = reader.next(game)) != PgnReader::Status::END;) {
        if (s == PgnReader::Status::GAME && replay_game(game, replayed))
            builder.add_game(replayed.start, replayed.moves, replayed.result);
        else
            ++bad;
    }
    if (skipped) *skipped = bad;
    return builder.entries();
}

// The position after the given UCI moves from the start (or from fen).
inline Position position_after(const std::string& moves, const std::string& fen = "") {
    Position pos;
    if (!fen.empty()) REQUIRE(pos.set_fen(fen));
    std::istringstream in(moves);
    std::string uci;
    while (in >> uci) {
        Move m = parse_uci_move(pos, uci);
        INFO("move " << uci << " in " << pos.fen());
        REQUIRE(m);
        pos.do_move(m);
    }
    return pos;
}

// For tests that need an optional reference (a Debian package): true when the test must be
// skipped. The skip is printed with the marker that ctest reports as "Skipped"; under CI=true
// a missing reference is a failure instead, since scripts/test installs it there.
inline bool skip_without(bool available, const std::string& what) {
    if (available) return false;
    if (in_ci()) FAIL(what << " is missing under CI=true (scripts/test installs it)");
    std::cout << "PYTHIA_TEST_SKIPPED: " << what << " is not installed" << std::endl;
    WARN("skipped: " << what << " is not installed");
    return true;
}

}  // namespace pythia::test
