#include "book/opening_book.h"

namespace pythia {

uint64_t BookProbe::total_weight() const {
    uint64_t sum = 0;
    for (const BookMove& m : moves) sum += m.weight;
    return sum;
}

bool OpeningBook::open(const std::string& path, std::string* error) {
    close();
    MappedFile file;
    std::string why;
    if (!file.open(path, &why)) {
        if (error) *error = "book refused: '" + path + "': " + why;
        return false;
    }
    if (file.size() % POLYGLOT_ENTRY_SIZE != 0) {
        if (error)
            *error = "book refused: '" + path + "' is truncated or not a Polyglot book (" +
                     std::to_string(file.size()) + " bytes, not a multiple of 16)";
        return false;
    }
    // Binary search needs sorted keys; one pass over the file proves it.
    size_t n = file.size() / POLYGLOT_ENTRY_SIZE;
    Key previous = 0;
    for (size_t i = 0; i < n; ++i) {
        Key key = read_polyglot_entry(file.data() + i * POLYGLOT_ENTRY_SIZE).key;
        if (key < previous) {
            if (error)
                *error = "book refused: '" + path + "' is not sorted by key (entry " + std::to_string(i) + " of " +
                         std::to_string(n) + " is out of order), so it is not a Polyglot book";
            return false;
        }
        previous = key;
    }
    file_ = std::move(file);
    path_ = path;
    return true;
}

void OpeningBook::close() {
    file_.close();
    path_.clear();
}

Key OpeningBook::key_at(size_t i) const { return entry(i).key; }

size_t OpeningBook::lower_bound(Key key) const {
    size_t lo = 0, hi = size();
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_at(mid) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

std::vector<PolyglotEntry> OpeningBook::entries(Key key) const {
    std::vector<PolyglotEntry> result;
    if (!is_open() || key == POLYGLOT_HEADER_KEY) return result;
    for (size_t i = lower_bound(key); i < size(); ++i) {
        PolyglotEntry e = entry(i);
        if (e.key != key) break;
        result.push_back(e);
    }
    return result;
}

BookProbe OpeningBook::probe(const Position& pos) const {
    BookProbe probe;
    for (const PolyglotEntry& e : entries(pos.key())) {
        Move m = decode_polyglot_move(pos, e.move);
        if (m)
            probe.moves.push_back({m, e.weight});
        else
            ++probe.illegal;
    }
    return probe;
}

BookChoice OpeningBook::choose(const Position& pos, BookVariety variety, std::mt19937_64& rng) const {
    BookChoice choice;
    BookProbe probe = this->probe(pos);
    for (const BookMove& m : probe.moves) {
        if (m.weight == 0) continue;  // Polyglot never plays a move of weight 0
        ++choice.candidates;
        choice.total_weight += m.weight;
        if (variety == BookVariety::BEST && m.weight > choice.weight) {
            choice.move = m.move;
            choice.weight = m.weight;
        }
    }
    if (variety == BookVariety::WEIGHTED && choice.total_weight > 0) {
        uint64_t r = std::uniform_int_distribution<uint64_t>(0, choice.total_weight - 1)(rng);
        for (const BookMove& m : probe.moves) {
            if (r < m.weight) {
                choice.move = m.move;
                choice.weight = m.weight;
                break;
            }
            r -= m.weight;
        }
    }
    return choice;
}

}  // namespace pythia
