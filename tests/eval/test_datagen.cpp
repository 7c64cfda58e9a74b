// How `pythia datagen` games end (engine/cli/datagen_adjudicator.h), with the default 3-4-piece
// tables for the tablebase endings, and the command run end to end with tables and a depth.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "engine/cli/datagen_adjudicator.h"
#include "eval/nnue/packed_position.h"
#include "eval/score.h"
#include "test_mode.h"
#include "uci/default_tables.h"

using namespace pythia;
using namespace pythia::cli;
using nnue::GameResult;

namespace {

Position at(const char* fen) {
    Position pos;
    REQUIRE(pos.set_fen(fen));
    return pos;
}

}  // namespace

TEST_CASE("datagen: the tables decide a game with a fresh halfmove clock, a draw whatever the clock", "[datagen]") {
    REQUIRE_DEFAULT_TABLES();
    // KQvK: won for White whichever side is to move.
    const Position white_to_move = at("8/8/8/3k4/8/8/8/KQ6 w - - 0 1");
    REQUIRE(tables->probe_wdl(white_to_move) == 2);
    CHECK(tablebase_result(white_to_move, *tables) == GameResult::WHITE_WIN);
    const Position black_to_move = at("8/8/8/3k4/8/8/8/KQ6 b - - 0 1");
    REQUIRE(tables->probe_wdl(black_to_move) == -2);
    CHECK(tablebase_result(black_to_move, *tables) == GameResult::WHITE_WIN);
    // Colours flipped: Black's queen.
    CHECK(tablebase_result(at("kq6/8/8/8/3K4/8/8/8 w - - 0 1"), *tables) == GameResult::BLACK_WIN);
    // Plies on the clock: the win may no longer come in time, so the tables do not decide.
    CHECK_FALSE(tablebase_result(at("8/8/8/3k4/8/8/8/KQ6 w - - 9 30"), *tables));
    // A drawn KRvKR decides whatever the clock.
    const Position draw = at("k7/8/8/8/8/8/r7/4K2R w - - 60 80");
    REQUIRE(tables->probe_wdl(draw) == 0);
    CHECK(tablebase_result(draw, *tables) == GameResult::DRAW);
    // Out of scope: castling rights, and more pieces than the tables hold.
    CHECK_FALSE(tablebase_result(at("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"), *tables));
    CHECK_FALSE(tablebase_result(at("4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1"), *tables));
}

