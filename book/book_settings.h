// The book's UCI options (names, defaults, ranges) and where the default book file is found.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "book/opening_book.h"

namespace pythia {

// UCI option names. Types and ranges are in book/README.md ("UCI options").
constexpr std::string_view OWN_BOOK_OPTION = "OwnBook";          // check
constexpr std::string_view BOOK_FILE_OPTION = "BookFile";        // string
constexpr std::string_view BOOK_VARIETY_OPTION = "BookVariety";  // combo Weighted | Best
constexpr std::string_view BOOK_DEPTH_OPTION = "BookDepth";      // spin

constexpr bool OWN_BOOK_DEFAULT = true;
constexpr int BOOK_DEPTH_DEFAULT = 255;  // in moves of the game (fullmove numbers)
constexpr int BOOK_DEPTH_MIN = 0;        // 0: the book is never used
constexpr int BOOK_DEPTH_MAX = 1000;

// Debian's gnuchess-book package.
constexpr std::string_view DEBIAN_BOOK_FILE = "/usr/share/games/gnuchess/book.bin";

struct BookSettings {
    bool own_book = OWN_BOOK_DEFAULT;
    std::string file;  // "" (or "<empty>", as GUIs send an empty string): no book
    BookVariety variety = BookVariety::WEIGHTED;
    int depth = BOOK_DEPTH_DEFAULT;  // use the book while the game's fullmove number is <= depth
};

// Where a default book may be, in order of preference: the book built with Pythia, beside the
// binary in `exe_dir` (book/pythia.bin, made from book/openings.pgn; engine/core/data_paths.h),
// and Debian's gnuchess book. Without an argument, for the running binary.
std::vector<std::string> default_book_candidates(const std::filesystem::path& exe_dir);
std::vector<std::string> default_book_candidates();
// The first candidate that exists as a file, or "" when there is none.
std::string default_book_file();
// Settings with every default, the file resolved as above.
BookSettings default_book_settings();

// "Weighted" or "Best" (any case); nullopt for anything else.
std::optional<BookVariety> parse_book_variety(std::string_view text);
std::string_view book_variety_name(BookVariety variety);

}  // namespace pythia
