#include "engine/uci/cli.h"

#include <chrono>
#include <charconv>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/core/notation.h"
#include "engine/core/perft.h"
#include "engine/uci/book_command.h"
#include "engine/uci/bench.h"
#include "engine/uci/datagen_command.h"
#include "engine/uci/logging.h"
#include "engine/uci/tb_command.h"
#include "engine/uci/uci.h"

namespace pythia {

namespace {

using Args = std::vector<std::string>;

// pythia perft <depth> [FEN, quoted or as separate fields] [--divide]
int perft_command(const Args& args) {
    bool divide = false;
    std::string fen;
    int depth = -1;
    for (const std::string& a : args) {
        if (a == "--divide") divide = true;
        else if (depth < 0) {
            auto [p, ec] = std::from_chars(a.data(), a.data() + a.size(), depth);
            if (ec != std::errc() || p != a.data() + a.size() || depth < 0 || depth > 20) {
                std::cerr << "perft: depth must be a number from 0 to 20, not '" << a << "'\n";
                return 2;
            }
        } else fen += a + " ";
    }
    if (depth < 0) {
        std::cerr << "usage: pythia perft <depth> [FEN] [--divide]\n";
        return 2;
    }
    Position pos;
    std::string error;
    if (!fen.empty() && !pos.set_fen(fen, &error)) {
        std::cerr << "perft: illegal FEN: " << error << '\n';
        return 2;
    }
    auto start = std::chrono::steady_clock::now();
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
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("perft {} in {:.3f} s, {:.1f} Mnps", depth, seconds, total / std::max(seconds, 1e-9) / 1e6);
    std::cout << "Nodes searched: " << total << std::endl;
    return 0;
}

// pythia bench [depth]
int bench_command(const Args& args) {
    int depth = BENCH_DEFAULT_DEPTH;
    if (args.size() > 1) {
        std::cerr << "usage: pythia bench [depth]\n";
        return 2;
    }
    if (!args.empty()) {
        const std::string& a = args[0];
        auto [p, ec] = std::from_chars(a.data(), a.data() + a.size(), depth);
        if (ec != std::errc() || p != a.data() + a.size() || depth < 1 || depth > 64) {
            std::cerr << "bench: depth must be a number from 1 to 64, not '" << a << "'\n";
            return 2;
        }
    }
    run_bench(depth, std::cout);
    return 0;
}

struct Subcommand {
    const char* name;
    const char* usage;
    std::function<int(const Args&)> run;
};

const std::vector<Subcommand>& subcommands() {
    static const std::vector<Subcommand> table = {
        {"perft", "perft <depth> [FEN] [--divide]   count the leaves of the legal move tree", perft_command},
        {"book", "book probe|build ...               opening book: a position's moves; a book from PGN", book_command},
        {"bench", "bench [depth]                    search the bench positions; last line '<N> nodes <M> nps'",
         bench_command},
        {"tb", "tb generate|verify|info|probe ...  endgame tablebases: make, check, describe, probe", tb_command},
        {"datagen", "datagen --out FILE --games N ...  self-play training data for the network", datagen_command},
    };
    return table;
}

void print_usage() {
    std::cerr << "usage: pythia                 run the UCI loop\n";
    for (const auto& s : subcommands()) std::cerr << "       pythia " << s.usage << '\n';
}

}  // namespace

int run_command_line(int argc, char** argv) {
    init_logging();
    std::ios::sync_with_stdio(false);
    if (argc < 2) {
        UciEngine engine(std::cout);
        engine.loop(std::cin);
        return 0;
    }
    std::string name = argv[1];
    if (name == "-h" || name == "--help" || name == "help") {
        print_usage();
        return 0;
    }
    for (const auto& s : subcommands())
        if (name == s.name) return s.run(Args(argv + 2, argv + argc));
    std::cerr << "pythia: unknown command '" << name << "'\n";
    print_usage();
    return 2;
}

}  // namespace pythia
