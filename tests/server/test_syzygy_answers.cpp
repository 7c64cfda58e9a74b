// Syzygy files behind the lichess API (`tb serve --syzygy`, `tb probe --json --syzygy`): what
// Pythia's tables do not hold is answered from Syzygy's WDL and DTZ through libfathom, with
// `dtm` and `precise_dtz` null, as lichess answers. Checked against Pythia's own 3-4-piece
// tables (an independent generator) and, for five pieces, against the moves' values that those
// tables give; and the real server against `tb probe --json --syzygy`, the same builder.
// The Syzygy files are the tests' truth folders (../shared/truth and ../shared/truth5); without
// them the tests skip (fail under CI).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "engine/core/movegen.h"
#include "engine/core/random_position.h"
#include "engine/server/lichess_json.h"
#include "tablebase/tb_test_tables.h"
#include "test_mode.h"
#include "uci/engine_process.h"

using namespace pythia;
using namespace pythia::server;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string SYZYGY_3_4 = PYTHIA_TRUTH_DIR "/syzygy";          // every 3-4-piece table
const std::string SYZYGY_5 = PYTHIA_TRUTH_DIR "/../truth5/syzygy";  // KRPvKR and its promotions

// The five-piece materials of the truth files, as FEN letters for random_position.
const std::vector<std::string> FIVE_PIECES = {"KRPkr", "KQRkr", "KRRkr", "KRBkr", "KRNkr"};

bool have_truth(bool five) {
    if (fs::is_regular_file(SYZYGY_3_4 + "/KRvK.rtbw") && (!five || fs::is_regular_file(SYZYGY_5 + "/KRPvKR.rtbz")))
        return true;
    if (test::in_ci()) FAIL("no Syzygy truth files in " << SYZYGY_3_4 << (five ? " and " + SYZYGY_5 : ""));
    std::cout << "PYTHIA_TEST_SKIPPED: no Syzygy truth files in " << SYZYGY_3_4 << (five ? " and " + SYZYGY_5 : "")
              << std::endl;
    return false;
}

// The process's one Syzygy set (Fathom's state is global) on `paths`, emptied again after.
struct SyzygyFiles {
    explicit SyzygyFiles(const std::string& paths) { tb::SyzygyTables::instance().set_paths(paths); }
    ~SyzygyFiles() { tb::SyzygyTables::instance().set_paths(""); }
    const tb::SyzygyTables* operator->() const { return &tb::SyzygyTables::instance(); }
    const tb::SyzygyTables* get() const { return &tb::SyzygyTables::instance(); }
};

// Random positions of 3 and 4 pieces (each side to move), and some with an en passant right.
std::vector<Position> small_positions(int per_material) {
    std::mt19937_64 rng(55);
    std::vector<Position> out;
    for (const char* pieces : {"KQk", "KRk", "KPk", "KBNk", "KPkp", "KRkp", "KQkr", "KBkn", "KPPk", "KRkr"})
        for (int i = 0; i < per_material; ++i)
            if (auto p = random_position(rng, pieces, i % 2 ? BLACK : WHITE)) out.push_back(*p);
    for (const char* fen : {"8/8/8/k2pP3/8/8/8/4K3 w - d6 0 1", "4k3/8/8/8/3pP3/8/8/K7 b - e3 0 1"})
        out.push_back(test::position(fen));
    return out;
}

std::vector<Position> five_piece_positions(int per_material, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Position> out;
    for (const std::string& pieces : FIVE_PIECES)
        for (int i = 0; i < per_material; ++i)
            if (auto p = random_position(rng, pieces, i % 2 ? BLACK : WHITE)) out.push_back(*p);
    return out;
}

}  // namespace

TEST_CASE("Syzygy answers as Pythia's tables do where both hold a position, without DTM", "[server][syzygy]") {
    if (!have_truth(false)) return;
    SyzygyFiles syzygy(SYZYGY_3_4);
    REQUIRE(syzygy->max_pieces() == 4);
    const tb::Tablebases none;
    const TableSources syzygy_only(none, syzygy.get());
    for (const Position& pos : small_positions(test::light_mode() ? 6 : 30)) {
        INFO(pos.fen());
        const LichessResponse s = lichess_response(syzygy_only, pos);
        const LichessResponse p = lichess_response(test::test_tablebases(), pos);
        REQUIRE(s.pos.syzygy);
        CHECK_FALSE(p.pos.syzygy);
        CHECK(s.pos.wdl == p.pos.wdl);
        CHECK(s.pos.category == p.pos.category);
        REQUIRE(s.pos.dtz);
        REQUIRE(p.pos.dtz);
        // Syzygy's DTZ: the sign exact, the value at most one ply off where a file stores moves.
        CHECK((*s.pos.dtz > 0) == (*p.pos.dtz > 0));
        CHECK((*s.pos.dtz < 0) == (*p.pos.dtz < 0));
        CHECK(std::abs(*s.pos.dtz - *p.pos.dtz) <= 1);
        CHECK_FALSE(s.pos.dtm);
        const Json j = Json::parse(to_json(s));
        CHECK(j["dtm"].is_null());
        CHECK(j["precise_dtz"].is_null());
        CHECK(j["dtz"] == *s.pos.dtz);
        // Every move, the same category; a DTZ within a ply (a mate is a mate in both).
        REQUIRE(s.moves.size() == p.moves.size());
        for (const MoveInfo& sm : s.moves) {
            const auto pm =
                std::find_if(p.moves.begin(), p.moves.end(), [&](const MoveInfo& m) { return m.uci == sm.uci; });
            REQUIRE(pm != p.moves.end());
            INFO(sm.uci);
            CHECK(sm.after.category == pm->after.category);
            REQUIRE(sm.after.dtz);
            CHECK(std::abs(*sm.after.dtz - *pm->after.dtz) <= 1);
            CHECK(sm.after.checkmate == pm->after.checkmate);
            // The successors' DTZ, read off the root's probe for quiet moves, is a probe's own.
            Position after = pos;
            after.do_move(sm.move);
            if (!sm.after.checkmate && !sm.after.stalemate && !sm.after.insufficient_material)
                CHECK(sm.after.dtz == syzygy->probe_dtz(after));
        }
        // The best move's category is the root's, turned round.
        REQUIRE_FALSE(s.moves.empty());
        CHECK(s.pos.category == negate(s.moves.front().after.category));
    }
}

