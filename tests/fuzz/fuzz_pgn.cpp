// libFuzzer target: the PGN reader and the book builder's use of it. Any text is read game by
// game (a malformed game is an error naming it, then reading goes on); every game read is
// replayed (its moves are legal or it is refused) and counted into a book, as `book build`
// does. Nothing may crash, hang or read out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "book/book_builder.h"
#include "book/pgn_game.h"
#include "book/pgn_reader.h"
#include "engine/core/movegen.h"

using namespace pythia;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    PgnReader reader(in);
    BookBuilder builder;
    PgnGame game;
    std::string error;
    for (int n = 0; n < 10000; ++n) {
        game = PgnGame();
        error.clear();
        const PgnReader::Status status = reader.next(game, &error);
        if (status == PgnReader::Status::END) break;
        if (status == PgnReader::Status::ERROR) {
            if (error.empty()) std::abort();  // a refusal always says why
            continue;
        }
        (void)game.description();
        ReplayedGame replayed;
        std::string replay_error;
        if (!replay_game(game, replayed, &replay_error)) {
            if (replay_error.empty()) std::abort();
            continue;
        }
        // The replayed moves are legal one after the other.
        Position pos = replayed.start;
        for (Move m : replayed.moves) {
            if (!is_legal(pos, m)) std::abort();
            pos.do_move(m);
        }
        builder.add_game(replayed.start, replayed.moves, replayed.result);
    }
    const auto entries = builder.entries();
    for (size_t i = 1; i < entries.size(); ++i)
        if (entries[i - 1].key > entries[i].key) std::abort();  // sorted by key
    return 0;
}