TEST_CASE("datagen: the adjudicator ends games by the rules, the tables, the scores and the length", "[datagen]") {
    GameAdjudicator plain(nullptr);
    const auto mate = plain.before_search(at("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 40"), 60);
    REQUIRE(mate);
    CHECK(mate->how == GameEnd::MATE);
    CHECK(mate->result == GameResult::WHITE_WIN);
    const auto stalemate = plain.before_search(at("k7/2Q5/1K6/8/8/8/8/8 b - - 0 60"), 60);
    REQUIRE(stalemate);
    CHECK(stalemate->how == GameEnd::STALEMATE);
    CHECK(stalemate->result == GameResult::DRAW);
    const auto bare_kings = plain.before_search(at("8/8/3k4/8/8/3K4/8/8 w - - 0 60"), 60);
    REQUIRE(bare_kings);
    CHECK(bare_kings->how == GameEnd::RULES);
    const Position middlegame = at("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9");
    CHECK_FALSE(plain.before_search(middlegame, 20));
    const auto too_long = plain.before_search(middlegame, GameAdjudicator::MAX_GAME_PLIES);
    REQUIRE(too_long);
    CHECK(too_long->how == GameEnd::MAX_PLIES);

    // A won score for White must hold for WIN_PLIES searches in a row, from either side's view.
    const Position white = at("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9");
    const Position black = at("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 0 9");
    GameAdjudicator scores(nullptr);
    for (int i = 0; i + 1 < GameAdjudicator::WIN_PLIES; ++i) {
        const bool white_moves = i % 2 == 0;
        REQUIRE_FALSE(scores.after_search(white_moves ? white : black,
                                          white_moves ? GameAdjudicator::WIN_SCORE : -GameAdjudicator::WIN_SCORE));
    }
    const auto won = scores.after_search(white, GameAdjudicator::WIN_SCORE + 50);
    REQUIRE(won);
    CHECK(won->how == GameEnd::WIN_SCORE);
    CHECK(won->result == GameResult::WHITE_WIN);
    // A lower score breaks the streak.
    GameAdjudicator broken(nullptr);
    for (int i = 0; i < 3 * GameAdjudicator::WIN_PLIES; ++i)
        CHECK_FALSE(broken.after_search(white, i % 4 == 3 ? 0 : -GameAdjudicator::WIN_SCORE));
    // A mate score ends the game at once, for the side it favours.
    const auto mated = GameAdjudicator(nullptr).after_search(black, VALUE_MATE - 7);
    REQUIRE(mated);
    CHECK(mated->how == GameEnd::MATE_SCORE);
    CHECK(mated->result == GameResult::BLACK_WIN);
    // Near-zero scores make a draw only from DRAW_FROM_PLY on.
    GameAdjudicator early(nullptr), late(nullptr);
    const Position ply_16 = at("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9");
    const Position ply_100 = at("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 51");
    std::optional<Ending> late_end;
    for (int i = 0; i < GameAdjudicator::DRAW_PLIES; ++i) {
        CHECK_FALSE(early.after_search(ply_16, 3));
        late_end = late.after_search(ply_100, -3);
        if (i + 1 < GameAdjudicator::DRAW_PLIES) CHECK_FALSE(late_end);
    }
    REQUIRE(late_end);
    CHECK(late_end->how == GameEnd::DRAW_SCORE);
    CHECK(late_end->result == GameResult::DRAW);

    // With tables, a position they hold ends the game before any search.
    REQUIRE_DEFAULT_TABLES();
    const auto by_tables = GameAdjudicator(tables).before_search(at("8/8/8/3k4/8/8/8/KQ6 b - - 0 70"), 90);
    REQUIRE(by_tables);
    CHECK(by_tables->how == GameEnd::TABLEBASE);
    CHECK(by_tables->result == GameResult::WHITE_WIN);
}

namespace {

// The positions of a datagen file with at most `pieces` pieces, and how many records it holds.
std::pair<int, int> small_positions(const std::string& path, int pieces) {
    std::ifstream in(path, std::ios::binary);
    nnue::PackedPosition r;
    int records = 0, small = 0;
    while (in.read(reinterpret_cast<char*>(&r), sizeof r)) {
        const auto pos = nnue::unpack_position(r);
        REQUIRE(pos);
        ++records;
        small += popcount(pos->pieces()) <= pieces;
    }
    return {small, records};
}

}  // namespace

TEST_CASE("datagen: with tables a game ends where it enters them, at a fixed depth", "[datagen]") {
    REQUIRE_DEFAULT_TABLES();
    // A folder of its own (the release and sanitize runs may overlap).
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("pythia-datagen-tables-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string with = (dir / "with.bin").string(), without = (dir / "without.bin").string();
    const std::string log = (dir / "log.txt").string();
    auto run = [&](const std::string& out, const std::string& args) {
        const std::string command = std::string(PYTHIA_BINARY) + " datagen --out " + out + " " + args + " 2>" + log;
        return std::system(command.c_str());
    };
    // Seed 4's twelve games at depth 5: four of them reach the 3-4-piece tables.
    const std::string games = "--games 12 --depth 5 --seed 4";
    REQUIRE(run(without, games) == 0);
    REQUIRE(run(with, games + " --tablebases " PYTHIA_DEFAULT_TB_DIR) == 0);
    std::ifstream in(log);
    const std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(report);
    CHECK(report.find("depth 5.00") != std::string::npos);
    CHECK(report.find("tablebase ") != std::string::npos);  // the endings' line names the tables
    const auto [small_without, records_without] = small_positions(without, 4);
    const auto [small_with, records_with] = small_positions(with, 4);
    CHECK(records_without > 100);
    CHECK(records_with > 100);
    CHECK(small_without > 0);  // played on inside the tables
    CHECK(small_with == 0);    // ended on entering them (by a capture: a fresh clock)

    // A folder without tables, and a depth of 0, are refused.
    CHECK(run(with, "--games 1 --tablebases " + dir.string()) == 256);
    CHECK(run(with, "--games 1 --depth 0") == 2 * 256);
    std::filesystem::remove_all(dir);
}
