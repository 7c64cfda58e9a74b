// The lichess-shaped JSON (engine/server/lichess_json.h): every field of the lichess tablebase
// API with its type, the values against the prober's, the halfmove clock, the move order.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <random>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/random_position.h"
#include "engine/server/lichess_json.h"
#include "tablebase/tb_test_tables.h"

using namespace pythia;
using namespace pythia::server;
using Json = nlohmann::json;

namespace {

Json answer(const std::string& fen) {
    return Json::parse(to_json(lichess_response(test::test_tablebases(), test::position(fen))));
}

// lila-tablebase's PositionInfo fields and their JSON types ("int?" an integer or null).
const std::vector<std::pair<const char*, const char*>> POSITION_FIELDS = {
    {"dtz", "int?"},          {"precise_dtz", "int?"},
    {"dtc", "int?"},          {"dtm", "int?"},
    {"dtw", "int?"},          {"checkmate", "bool"},
    {"stalemate", "bool"},    {"variant_win", "bool"},
    {"variant_loss", "bool"}, {"insufficient_material", "bool"},
    {"category", "string"}};

void check_fields(const Json& j, bool is_move) {
    auto fields = POSITION_FIELDS;
    if (is_move) {
        for (auto f : {std::pair("uci", "string"), std::pair("san", "string"), std::pair("zeroing", "bool"),
                       std::pair("conversion", "bool")})
            fields.push_back(f);
    } else {
        fields.emplace_back("moves", "array");
    }
    for (const auto& [name, type] : fields) {
        INFO(name << " in " << j.dump());
        REQUIRE(j.contains(name));
        const Json& v = j[name];
        if (std::string(type) == "int?") CHECK((v.is_null() || v.is_number_integer()));
        if (std::string(type) == "bool") CHECK(v.is_boolean());
        if (std::string(type) == "string") CHECK(v.is_string());
        if (std::string(type) == "array") CHECK(v.is_array());
    }
    CHECK(parse_category(j["category"].get<std::string>()));
    CHECK(j["dtz"] == j["precise_dtz"]);  // never rounded
}

std::optional<int> opt(const Json& v) {
    if (v.is_null()) return std::nullopt;
    return v.get<int>();
}

std::optional<int> signed_value(const std::optional<tb::Value>& v) {
    if (!v) return std::nullopt;
    return tb::signed_distance(*v);
}

// The JSON values of one position against the prober's.
void check_values(const Json& j, const Position& pos) {
    const bool no_moves = MoveList(pos).empty();
    CHECK(j["checkmate"] == (no_moves && pos.in_check()));
    CHECK(j["stalemate"] == (no_moves && !pos.in_check()));
    if (no_moves || pos.has_insufficient_material()) return;
    const auto r = test::test_tablebases().probe(pos);
    REQUIRE(r);
    CHECK(opt(j["dtm"]) == signed_value(r->dtm));
    CHECK(opt(j["dtz"]) == signed_value(r->dtz));
    if (pos.rule50() == 0) {
        CHECK(j["wdl"] == r->wdl);
        const char* names[] = {"loss", "blessed-loss", "draw", "cursed-win", "win"};
        CHECK(j["category"] == names[r->wdl + 2]);
    }
}

}  // namespace

