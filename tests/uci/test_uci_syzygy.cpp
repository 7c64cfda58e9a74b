// Syzygy files (SyzygyPath, read by Debian's libfathom), through the UCI pipe: with Pythia's own
// tables off, Syzygy decides at the root and in the tree; with both, Pythia's own tables keep
// precedence; bad folders and files are named in info strings and the engine plays on. The
// referee is Pythia's own 3-4-piece set (tb::Tablebases in this process), an independent
// generator, so a wrongly wired probe (side, squares, en passant, halfmove clock) shows.
// The Syzygy files are the tests' truth folder (../shared/truth); without it the tests skip.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/random_position.h"
#include "tablebase/probe/tablebases.h"
#include "uci/default_tables.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;
namespace fs = std::filesystem;

namespace {

const std::string SYZYGY_3_4 = PYTHIA_TRUTH_DIR "/syzygy";          // every 3-4-piece table
const std::string SYZYGY_5 = PYTHIA_TRUTH_DIR "/../truth5/syzygy";  // KRPvKR and its promotions

// Skips without the Syzygy files or Pythia's own tables (see REQUIRE_DEFAULT_TABLES).
#define REQUIRE_SYZYGY_AND_TABLES()                         \
    if (!fs::is_regular_file(SYZYGY_3_4 + "/KRvK.rtbw")) {  \
        WARN("skipped: no Syzygy files in " << SYZYGY_3_4); \
        return;                                             \
    }                                                       \
    REQUIRE_DEFAULT_TABLES()

bool contains(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& l : lines)
        if (l.find(text) != std::string::npos) return true;
    return false;
}

void start(EngineProcess& e, const std::string& tablebase_path, const std::string& syzygy_path) {
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 20000));
    e.send("setoption name OwnBook value false");
    e.send("setoption name TablebasePath value " + tablebase_path);
    e.send("setoption name SyzygyPath value " + syzygy_path);
    e.send("isready");
    REQUIRE(e.read_line_starting("readyok", 20000));
}

// Pythia's move in `pos` (reached from `fen` by `moves`), and the lines it sent.
Move pythia_move(EngineProcess& e, const std::string& fen, const std::vector<Move>& moves, const Position& pos,
                 std::vector<std::string>& lines, const std::string& go = "go depth 4") {
    std::string cmd = "position fen " + fen + (moves.empty() ? "" : " moves");
    for (Move m : moves) cmd += " " + move_to_uci(m);
    e.send(cmd);
    e.send(go);
    const auto best = e.read_line_starting("bestmove", 30000, &lines);
    REQUIRE(best);
    const Move m = parse_uci_move(pos, best->substr(9, best->find(' ', 9) - 9));
    INFO(pos.fen() << ": " << *best);
    REQUIRE(m);
    return m;
}

Position position_of(const std::string& fen) {
    Position pos;
    REQUIRE(pos.set_fen(fen));
    return pos;
}

}  // namespace

TEST_CASE("with only Syzygy files Pythia converts wins within the 50-move rule", "[uci][syzygy]") {
    REQUIRE_SYZYGY_AND_TABLES();
    EngineProcess e;
    start(e, "<empty>", SYZYGY_3_4);
    std::mt19937_64 rng(20261127);
    for (const std::string pieces : {"KQk", "KRk", "KBNk", "KQkr", "KPk"}) {
        for (int game = 0; game < 2;) {
            auto start_pos = random_position(rng, pieces, WHITE);
            REQUIRE(start_pos);
            if (tables->probe_wdl(*start_pos) != 2) continue;
            ++game;
            const std::string fen = start_pos->fen();
            INFO(pieces << ": " << fen);
            Position pos = *start_pos;
            std::vector<Move> moves;
            bool mated = false;
            for (int ply = 0; ply < 300 && !mated; ++ply) {
                const auto ranked = tables->rank_root_moves(pos);
                REQUIRE(ranked);
                if (pos.side_to_move() == WHITE) {
                    std::vector<std::string> lines;
                    const Move m = pythia_move(e, fen, moves, pos, lines);
                    if (ply == 0) CHECK(contains(lines, "info string Syzygy tablebase win"));
                    // The move keeps the win, the game's halfmove clock counted (the referee's wdl50).
                    const auto it = std::find_if(ranked->begin(), ranked->end(),
                                                 [&](const tb::RootMove& rm) { return rm.move == m; });
                    REQUIRE(it != ranked->end());
                    CHECK(it->wdl50 == 2);
                    pos.do_move(m);
                    moves.push_back(m);
                } else {
                    // The longest resistance by Pythia's own DTM.
                    REQUIRE(!ranked->empty());
                    pos.do_move(ranked->front().move);
                    moves.push_back(ranked->front().move);
                }
                mated = MoveList(pos).size() == 0 && pos.in_check();
                REQUIRE(!pos.is_fifty_move_draw());
                if (pos.count_all() > 4) break;  // cannot happen: no captures add pieces
            }
            CHECK(mated);
        }
    }
}

