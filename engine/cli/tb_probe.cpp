// `pythia tb probe [--dir D] [--syzygy S] [--json] [FEN]`: a position's WDL, DTZ50 and DTM and every legal
// move with its values, like syzygy-tables.info; --json in the lichess tablebase API's shape. Without a FEN it reads
// one FEN per line from stdin, so that scripts can check many positions in one call.
#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/command.h"
#include "engine/cli/tb_probe_syzygy.h"
#include "engine/core/data_paths.h"
#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/server/lichess_json.h"
#include "tablebase/probe/tablebases.h"

namespace pythia::cli {

namespace {

using namespace pythia::tb;

const char* wdl_name(int wdl) {
    static const char* names[] = {"loss", "blessed loss", "draw", "cursed win", "win"};
    return wdl >= -2 && wdl <= 2 ? names[wdl + 2] : "?";
}

std::string plies(int n) { return std::to_string(n) + (n == 1 ? " ply" : " plies"); }

// "mate in 9 (17 plies)", "mated in 8 (16 plies)", "checkmated", "draw".
std::string dtm_text(const std::optional<Value>& v) {
    if (!v) return "DTM unknown";
    const int d = distance_of(*v);
    if (is_win(*v)) return "mate in " + std::to_string((d + 1) / 2) + " (" + plies(d) + ")";
    if (is_loss(*v)) return d == 0 ? "checkmated" : "mated in " + std::to_string(d / 2) + " (" + plies(d) + ")";
    return "draw";
}

std::string dtz_text(const std::optional<Value>& v) {
    if (!v) return "DTZ50 unknown";
    if (is_draw(*v)) return "DTZ50 0";
    return "DTZ50 " + std::to_string(signed_distance(*v)) + (std::abs(signed_distance(*v)) == 1 ? " ply" : " plies");
}

struct Options {
    std::string dir = default_tablebase_dir().string();
    std::string syzygy;  // --syzygy: Syzygy folders for what the own tables do not hold
    bool json = false;
};

// `--json`: the lichess tablebase API's answer (engine/server/README.md) with the position's
// FEN first, one line per position, from the builder `tb serve` answers with; a FEN that cannot
// be read gets {"fen": ..., "error": ...}. Complete: every DTZ known, and every DTM where
// Pythia's tables answered (Syzygy files hold none).
bool probe_json(const server::TableSources& tables, const std::string& fen_text) {
    Position pos;
    std::string error;
    if (!pos.set_fen(fen_text, &error)) {
        std::cout << server::error_json("illegal FEN: " + error, fen_text) << '\n';
        return false;
    }
    const server::LichessResponse r = server::lichess_response(tables, pos);
    std::cout << server::to_json(r, pos.fen()) << '\n';
    auto complete = [](const server::PositionInfo& p) { return p.dtz && (p.dtm || p.syzygy); };
    bool all = complete(r.pos);
    for (const server::MoveInfo& m : r.moves) all &= complete(m.after);
    return all;
}

// Probes one FEN and prints it; returns false if it could not be answered in full.
bool probe_one(const Tablebases& tbs, const std::string& fen_text, const Options& o) {
    if (o.json) return probe_json({tbs, o.syzygy.empty() ? nullptr : &tb::SyzygyTables::instance()}, fen_text);
    Position pos;
    std::string error;
    if (!pos.set_fen(fen_text, &error))
        error = "illegal FEN: " + error;
    else if (pos.castling_rights())
        error = "the tables hold no positions with castling rights";
    else if (pos.count_all() > std::max(tbs.max_pieces(), 2))
        error = std::to_string(pos.count_all()) + " pieces, the tables hold up to " + std::to_string(tbs.max_pieces());

    std::optional<ProbeResult> root;
    std::optional<std::vector<RootMove>> moves;
    if (error.empty()) {
        root = tbs.probe(pos);
        moves = tbs.rank_root_moves(pos, true);  // every move's successor's DTZ, shown
        if (!root || !moves) error = "no table for this position (or for a position a move leads to)";
    }
    if (!error.empty()) {
        // Syzygy's files, when given, answer what the own tables do not hold (no DTM).
        const tb::SyzygyTables& syzygy = tb::SyzygyTables::instance();
        if (!o.syzygy.empty() && pos.count_all() > 0 && !pos.castling_rights() &&
            pos.count_all() <= syzygy.max_pieces() && print_syzygy_answer(syzygy, pos))
            return true;
        std::cerr << "tb probe: " << fen_text << ": " << error << '\n';
        return false;
    }
    std::cout << pos.fen() << '\n'
              << (pos.side_to_move() == WHITE ? "White" : "Black") << " to move: " << wdl_name(root->wdl) << ", "
              << dtz_text(root->dtz) << ", " << dtm_text(root->dtm) << " (answered by Pythia's tables)\n";
    if (moves->empty()) std::cout << "  no legal moves\n";
    const char* groups[] = {"Winning moves", "Drawing moves", "Losing moves"};
    for (int g = 0; g < 3; ++g) {
        bool header = false;
        for (const RootMove& m : *moves) {
            const int group = m.wdl > 0 ? 0 : m.wdl == 0 ? 1 : 2;
            if (group != g) continue;
            if (!header) std::cout << groups[g] << ":\n";
            header = true;
            char line[160];
            std::snprintf(line, sizeof line, "  %-8s %-12s %-22s %s%s\n", move_to_san(pos, m.move).c_str(),
                          wdl_name(m.wdl), dtz_text(m.dtz).c_str(), dtm_text(m.dtm).c_str(),
                          m.wdl50 != m.wdl ? "  (too late for the 50-move rule)" : "");
            std::cout << line;
        }
    }
    return root->dtz && root->dtm;
}

}  // namespace

int tb_probe_command(const Args& args) {
    Options o;
    std::string fen;
    bool fen_given = false;  // a FEN argument, even an empty one: then stdin is not read
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--dir") {
            if (++i == args.size()) throw UsageError("--dir needs a folder");
            o.dir = args[i];
        } else if (args[i] == "--syzygy") {
            if (++i == args.size()) throw UsageError("--syzygy needs a folder");
            o.syzygy = args[i];
        } else if (args[i] == "--json") {
            o.json = true;
        } else {
            fen += (fen.empty() ? "" : " ") + args[i];
            fen_given = true;
        }
    }
    // `tb probe ''` (a script's empty variable) would otherwise wait for FENs on stdin.
    if (fen_given && fen.find_first_not_of(" \t") == std::string::npos)
        throw UsageError("an empty FEN (give none to read FENs from stdin)");
    Tablebases tbs;
    for (const std::string& message : tbs.set_paths(o.dir)) std::cerr << message << '\n';
    if (!o.syzygy.empty())
        for (const std::string& message : tb::SyzygyTables::instance().set_paths(o.syzygy))
            std::cerr << message << '\n';

    bool ok = true;
    if (!fen.empty()) {
        ok = probe_one(tbs, fen, o);
    } else {
        for (std::string line; std::getline(std::cin, line);) {
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            ok &= probe_one(tbs, line, o);
            std::cout.flush();
        }
    }
    // A refused file was logged when it was opened; name it again where the user looks.
    const auto refused = tbs.refused_files();
    for (const std::string& r : refused) std::cerr << "pythia tb probe: refused " << r << '\n';
    return ok && refused.empty() ? EXIT_OK : EXIT_FAILED;
}

}  // namespace pythia::cli
