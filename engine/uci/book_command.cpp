#include "engine/uci/book_command.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>

#include "book/book_builder.h"
#include "book/book_settings.h"
#include "book/opening_book.h"
#include "book/pgn_reader.h"
#include "engine/core/notation.h"

namespace pythia {

namespace {

using Args = std::vector<std::string>;

constexpr const char* USAGE =
    "usage: pythia book probe [FEN|startpos] [moves m1 m2 ...] [--book F]\n"
    "           list the book moves of a position (default: the start) with weights and shares\n"
    "       pythia book build <games.pgn> <out.bin> [--max-ply N] [--min-games N] [--only-white|--only-black]\n"
    "           make a Polyglot book: weight 2 x wins + draws of the mover (as polyglot make-book);\n"
    "           defaults --max-ply 1024 --min-games 1\n";

int usage_error(const std::string& message) {
    std::cerr << "book: " << message << '\n' << USAGE;
    return 2;
}

bool parse_int(const std::string& text, int low, int high, int& value) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && p == text.data() + text.size() && value >= low && value <= high;
}

// pythia book probe [FEN|startpos] [moves ...] [--book F]
int probe_command(const Args& args) {
    std::string book_file = default_book_file(), fen;
    std::vector<std::string> moves;
    bool in_moves = false;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--book") {
            if (++i == args.size()) return usage_error("--book needs a file");
            book_file = args[i];
        } else if (args[i] == "moves") {
            in_moves = true;
        } else if (in_moves) {
            moves.push_back(args[i]);
        } else if (args[i] != "startpos") {
            fen += args[i] + " ";
        }
    }
    Position pos;
    std::string error;
    if (!fen.empty() && !pos.set_fen(fen, &error)) return usage_error("illegal FEN: " + error);
    for (const std::string& text : moves) {
        Move m = parse_uci_move(pos, text);
        if (!m) return usage_error("illegal move '" + text + "' in " + pos.fen());
        pos.do_move(m);
    }
    if (book_file.empty()) {
        std::cerr << "book: no book file given and no default book found (tried";
        for (const std::string& c : default_book_candidates()) std::cerr << ' ' << c;
        std::cerr << ")\n";
        return 1;
    }
    OpeningBook book;
    if (!book.open(book_file, &error)) {
        std::cerr << error << '\n';
        return 1;
    }

    BookProbe probe = book.probe(pos);
    char line[160];
    std::cout << "book " << book.path() << " (" << book.size() << " entries)\n";
    std::snprintf(line, sizeof line, "%016llx", (unsigned long long)pos.key());
    std::cout << "position " << pos.fen() << " (key " << line << ")\n";
    if (probe.moves.empty() && probe.illegal == 0) {
        std::cout << "no book moves\n";
        return 0;
    }
    uint64_t total = probe.total_weight();
    std::cout << "move   san      weight  share\n";
    for (const BookMove& m : probe.moves) {
        std::snprintf(line, sizeof line, "%-6s %-7s %7u %6.2f%%", move_to_uci(m.move).c_str(),
                      move_to_san(pos, m.move).c_str(), unsigned(m.weight), total ? 100.0 * m.weight / total : 0.0);
        std::cout << line << '\n';
    }
    std::cout << probe.moves.size() << " moves, total weight " << total << '\n';
    if (probe.illegal > 0) {
        std::cout << probe.illegal << " entries with moves illegal here, skipped:";
        for (const PolyglotEntry& e : book.entries(pos.key()))
            if (!decode_polyglot_move(pos, e.move)) {
                std::snprintf(line, sizeof line, " 0x%04x", unsigned(e.move));
                std::cout << line;
            }
        std::cout << '\n';
    }
    return 0;
}

// pythia book build <games.pgn> <out.bin> [--max-ply N] [--min-games N] [--only-white|--only-black]
int build_command(const Args& args) {
    BookBuildOptions options;
    std::vector<std::string> files;
    bool only_white = false, only_black = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--max-ply" || a == "--min-games") {
            if (i + 1 == args.size()) return usage_error(a + " needs a number");
            int& target = a == "--max-ply" ? options.max_ply : options.min_games;
            if (!parse_int(args[++i], a == "--max-ply" ? 0 : 1, 1'000'000, target))
                return usage_error(a + " must be a number from " + (a == "--max-ply" ? "0" : "1") +
                                   " to 1000000, not '" + args[i] + "'");
        } else if (a == "--only-white") {
            only_white = true;
        } else if (a == "--only-black") {
            only_black = true;
        } else if (a.starts_with("--")) {
            return usage_error("unknown option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    if (files.size() != 2) return usage_error("build needs a PGN file and an output file");
    if (only_white && only_black) return usage_error("--only-white and --only-black exclude each other");
    options.white_moves = !only_black;
    options.black_moves = !only_white;

    std::ifstream in(files[0], std::ios::binary);
    if (!in) {
        std::cerr << "book: cannot open '" << files[0] << "'\n";
        return 1;
    }
    PgnReader reader(in);
    BookBuilder builder(options);
    PgnGame game;
    ReplayedGame replayed;
    std::string error;
    int read = 0, skipped = 0;
    for (PgnReader::Status status; (status = reader.next(game, &error)) != PgnReader::Status::END;) {
        ++read;
        if (status == PgnReader::Status::ERROR) {
            spdlog::warn("skipped {}", error);
            ++skipped;
        } else if (!replay_game(game, replayed, &error)) {
            spdlog::warn("skipped {}: {}", game.description(), error);
            ++skipped;
        } else {
            builder.add_game(replayed.start, replayed.moves, replayed.result);
        }
        if (read % 100'000 == 0) spdlog::info("{} games ...", read);
    }
    if (in.bad()) {
        std::cerr << "book: error reading '" << files[0] << "'\n";
        return 1;
    }

    std::vector<PolyglotEntry> entries = builder.entries();
    size_t positions = 0;
    for (size_t i = 0; i < entries.size(); ++i) positions += i == 0 || entries[i].key != entries[i - 1].key;
    std::cout << "games: " << read << " read, " << builder.games() << " used, " << skipped << " skipped\n";
    if (entries.empty()) {
        std::cerr << "book: no move passed the filters (--min-games " << options.min_games << ", --max-ply "
                  << options.max_ply << "); '" << files[1] << "' not written\n";
        return 1;
    }
    if (!write_polyglot_book(files[1], entries, &error)) {
        std::cerr << "book: " << error << '\n';
        return 1;
    }
    std::cout << "entries: " << entries.size() << " in " << positions << " positions, written to " << files[1] << '\n';
    return 0;
}

}  // namespace

int book_command(const Args& args) {
    if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
        std::cerr << USAGE;
        return args.empty() ? 2 : 0;
    }
    Args rest(args.begin() + 1, args.end());
    if (args[0] == "probe") return probe_command(rest);
    if (args[0] == "build") return build_command(rest);
    return usage_error("unknown book command '" + args[0] + "'");
}

}  // namespace pythia
