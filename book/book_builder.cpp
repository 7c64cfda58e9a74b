#include "book/book_builder.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace pythia {

namespace {

constexpr uint64_t MAX_WEIGHT = 0xFFFF;

// Points of the side to move for the game's result.
uint64_t points_for(GameResult result, Color mover) {
    switch (result) {
        case GameResult::WHITE_WINS:
            return mover == WHITE ? 2 : 0;
        case GameResult::BLACK_WINS:
            return mover == BLACK ? 2 : 0;
        default:
            return 1;  // draw, or unknown: Polyglot counts an unfinished game as a draw
    }
}

}  // namespace

void BookBuilder::add_game(const Position& start, const std::vector<Move>& moves, GameResult result) {
    ++games_;
    Position pos = start;
    size_t plies = std::min(moves.size(), size_t(std::max(options_.max_ply, 0)));
    for (size_t i = 0; i < plies; ++i) {
        Stats& s = stats_[Slot{pos.key(), encode_polyglot_move(moves[i])}];
        s.games += 1;
        s.points += points_for(result, pos.side_to_move());
        s.mover = pos.side_to_move();
        pos.do_move(moves[i]);
    }
}

std::vector<PolyglotEntry> BookBuilder::entries() const {
    struct Kept {
        Key key;
        uint16_t move;
        uint64_t points;
    };
    std::vector<Kept> kept;
    for (const auto& [slot, s] : stats_) {
        if (s.games < uint64_t(std::max(options_.min_games, 1)) || s.points == 0) continue;
        if (!(s.mover == WHITE ? options_.white_moves : options_.black_moves)) continue;
        kept.push_back({slot.key, slot.move, s.points});
    }
    std::sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) {
        if (a.key != b.key) return a.key < b.key;
        if (a.points != b.points) return a.points > b.points;
        return a.move < b.move;
    });

    std::vector<PolyglotEntry> book;
    book.reserve(kept.size());
    for (size_t first = 0; first < kept.size();) {
        size_t last = first;
        while (last < kept.size() && kept[last].key == kept[first].key) ++last;
        uint64_t heaviest = kept[first].points;  // sorted heaviest first
        for (size_t i = first; i < last; ++i) {
            uint64_t w = kept[i].points;
            if (heaviest > MAX_WEIGHT)  // scale the position's moves alike, rounding up
                w = uint64_t((unsigned __int128)w * MAX_WEIGHT / heaviest +
                             ((unsigned __int128)w * MAX_WEIGHT % heaviest != 0));
            book.push_back({kept[i].key, kept[i].move, uint16_t(w), 0});
        }
        first = last;
    }
    return book;
}

bool write_polyglot_book(const std::string& path, const std::vector<PolyglotEntry>& entries, std::string* error) {
    const std::string temp = path + ".tmp";
    auto fail = [&](const std::string& what) {
        if (error) *error = what;
        std::remove(temp.c_str());
        return false;
    };
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return fail("cannot create '" + temp + "': " + std::strerror(errno));
    std::vector<uint8_t> bytes(entries.size() * POLYGLOT_ENTRY_SIZE);
    for (size_t i = 0; i < entries.size(); ++i) write_polyglot_entry(entries[i], &bytes[i * POLYGLOT_ENTRY_SIZE]);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    out.close();
    if (!out) return fail("cannot write '" + temp + "' (disk full?)");
    if (std::rename(temp.c_str(), path.c_str()) != 0)
        return fail("cannot rename '" + temp + "' to '" + path + "': " + std::strerror(errno));
    return true;
}

}  // namespace pythia