TEST_CASE("lichess JSON has every field of the lichess API with its type", "[server][json]") {
    for (const char* fen :
         {"8/8/8/8/8/8/1k6/R6K w - - 0 1", "6k1/8/6K1/8/8/8/8/R7 w - - 0 1", "R5k1/8/6K1/8/8/8/8/8 b - - 1 1",
          "8/8/8/4k3/8/8/8/4K3 w - - 0 1", "r3k3/8/8/8/8/8/8/4K3 b q - 0 1",
          "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}) {
        const Json j = answer(fen);
        INFO(fen);
        check_fields(j, false);
        for (const Json& m : j["moves"]) check_fields(m, true);
        CHECK(j["moves"].size() == size_t(MoveList(test::position(fen)).size()));
    }
    // Out of the tables' reach: nulls and "unknown", as lichess answers.
    const Json start = answer(std::string(START_FEN));
    CHECK(start["category"] == "unknown");
    CHECK(start["dtz"].is_null());
    CHECK(start["dtm"].is_null());
    CHECK(start["wdl"].is_null());
    CHECK(start["moves"][0]["category"] == "unknown");
}

TEST_CASE("lichess JSON values are the prober's, each move from the side that moves next", "[server][json]") {
    std::mt19937_64 rng(20260127);
    int checked = 0;
    for (const char* pieces : {"KQk", "KRk", "KPk", "KRkn", "KPkp", "KQkr", "KBNk", "KPkb"}) {
        for (int i = 0; i < 6; ++i) {
            const auto pos = random_position(rng, pieces, i % 2 ? BLACK : WHITE);
            REQUIRE(pos);
            const Json j = answer(pos->fen());
            INFO(pos->fen());
            check_values(j, *pos);
            for (const Json& m : j["moves"]) {
                Position after = *pos;
                const Move mv = parse_uci_move(after, m["uci"].get<std::string>());
                REQUIRE(mv);
                CHECK(m["san"] == move_to_san(after, mv));
                CHECK(m["zeroing"] == (after.is_capture(mv) || type_of(after.moved_piece(mv)) == PAWN));
                after.do_move(mv);
                INFO(m.dump());
                check_values(m, after);
                ++checked;
            }
        }
    }
    CHECK(checked > 300);
}

TEST_CASE("lichess JSON counts the halfmove clock as lichess does", "[server][json]") {
    // KRvK, White wins; the DTZ50 d of the position: with d + clock <= 100 still a win, beyond
    // that a cursed win (a draw under the 50-move rule), the loser's side a blessed loss.
    const std::string board = "8/8/8/8/8/8/1k6/R6K";
    const Json fresh = answer(board + " w - - 0 1");
    REQUIRE(fresh["category"] == "win");
    const int d = fresh["dtz"].get<int>();
    REQUIRE(d > 1);
    CHECK(answer(board + " w - - " + std::to_string(100 - d) + " 60")["category"] == "win");
    const Json late = answer(board + " w - - " + std::to_string(101 - d) + " 60");
    CHECK(late["category"] == "cursed-win");
    CHECK(late["wdl"] == 1);
    CHECK(late["dtz"] == d);  // the values stay the tables'
    // The best move of the late position: the opponent's blessed loss.
    CHECK(late["moves"][0]["category"] == "blessed-loss");
    // KQvK, Black to move, losing: the same with the signs turned.
    const Json lost = answer("8/8/8/8/8/2k5/8/K6Q b - - 0 1");
    REQUIRE(lost["category"] == "loss");
    const int l = -lost["dtz"].get<int>();
    CHECK(answer("8/8/8/8/8/2k5/8/K6Q b - - " + std::to_string(100 - l) + " 60")["category"] == "loss");
    CHECK(answer("8/8/8/8/8/2k5/8/K6Q b - - " + std::to_string(101 - l) + " 60")["category"] == "blessed-loss");
    // Mate on the board after the 100th ply: lila-tablebase judges the clock before the move.
    CHECK(answer("6k1/8/6K1/8/8/8/8/R7 w - - 99 80")["moves"][0]["category"] == "loss");
    CHECK(answer("6k1/8/6K1/8/8/8/8/R7 w - - 100 80")["moves"][0]["category"] == "blessed-loss");
    // Underscores or not, the same answer (the server's job; here the FEN's own clock).
    CHECK(answer("R5k1/8/6K1/8/8/8/8/8 b - - 1 1")["checkmate"] == true);
}

TEST_CASE("lichess JSON lists the moves best first in lila-tablebase's order", "[server][json]") {
    std::mt19937_64 rng(7);
    for (const char* pieces : {"KQk", "KRkn", "KPkp", "KQkr"}) {
        for (int i = 0; i < 8; ++i) {
            const auto pos = random_position(rng, pieces, i % 2 ? BLACK : WHITE);
            REQUIRE(pos);
            const Json j = answer(pos->fen());
            INFO(pos->fen());
            const auto& moves = j["moves"];
            for (size_t k = 1; k < moves.size(); ++k) {
                const Category a = *parse_category(moves[k - 1]["category"].get<std::string>());
                const Category b = *parse_category(moves[k]["category"].get<std::string>());
                CHECK(int(a) <= int(b));  // the opponent's worst first
                if (a == b && a == Category::LOSS && !moves[k - 1]["checkmate"].get<bool>())
                    CHECK(moves[k - 1]["dtm"].get<int>() >= moves[k]["dtm"].get<int>());  // shortest mate first
                if (a == b && a == Category::WIN) CHECK(moves[k - 1]["dtm"].get<int>() >= moves[k]["dtm"].get<int>());
            }
            // The root's verdict is its best move's, seen from the other side.
            if (!moves.empty() && pos->rule50() == 0)
                CHECK(j["category"] == category_name(negate(*parse_category(moves[0]["category"].get<std::string>()))));
        }
    }
}

TEST_CASE("lichess JSON reads back what it writes", "[server][json]") {
    const Position pos = test::position("8/8/8/8/8/2k5/8/K6Q b - - 0 1");
    const LichessResponse r = lichess_response(test::test_tablebases(), pos);
    std::string error;
    const auto back = parse_lichess_json(to_json(r), pos, &error);
    REQUIRE(back);
    CHECK(back->pos.category == r.pos.category);
    REQUIRE(back->moves.size() == r.moves.size());
    for (size_t i = 0; i < r.moves.size(); ++i) {
        CHECK(back->moves[i].move == r.moves[i].move);
        CHECK(back->moves[i].after.dtm == r.moves[i].after.dtm);
        CHECK(back->moves[i].after.category == r.moves[i].after.category);
    }
    CHECK(!parse_lichess_json("{\"category\":\"win\",\"moves\":[{\"uci\":\"e2e4\",\"category\":\"loss\"}]}", pos,
                              &error));
    CHECK_THAT(error, Catch::Contains("e2e4"));
    CHECK(!parse_lichess_json("not json", pos, &error));
    CHECK(!parse_lichess_json("[1,2]", pos, &error));
}
