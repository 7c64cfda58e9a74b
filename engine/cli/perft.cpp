// `pythia perft <depth> [FEN] [--divide] [--chess960]`: the leaf count of the legal move tree.
#include <algorithm>
#include <chrono>
#include <iostream>

#include <spdlog/spdlog.h>

#include "engine/cli/command.h"
#include "engine/core/notation.h"
#include "engine/core/perft.h"

namespace pythia::cli {

int perft_command(const Args& args) {
    bool divide = false, chess960 = false;
    std::string fen;
    int depth = -1;
    for (const std::string& a : args) {
        if (a == "--divide")
            divide = true;
        else if (a == "--chess960")
            chess960 = true;
        else if (depth < 0)
            depth = parse_number("the depth", a, 0, 20);
        else
            fen += a + " ";
    }
    if (depth < 0) throw UsageError("a depth is needed");
    Position pos;
    std::string error;
    if (!fen.empty() && !pos.set_fen(fen, &error, chess960)) throw UsageError("illegal FEN: " + error);
    const auto start = std::chrono::steady_clock::now();
    uint64_t total = 0;
    if (divide && depth > 0) {
        for (auto [move, nodes] : perft_divide(pos, depth)) {
            std::cout << move_to_uci(move) << ": " << nodes << '\n';
            total += nodes;
        }
        std::cout << '\n';
    } else {
        total = perft(pos, depth);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("perft {} in {:.3f} s, {:.1f} Mnps", depth, seconds, total / std::max(seconds, 1e-9) / 1e6);
    std::cout << "Nodes searched: " << total << std::endl;
    return EXIT_OK;
}

}  // namespace pythia::cli
