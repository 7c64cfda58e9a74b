#include "book/book_player.h"

#include <cstdio>

#include "engine/core/notation.h"

namespace pythia {

namespace {

bool names_no_file(const std::string& path) { return path.empty() || path == "<empty>"; }

}  // namespace

BookDecision decide_book_move(const BookSettings& settings, const OpeningBook& book, const Position& pos,
                              std::mt19937_64& rng) {
    BookDecision d;
    if (!settings.own_book || !book.is_open() || pos.fullmove_number() > settings.depth) return d;
    BookChoice choice = book.choose(pos, settings.variety, rng);
    if (!choice) {
        BookProbe probe = book.probe(pos);
        if (probe.illegal > 0)
            d.info = "book: " + std::to_string(probe.illegal) + " entries of this position hold illegal moves; ignored";
        return d;
    }
    char percent[16];
    std::snprintf(percent, sizeof percent, "%.1f%%", 100.0 * choice.weight / double(choice.total_weight));
    d.move = choice.move;
    d.info = "book move " + move_to_uci(choice.move) + " (weight " + std::to_string(choice.weight) + " of " +
             std::to_string(choice.total_weight) + ", " + percent + ", " + std::to_string(choice.candidates) +
             " book moves, " + std::string(book_variety_name(settings.variety)) + ")";
    return d;
}

BookPlayer::BookPlayer(uint64_t seed) : BookPlayer(default_book_settings(), seed) {}

BookPlayer::BookPlayer(BookSettings settings, uint64_t seed) : settings_(std::move(settings)), rng_(seed) {}

std::string BookPlayer::set_own_book(bool on) {
    settings_.own_book = on;
    return on && !load_tried_ ? load() : "";
}

std::string BookPlayer::set_file(const std::string& path) {
    settings_.file = path;
    load_tried_ = false;
    book_.close();
    return settings_.own_book ? load() : "";
}

std::string BookPlayer::load() {
    load_tried_ = true;
    book_.close();
    if (names_no_file(settings_.file)) return "";
    std::string error;
    if (!book_.open(settings_.file, &error)) return error + "; playing without a book";
    return "book " + settings_.file + ": " + std::to_string(book_.size()) + " entries";
}

BookDecision BookPlayer::decide(const Position& pos) {
    std::string opened;
    if (settings_.own_book && !load_tried_) opened = load();
    BookDecision d = decide_book_move(settings_, book_, pos, rng_);
    if (!opened.empty() && !book_.is_open()) d.info = opened + (d.info.empty() ? "" : "; " + d.info);
    return d;
}

}  // namespace pythia