// A FEN with its halfmove clock set to `clock`.
std::string with_clock(const Position& pos, int clock) {
    std::istringstream in(pos.fen());
    std::string board, side, castling, ep;
    in >> board >> side >> castling >> ep;
    return board + " " + side + " " + castling + " " + ep + " " + std::to_string(clock) + " 80";
}

TEST_CASE("Syzygy's maybe-rounded DTZ at the 50-move limit: syzygy-win and -loss only where it may cross it",
          "[server][syzygy]") {
    if (!have_truth(false)) return;
    SyzygyFiles syzygy(SYZYGY_3_4);
    const tb::Tablebases none;
    const TableSources syzygy_only(none, syzygy.get());
    int ambiguous = 0, settled_by_a_move = 0;
    for (const Position& start : small_positions(test::light_mode() ? 6 : 30)) {
        const std::optional<int> d = syzygy->probe_dtz(start);
        if (!d || *d == 0 || std::abs(*d) > 99 || start.ep_square() != SQ_NONE) continue;
        const bool win = *d > 0;
        const int n = std::abs(*d);
        // Below the limit and beyond it the category is certain, and Pythia's exact tables agree.
        for (const int clock : {99 - n, 101 - n}) {
            const Position pos = test::position(with_clock(start, clock));
            INFO(pos.fen());
            const LichessResponse s = lichess_response(syzygy_only, pos),
                                  p = lichess_response(test::test_tablebases(), pos);
            CHECK(s.pos.category == p.pos.category);
            const Category expected = clock + n < 100 ? (win ? Category::WIN : Category::LOSS)
                                                      : (win ? Category::CURSED_WIN : Category::BLESSED_LOSS);
            CHECK(s.pos.category == expected);
        }
        // At it, Syzygy's DTZ may be a ply short: ambiguous, unless the best move settles it (a
        // zeroing move restarts the clock); then it agrees with Pythia's exact DTZ.
        const Position pos = test::position(with_clock(start, 100 - n));
        INFO(pos.fen());
        const LichessResponse s = lichess_response(syzygy_only, pos),
                              p = lichess_response(test::test_tablebases(), pos);
        const Json j = Json::parse(to_json(s));
        if (s.pos.category == (win ? Category::SYZYGY_WIN : Category::SYZYGY_LOSS)) {
            ++ambiguous;
            CHECK(j["category"] == (win ? "syzygy-win" : "syzygy-loss"));
            CHECK(j["wdl"].is_null());
            CHECK((win ? p.pos.category == Category::WIN || p.pos.category == Category::CURSED_WIN
                       : p.pos.category == Category::LOSS || p.pos.category == Category::BLESSED_LOSS));
        } else {
            ++settled_by_a_move;
            CHECK(s.pos.category == p.pos.category);
            CHECK(s.pos.category == negate(s.moves.front().after.category));
        }
    }
    CHECK(ambiguous > 0);
    CHECK(settled_by_a_move > 0);
}