TEST_CASE("Pythia's own tables keep precedence, Syzygy answers what they do not hold", "[uci][syzygy]") {
    REQUIRE_SYZYGY_AND_TABLES();
    if (!fs::is_regular_file(SYZYGY_5 + "/KRPvKR.rtbw")) {
        WARN("skipped: no 5-piece Syzygy files in " << SYZYGY_5);
        return;
    }
    EngineProcess e;
    start(e, PYTHIA_DEFAULT_TB_DIR, SYZYGY_3_4 + ":" + SYZYGY_5);
    std::vector<std::string> lines;
    const Position krk = position_of("8/8/8/4k3/8/8/8/KR6 w - - 0 1");
    pythia_move(e, krk.fen(), {}, krk, lines);
    CHECK(contains(lines, "info string tablebase win, mate in"));  // own DTM: the shortest mate
    CHECK_FALSE(contains(lines, "Syzygy tablebase"));

    // KRPvKR: five pieces, beyond the own 3-4-piece set: Syzygy's DTZ decides at the root.
    const Position krpkr = position_of("8/8/4k3/8/2R5/8/3P4/3K3r w - - 0 1");
    lines.clear();
    pythia_move(e, krpkr.fen(), {}, krpkr, lines);
    CHECK(contains(lines, "info string Syzygy tablebase"));

    // Six pieces with a capture into KRPvKR: the search probes Syzygy inside the tree.
    const Position six = position_of("8/8/4k3/8/2R2b2/8/3P4/3K3r w - - 0 1");
    lines.clear();
    pythia_move(e, six.fen(), {}, six, lines, "go depth 8");
    uint64_t tbhits = 0;
    for (const auto& l : lines) {
        const auto at = l.find(" tbhits ");
        if (l.rfind("info depth", 0) == 0 && at != std::string::npos) tbhits = std::stoull(l.substr(at + 8));
    }
    CHECK(tbhits > 0);
    // SyzygyProbeLimit 4 keeps the 5-piece files out, at the root and in the tree.
    e.send("setoption name SyzygyProbeLimit value 4");
    lines.clear();
    pythia_move(e, krpkr.fen(), {}, krpkr, lines);
    CHECK_FALSE(contains(lines, "Syzygy tablebase"));
}

