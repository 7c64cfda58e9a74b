// `pythia book build <games.pgn> <out.bin> [...]`: a Polyglot book from PGN games.
#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>

#include "book/book_builder.h"
#include "book/pgn_reader.h"
#include "engine/cli/command.h"

namespace pythia::cli {

// pythia book build <games.pgn> <out.bin> [--max-ply N] [--min-games N] [--only-white|--only-black]
int book_build_command(const Args& args) {
    BookBuildOptions options;
    std::vector<std::string> files;
    bool only_white = false, only_black = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--max-ply" || a == "--min-games") {
            if (i + 1 == args.size()) throw UsageError(a + " needs a number");
            int& target = a == "--max-ply" ? options.max_ply : options.min_games;
            target = parse_number(a, args[++i], a == "--max-ply" ? 0 : 1, 1'000'000);
        } else if (a == "--only-white") {
            only_white = true;
        } else if (a == "--only-black") {
            only_black = true;
        } else if (a.starts_with("--")) {
            throw UsageError("unknown option '" + a + "'");
        } else {
            files.push_back(a);
        }
    }
    if (files.size() != 2) throw UsageError("build needs a PGN file and an output file");
    if (only_white && only_black) throw UsageError("--only-white and --only-black exclude each other");
    options.white_moves = !only_black;
    options.black_moves = !only_white;

    std::ifstream in(files[0], std::ios::binary);
    if (!in) {
        std::cerr << "pythia book: cannot open '" << files[0] << "'\n";
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
        std::cerr << "pythia book: error reading '" << files[0] << "'\n";
        return 1;
    }

    std::vector<PolyglotEntry> entries = builder.entries();
    size_t positions = 0;
    for (size_t i = 0; i < entries.size(); ++i) positions += i == 0 || entries[i].key != entries[i - 1].key;
    std::cout << "games: " << read << " read, " << builder.games() << " used, " << skipped << " skipped\n";
    if (entries.empty()) {
        std::cerr << "pythia book: no move passed the filters (--min-games " << options.min_games << ", --max-ply "
                  << options.max_ply << "); '" << files[1] << "' not written\n";
        return 1;
    }
    if (!write_polyglot_book(files[1], entries, &error)) {
        std::cerr << "pythia book: " << error << '\n';
        return 1;
    }
    std::cout << "entries: " << entries.size() << " in " << positions << " positions, written to " << files[1] << '\n';
    return 0;
}

}  // namespace pythia::cli