TEST_CASE("a five-piece position from Syzygy, its captures from Pythia's tables, agree", "[server][syzygy]") {
    if (!have_truth(true)) return;
    SyzygyFiles syzygy(SYZYGY_5 + ":" + SYZYGY_3_4);
    REQUIRE(syzygy->max_pieces() == 5);
    const TableSources both(test::test_tablebases(), syzygy.get());
    int captures_from_pythia = 0;
    for (const Position& pos : five_piece_positions(test::light_mode() ? 4 : 20, 5)) {
        INFO(pos.fen());
        const LichessResponse r = lichess_response(both, pos);
        REQUIRE(r.pos.syzygy);
        REQUIRE(r.pos.dtz);
        REQUIRE(r.pos.wdl);
        CHECK_FALSE(r.pos.dtm);
        CHECK(r.pos.category != Category::UNKNOWN);
        REQUIRE_FALSE(r.moves.empty());
        for (const MoveInfo& m : r.moves) {
            INFO(m.uci);
            REQUIRE(m.after.dtz);
            // A capture leaves four pieces: Pythia's tables, with DTM; any other move five: Syzygy.
            const bool capture = pos.is_capture(m.move);
            const bool terminal = m.after.checkmate || m.after.stalemate;
            CHECK(m.after.syzygy == (!capture && !terminal));
            if (capture && !terminal) {
                CHECK(m.after.dtm);
                ++captures_from_pythia;
            }
        }
        // With a fresh clock the root's category is its best move's, turned round, and its DTZ
        // agrees in sign with the best successor's (Syzygy's five against Pythia's four pieces
        // where the best move captures).
        CHECK(r.pos.category == negate(r.moves.front().after.category));
        const int best = *r.moves.front().after.dtz;
        CHECK((*r.pos.dtz > 0) == (best < 0));
        CHECK((*r.pos.dtz == 0) == (best == 0));
        CHECK(*r.pos.wdl == *category_wdl(r.pos.category));
    }
    CHECK(captures_from_pythia > 0);
}

TEST_CASE("tb serve --syzygy answers every sampled position exactly as tb probe --json --syzygy prints it",
          "[server][syzygy][http]") {
    if (!have_truth(true)) return;
    const std::string syzygy = SYZYGY_5 + ":" + SYZYGY_3_4;
    const fs::path scratch = test::scratch_dir("syzygy-server");
    std::vector<std::string> fens;
    for (const Position& p : five_piece_positions(test::light_mode() ? 3 : 12, 55)) fens.push_back(p.fen());
    for (const Position& p : small_positions(2)) fens.push_back(p.fen());
    fens.push_back("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 37 60");  // Lucena's position, a running clock
    {
        std::ofstream in(scratch / "fens");
        for (const std::string& f : fens) in << f << '\n';
    }
    const std::string dir = test::test_tables_dir().string();
    const std::string probe = std::string(PYTHIA_BINARY) + " tb probe --json --dir " + dir + " --syzygy " + syzygy +
                              " < " + (scratch / "fens").string() + " > " + (scratch / "out").string() + " 2> " +
                              (scratch / "err").string();
    std::system(probe.c_str());
    std::vector<std::string> expected;
    {
        std::ifstream out(scratch / "out");
        for (std::string line; std::getline(out, line);) expected.push_back(line);
    }
    REQUIRE(expected.size() == fens.size());

    // The real server, on a free port: its URL from its first lines on stderr.
    const fs::path err = scratch / "serve-err";
    test::EngineProcess server(
        PYTHIA_BINARY, {"tb", "serve", "--dir", dir, "--syzygy", syzygy, "--bind", "127.0.0.1:0", "--threads", "4"},
        err.string());
    int port = 0;
    for (int i = 0; i < 600 && !port; ++i) {
        std::stringstream text;
        text << std::ifstream(err).rdbuf();
        const std::string s = text.str();
        const size_t at = s.find("http://127.0.0.1:");
        if (at != std::string::npos) port = std::atoi(s.c_str() + at + 17);
        if (!port) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(port > 0);
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(30);
    for (size_t i = 0; i < fens.size(); ++i) {
        INFO(fens[i]);
        std::string param = fens[i];
        std::replace(param.begin(), param.end(), ' ', '_');
        const auto res = client.Get("/standard?fen=" + param);
        REQUIRE(res);
        REQUIRE(res->status == 200);
        // tb probe's line is the server's answer with the FEN as its first field.
        const Json line = Json::parse(expected[i]);
        const std::string fen_field = "{\"fen\":" + line["fen"].dump() + ",";
        REQUIRE(expected[i].rfind(fen_field, 0) == 0);
        CHECK(res->body == std::string("{").append(expected[i], fen_field.size()));
    }
    // What the server covers, from what it loaded.
    const auto tables = client.Get("/tables");
    REQUIRE(tables);
    const Json coverage = Json::parse(tables->body);
    CHECK(coverage["max_pieces"] == 5);
    CHECK(coverage["syzygy"].back() == Json::parse(R"({"pieces":5,"tables":5,"of":110})"));
    CHECK(coverage["pythia"].back() == Json::parse(R"({"pieces":4,"tables":30,"of":30})"));
    // A five-piece line, played by DTZ from Syzygy's files and Pythia's tables to its end.
    const auto line = client.Get("/standard/mainline?fen=1K1k4/1P6/8/8/8/8/r7/2R5_w_-_-_0_1");
    REQUIRE(line);
    INFO(line->body);
    REQUIRE(line->status == 200);
    const Json j = Json::parse(line->body);
    CHECK(j["precise_dtz"].is_null());
    CHECK(j["dtz"].get<int>() > 0);
    REQUIRE_FALSE(j["mainline"].empty());
    CHECK(j["winner"] == "w");
    CHECK(j["mainline"].back()["dtz"] == -1);
    CHECK_THAT(j["mainline"].back()["san"].get<std::string>(), Catch::EndsWith("#"));
}