TEST_CASE("missing folders and corrupt Syzygy files are named once, and the engine plays on", "[uci][syzygy]") {
    REQUIRE_SYZYGY_AND_TABLES();
    const fs::path dir = fs::temp_directory_path() / ("pythia-syzygy-bad-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"KRvK.rtbw", "KRvK.rtbz", "KQvK.rtbw", "KQvK.rtbz"})
        fs::copy_file(SYZYGY_3_4 + "/" + f, dir / f);
    fs::resize_file(dir / "KQvK.rtbw", fs::file_size(dir / "KQvK.rtbw") - 100);  // truncated
    {
        std::fstream f(dir / "KQvK.rtbz", std::ios::in | std::ios::out | std::ios::binary);
        f.put('\0');  // its magic number broken
    }
    {
        EngineProcess e;
        e.send("uci");
        REQUIRE(e.read_line_starting("uciok", 20000));
        e.send("setoption name OwnBook value false");
        e.send("setoption name TablebasePath value <empty>");
        std::vector<std::string> lines;
        e.send("setoption name SyzygyPath value " + (dir / "missing").string() + ":" + dir.string());
        e.send("isready");
        REQUIRE(e.read_line_starting("readyok", 20000, &lines));
        CHECK(contains(lines, "info string Syzygy folder '" + (dir / "missing").string() + "' does not exist"));
        CHECK(contains(
            lines, "Syzygy file refused, playing on without it: " + (dir / "KQvK.rtbw").string() + " is truncated"));
        CHECK(contains(lines, "Syzygy file refused, playing on without it: " + (dir / "KQvK.rtbz").string() +
                                  " is not a Syzygy DTZ file"));
        CHECK(contains(lines, "info string Syzygy: 1 WDL and 1 DTZ files, up to 3 pieces"));

        // KRvK is still answered from Syzygy; KQvK falls through to the search, which mates.
        const Position krk = position_of("8/8/8/4k3/8/8/8/KR6 w - - 0 1");
        lines.clear();
        pythia_move(e, krk.fen(), {}, krk, lines);
        CHECK(contains(lines, "info string Syzygy tablebase win"));
        const Position kqk = position_of("8/8/8/4k3/8/8/8/KQ6 w - - 0 1");
        lines.clear();
        pythia_move(e, kqk.fen(), {}, kqk, lines);
        CHECK_FALSE(contains(lines, "tablebase"));

        // An empty SyzygyPath lets go of every file.
        e.send("setoption name SyzygyPath value <empty>");
        lines.clear();
        pythia_move(e, krk.fen(), {}, krk, lines);
        CHECK_FALSE(contains(lines, "Syzygy tablebase"));
        e.send("quit");
        CHECK(e.wait_exit(10000) == 0);
    }
    fs::remove_all(dir);
}

namespace {

// `pythia tb probe ...` run through the shell; its stdout.
std::string run_tb_probe(const std::string& args) {
    const std::string cmd = std::string(PYTHIA_BINARY) + " tb probe " + args + " 2>/dev/null";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    ::pclose(pipe);
    return out;
}

}  // namespace

TEST_CASE("tb probe answers from Syzygy files what the own tables do not hold, and says so", "[syzygy][cli]") {
    REQUIRE_SYZYGY_AND_TABLES();
    const std::string none = (fs::temp_directory_path() / "pythia-no-tables-here").string();
    std::mt19937_64 rng(27);
    static const char* names[] = {"loss", "blessed loss", "draw", "cursed win", "win"};
    int checked = 0;
    for (const char* pieces : {"KRkp", "KPkp", "KQkr", "KBNk"}) {
        for (int i = 0; i < 5; ++i) {
            auto pos = random_position(rng, pieces, i % 2 ? BLACK : WHITE);
            REQUIRE(pos);
            const auto wdl = tables->probe_wdl(*pos);
            REQUIRE(wdl);
            if (MoveList(*pos).size() == 0) continue;
            INFO(pos->fen());
            const std::string from_syzygy =
                run_tb_probe("--dir " + none + " --syzygy " + SYZYGY_3_4 + " " + pos->fen());
            const std::string who = pos->side_to_move() == WHITE ? "White" : "Black";
            CHECK(from_syzygy.find(who + " to move: " + names[*wdl + 2] + ",") != std::string::npos);
            CHECK(from_syzygy.find("(answered by Syzygy)") != std::string::npos);
            // With the own tables present they answer, with their DTM.
            const std::string from_own =
                run_tb_probe("--dir " PYTHIA_DEFAULT_TB_DIR " --syzygy " + SYZYGY_3_4 + " " + pos->fen());
            CHECK(from_own.find("(answered by Pythia's tables)") != std::string::npos);
            CHECK(from_own.find(who + " to move: " + names[*wdl + 2] + ",") != std::string::npos);
            ++checked;
        }
    }
    CHECK(checked >= 15);
}
