#include "engine/cli/tb_probe_syzygy.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "engine/core/notation.h"

namespace pythia::cli {

namespace {

const char* wdl_name(int wdl) {
    static const char* names[] = {"loss", "blessed loss", "draw", "cursed win", "win"};
    return wdl >= -2 && wdl <= 2 ? names[wdl + 2] : "?";
}

std::string dtz_text(int dtz) {
    if (dtz == 0) return "DTZ50 0";
    return "DTZ50 " + std::to_string(dtz) + (std::abs(dtz) == 1 ? " ply" : " plies");
}

}  // namespace

bool print_syzygy_answer(const tb::SyzygyTables& syzygy, const Position& pos) {
    const std::optional<std::vector<tb::SyzygyRootMove>> moves = syzygy.rank_root_moves(pos);
    if (!moves) return false;
    // The position's own value is its best move's (Fathom values moves, not positions, at the
    // root); a move's DTZ counts the move, the position's does too.
    const auto best = std::max_element(moves->begin(), moves->end(), [](const auto& a, const auto& b) {
        return a.wdl != b.wdl ? a.wdl < b.wdl : (a.wdl > 0 ? a.dtz > b.dtz : a.dtz < b.dtz);
    });
    std::cout << pos.fen() << '\n'
              << (pos.side_to_move() == WHITE ? "White" : "Black") << " to move: " << wdl_name(best->wdl) << ", "
              << dtz_text(best->dtz) << ", DTM unknown (answered by Syzygy)\n";
    const char* groups[] = {"Winning moves", "Drawing moves", "Losing moves"};
    for (int g = 0; g < 3; ++g) {
        bool header = false;
        for (const tb::SyzygyRootMove& m : *moves) {
            const int group = m.wdl > 0 ? 0 : m.wdl == 0 ? 1 : 2;
            if (group != g) continue;
            if (!header) std::cout << groups[g] << ":\n";
            header = true;
            char line[120];
            std::snprintf(line, sizeof line, "  %-8s %-12s %s\n", move_to_san(pos, m.move).c_str(), wdl_name(m.wdl),
                          dtz_text(m.dtz).c_str());
            std::cout << line;
        }
    }
    return true;
}

}  // namespace pythia::cli
