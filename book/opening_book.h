// Reading a Polyglot opening book: the file is memory-mapped, a position's entries are found by
// binary search on its key, and only moves that are legal in the position are ever offered.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "book/polyglot_entry.h"
#include "engine/core/mapped_file.h"
#include "engine/core/position.h"

namespace pythia {

// How a move is chosen among a position's book moves.
enum class BookVariety {
    WEIGHTED,  // at random, each move with probability weight / sum of weights (as Polyglot)
    BEST,      // always the heaviest move (the first of equal weights in file order)
};

struct BookMove {
    Move move;
    uint16_t weight = 0;
};

// Everything a book says about one position.
struct BookProbe {
    std::vector<BookMove> moves;  // legal moves, in file order
    int illegal = 0;              // entries skipped because their move is not legal here
    uint64_t total_weight() const;
};

struct BookChoice {
    Move move;                  // Move::none() when the book has no playable move
    uint16_t weight = 0;        // weight of the chosen move
    uint64_t total_weight = 0;  // sum of the weights of the playable moves
    int candidates = 0;         // number of playable moves (weight > 0)
    explicit operator bool() const { return bool(move); }
};

class OpeningBook {
public:
    // Opens and checks a book file. A missing or empty file, a size that is not a multiple of
    // 16 bytes (truncated) and entries not sorted by key are refused: open returns false, the
    // book is closed (any book opened before is dropped) and `error` names the problem.
    bool open(const std::string& path, std::string* error = nullptr);
    void close();

    bool is_open() const { return file_.is_open(); }
    const std::string& path() const { return path_; }
    size_t size() const { return file_.size() / POLYGLOT_ENTRY_SIZE; }  // entries in the file

    // The stored entries of a key, in file order (nothing for the header key 0).
    std::vector<PolyglotEntry> entries(Key key) const;
    // The position's legal book moves; entries whose move is illegal here are counted, not kept.
    BookProbe probe(const Position& pos) const;
    // A move to play, or a choice holding Move::none() when no legal move of positive weight is
    // in the book. Never returns an illegal move.
    BookChoice choose(const Position& pos, BookVariety variety, std::mt19937_64& rng) const;

private:
    PolyglotEntry entry(size_t i) const { return read_polyglot_entry(file_.data() + i * POLYGLOT_ENTRY_SIZE); }
    Key key_at(size_t i) const;
    size_t lower_bound(Key key) const;  // first entry whose key is not below `key`

    MappedFile file_;
    std::string path_;
};

}  // namespace pythia
