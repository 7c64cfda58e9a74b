// `pythia book probe [FEN|startpos] [moves ...] [--book F]`: a position's book moves.
#include <cstdio>
#include <iostream>

#include "book/book_settings.h"
#include "book/opening_book.h"
#include "engine/cli/command.h"
#include "engine/core/notation.h"

namespace pythia::cli {

// pythia book probe [FEN|startpos] [moves ...] [--book F]
int book_probe_command(const Args& args) {
    std::string book_file = default_book_file(), fen;
    std::vector<std::string> moves;
    bool in_moves = false;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--book") {
            if (++i == args.size()) throw UsageError("--book needs a file");
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
    if (!fen.empty() && !pos.set_fen(fen, &error)) throw UsageError("illegal FEN: " + error);
    for (const std::string& text : moves) {
        Move m = parse_uci_move(pos, text);
        if (!m) throw UsageError("illegal move '" + text + "' in " + pos.fen());
        pos.do_move(m);
    }
    if (book_file.empty()) {
        std::cerr << "pythia book: no book file given and no default book found (tried";
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

}  // namespace pythia::cli
