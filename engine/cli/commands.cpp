// The table of `pythia`'s commands and the dispatcher: usage text lives here only.
#include <charconv>
#include <iostream>
#include <string>
#include <string_view>

#include "engine/cli/command.h"
#include "engine/core/version.h"
#include "engine/uci/logging.h"
#include "engine/uci/uci.h"

namespace pythia::cli {

namespace {

struct Command {
    std::string_view group;  // "tb", "book", or "" for a verb of its own
    std::string_view name;
    std::string_view usage;    // the arguments after the name
    std::string_view summary;  // one or more lines, each printed under the usage
    int (*run)(const Args&);
};

// Every command, in the order `pythia help` lists them.
constexpr Command COMMANDS[] = {
    {"", "perft", "<depth> [FEN] [--divide] [--chess960]",
     "leaf count of the legal move tree (FEN quoted or as separate fields);\n"
     "last line \"Nodes searched: N\"; --divide: per move first;\n"
     "--chess960: X-FEN or Shredder-FEN castling, moves as king takes rook",
     perft_command},
    {"", "bench", "[depth]",
     "the bench positions searched to a fixed depth (default 13), one thread,\n"
     "a cleared table each; last line \"<N> nodes <M> nps\"",
     bench_command},
    {"book", "probe", "[FEN|startpos] [moves m1 m2 ...] [--book F]",
     "the book moves of a position with weights and shares (default book: book/README.md)", book_probe_command},
    {"book", "build", "<games.pgn> <out.bin> [--max-ply N] [--min-games N] [--only-white|--only-black]",
     "a Polyglot book from PGN games, weighted as polyglot make-book\n"
     "(2 x wins + draws of the mover; defaults --max-ply 1024 --min-games 1)",
     book_build_command},
    {"tb", "generate", "<MATERIAL...|--all N> [--dir D] [--threads T] [--memory GiB] [--dry-run]",
     "generate tables and every table they depend on into D (default tablebases/),\n"
     "each checked as it is written; tables present and valid are skipped, so a\n"
     "stopped run resumes. Progress on stderr; --memory: what the run may hold (default\n"
     "two thirds of the machine's; tables that do not fit are spilled to scratch files);\n"
     "--dry-run: only list the tables it would generate, in order, each with its\n"
     "positions per side to move and the tables it would load back, then the most\n"
     "its spill files would hold at once",
     tb_generate_command},
    {"tb", "verify", "[MATERIAL...|--all] [--dir D] [--threads T] [--memory GiB] [--wdl-only]",
     "recompute every stored DTM and DTZ from its moves and check the WDL file against\n"
     "the DTZ (--wdl-only: that check alone); every stored table without a material,\n"
     "in dependency order; each table read is kept for the later ones that need it,\n"
     "within --memory (default two thirds of the machine's)",
     tb_verify_command},
    {"tb", "info", "[MATERIAL...] [--dir D]",
     "positions, outcomes, longest DTM and DTZ with an example, sizes of stored tables", tb_info_command},
    {"tb", "probe", "[--dir D] [--syzygy S] [--json] [FEN]",
     "WDL, DTZ50 and DTM of a position and of every legal move (one FEN per line\n"
     "from stdin when none is given), saying which tables answered; --syzygy S:\n"
     "Syzygy files answer (WDL and DTZ50) what Pythia's tables do not hold; --json:\n"
     "one line each in the lichess tablebase API's JSON with the FEN first, the\n"
     "halfmove clock counted (engine/server/README.md)",
     tb_probe_command},
    {"tb", "serve",
     "[--dir D] [--syzygy S] [--bind HOST:PORT] [--threads N] [--max-connections N] [--max-per-address N] "
     "[--request-timeout S] [--idle-timeout S]",
     "the tables over HTTP (default 127.0.0.1:9000, two threads per core, at least 4):\n"
     "the explorer page at /, the lichess tablebase API at /standard?fen=... and\n"
     "/standard/mainline?fen=..., what the tables cover at /tables; --syzygy S: Syzygy\n"
     "files answer (WDL, DTZ50) what Pythia's tables do not hold; prints its URL. Limits\n"
     "(defaults for a public address): 4096 connections, 128 per client address, a\n"
     "request whole within 10 s (else 408), idle connections closed after 30 s",
     tb_serve_command},
    {"", "datagen",
     "--out FILE (--games N | --positions N) [--nodes N | --depth D] [--threads T] [--seed S]\n"
     "        [--evalfile NET|<hand-written>] [--tablebases DIR[:DIR...]]",
     "self-play training data for the network: quiet positions with the search score and\n"
     "the game result, 32 bytes each, appended to FILE (at N nodes a move, default 5000, or\n"
     "depth D); a game that reaches Pythia's tables ends with their result; --games and\n"
     "--positions count what FILE holds, so the same command resumes a run",
     datagen_command},
};

std::string full_name(const Command& c) {
    return c.group.empty() ? std::string(c.name) : std::string(c.group) + " " + std::string(c.name);
}

// "pythia tb probe [--dir D] ..." and its summary, indented below it.
void print_usage(std::ostream& out, const Command& c) {
    out << "  pythia " << full_name(c) << ' ' << c.usage << '\n';
    std::string_view s = c.summary;
    while (!s.empty()) {
        const size_t end = s.find('\n');
        out << "      " << s.substr(0, end) << '\n';
        s = end == std::string_view::npos ? std::string_view() : s.substr(end + 1);
    }
}

void print_help(std::ostream& out, std::string_view group = {}) {
    if (group.empty()) {
        out << "Pythia, a UCI chess engine with its own endgame tablebases.\n\n"
               "usage:\n"
               "  pythia\n"
               "      the UCI loop (what a GUI starts); also: d, eval, bench [depth], go perft N\n"
               "  pythia help | --help\n"
               "      this list; every command also takes --help\n"
               "  pythia --version\n"
               "      the version: \""
            << engine_name() << "\"\n";
    } else {
        out << "usage:\n";
    }
    for (const Command& c : COMMANDS)
        if (group.empty() || c.group == group) print_usage(out, c);
    if (group.empty()) out << "\nexit status: 0 done, 1 the work failed, 2 a usage error\n";
}

bool is_help(const std::string& a) { return a == "--help" || a == "-h" || a == "help"; }

int run(const Command& c, const Args& args) {
    for (const std::string& a : args)
        if (a == "--help" || a == "-h") {
            std::cout << "usage:\n";
            print_usage(std::cout, c);
            return EXIT_OK;
        }
    try {
        return c.run(args);
    } catch (const UsageError& e) {
        std::cerr << "pythia " << full_name(c) << ": " << e.what() << "\nusage:\n";
        print_usage(std::cerr, c);
        return EXIT_USAGE;
    }
}

}  // namespace

int parse_number(const std::string& what, const std::string& text, int lo, int hi) {
    int value = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || p != text.data() + text.size() || value < lo || value > hi)
        throw UsageError(what + " must be a number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                         ", not '" + text + "'");
    return value;
}

std::vector<std::string> command_names() {
    std::vector<std::string> names;
    for (const Command& c : COMMANDS) names.push_back(full_name(c));
    return names;
}

int run_command_line(int argc, char** argv) {
    init_logging();
    std::ios::sync_with_stdio(false);
    if (argc < 2) {
        UciEngine engine(std::cout);
        engine.loop(std::cin);
        return EXIT_OK;
    }
    const Args args(argv + 1, argv + argc);
    if (is_help(args[0])) {
        print_help(std::cout);
        return EXIT_OK;
    }
    if (args[0] == "--version" || args[0] == "version") {
        std::cout << engine_name() << '\n';
        return EXIT_OK;
    }
    bool known_group = false;
    for (const Command& c : COMMANDS) {
        if (c.group.empty() && args[0] == c.name) return run(c, Args(args.begin() + 1, args.end()));
        if (!c.group.empty() && args[0] == c.group) {
            known_group = true;
            if (args.size() > 1 && args[1] == c.name) return run(c, Args(args.begin() + 2, args.end()));
        }
    }
    if (known_group) {
        if (args.size() > 1 && is_help(args[1])) {
            print_help(std::cout, args[0]);
            return EXIT_OK;
        }
        std::cerr << "pythia " << args[0] << ": "
                  << (args.size() < 2 ? "which command?" : "unknown command '" + args[1] + "'") << '\n';
        print_help(std::cerr, args[0]);
        return EXIT_USAGE;
    }
    std::cerr << "pythia: unknown command '" << args[0] << "' (pythia help lists the commands)\n";
    return EXIT_USAGE;
}

}  // namespace pythia::cli
