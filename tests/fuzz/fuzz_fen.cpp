// libFuzzer target: the FEN parser. Any text is either refused (with a reason, the position
// unchanged) or accepted; an accepted position must print a FEN that parses back to itself
// and support move generation, make/unmake and the draw checks without tripping a sanitizer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/position.h"

using namespace pythia;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    Position pos;
    const std::string before = pos.fen();
    std::string error;
    if (!pos.set_fen(text, &error)) {
        if (error.empty() || pos.fen() != before) std::abort();  // refused: a reason, nothing changed
        return 0;
    }
    // Accepted: the printed FEN is a fixed point of parse + print.
    const std::string fen = pos.fen();
    Position again;
    if (!again.set_fen(fen) || again.fen() != fen || again.key() != pos.key()) std::abort();

    // Every legal move can be made, printed, parsed back and unmade.
    const Key key = pos.key();
    for (Move m : MoveList(pos)) {
        const std::string uci = move_to_uci(m);
        if (parse_uci_move(pos, uci) != m) std::abort();
        (void)move_to_san(pos, m);
        pos.do_move(m);
        (void)MoveList(pos).size();
        (void)pos.is_draw(1);
        pos.undo_move();
    }
    if (pos.key() != key || pos.fen() != fen) std::abort();
    return 0;
}
