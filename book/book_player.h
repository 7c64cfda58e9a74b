// The book step of the move decision (book -> tablebase -> search), ready for the UCI layer:
// it keeps the book options and the open book, and answers "which book move, if any?" with
// the text to report as `info string`. Not thread-safe: call it from one thread at a time.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "book/book_settings.h"
#include "book/opening_book.h"

namespace pythia {

struct BookDecision {
    Move move;         // Move::none(): no book move, go on to the tablebases and the search
    std::string info;  // for `info string`; empty when there is nothing to report
};

// The stateless core: the book move for pos under `settings` from an open (or closed) book.
BookDecision decide_book_move(const BookSettings& settings, const OpeningBook& book, const Position& pos,
                              std::mt19937_64& rng);

class BookPlayer {
public:
    // Starts from default_book_settings(). The seed drives the weighted choice.
    explicit BookPlayer(uint64_t seed = std::random_device{}());
    BookPlayer(BookSettings settings, uint64_t seed);

    // Option callbacks. Those that may open the book return its outcome for `info string`
    // ("" when nothing happened): "book <file>: N entries" or why the file was refused.
    std::string set_own_book(bool on);
    std::string set_file(const std::string& path);
    void set_variety(BookVariety variety) { settings_.variety = variety; }
    void set_depth(int moves) { settings_.depth = moves; }

    const BookSettings& settings() const { return settings_; }
    const OpeningBook& book() const { return book_; }

    // The book move to play in pos, if any. Opens the book file first if that has not been
    // tried yet (the outcome of a failed open is then part of `info`).
    BookDecision decide(const Position& pos);

private:
    std::string load();  // opens settings_.file once; returns the message to report

    BookSettings settings_;
    OpeningBook book_;
    bool load_tried_ = false;
    std::mt19937_64 rng_;
};

}  // namespace pythia
