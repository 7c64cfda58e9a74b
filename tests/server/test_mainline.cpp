// GET /standard/mainline (engine/server/mainline.h) and GET /tables (coverage.h), through
// route() in process over the 3-4-piece test tables: lila-tablebase's line and JSON, where the
// line stops, its errors.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/server/routes.h"
#include "tablebase/tb_test_tables.h"

using namespace pythia;
using namespace pythia::server;
using Json = nlohmann::json;

namespace {

HttpResponse get(const std::string& target) { return route(test::test_tablebases(), "GET", target); }

Json mainline_of(const std::string& fen) {
    std::string param = fen;
    std::replace(param.begin(), param.end(), ' ', '_');
    const HttpResponse r = get("/standard/mainline?fen=" + param);
    INFO(fen << ": " << r.body);
    REQUIRE(r.status == 200);
    CHECK(r.allow_any_origin);
    const Json j = Json::parse(r.body, nullptr, false);
    REQUIRE(j.is_object());
    return j;
}

// The line played out on the board: every move legal, each step's DTZ that of the position
// after it (from /standard), and the final position.
Position play_out(const std::string& fen, const Json& line) {
    Position pos = test::position(fen);
    for (const Json& step : line["mainline"]) {
        INFO(pos.fen() << " " << step.dump());
        REQUIRE(step.size() == 4);  // uci, san, dtz, precise_dtz
        const Move m = parse_uci_move(pos, step["uci"].get<std::string>());
        REQUIRE(m);
        CHECK(step["san"] == move_to_san(pos, m));
        pos.do_move(m);
        std::string param = pos.fen();
        std::replace(param.begin(), param.end(), ' ', '_');
        const Json after = Json::parse(get("/standard?fen=" + param).body);
        CHECK(step["dtz"] == after["dtz"]);
        CHECK(step["precise_dtz"] == after["precise_dtz"]);
    }
    return pos;
}

}  // namespace

TEST_CASE("mainline: lila-tablebase's example, step for step", "[server][mainline]") {
    // The example of lila-tablebase's README (KPvKP, which the 4-piece tables hold).
    const std::string fen = "4k3/6KP/8/8/8/8/7p/8 w - - 0 1";
    const Json j = mainline_of(fen);
    const std::vector<std::tuple<const char*, const char*, int>> lila = {
        {"h7h8q", "h8=Q+", -2}, {"e8d7", "Kd7", 1},   {"h8h2", "Qxh2", -14}, {"d7c6", "Kc6", 13}, {"h2e5", "Qe5", -12},
        {"c6b6", "Kb6", 11},    {"g7f6", "Kf6", -10}, {"b6a6", "Ka6", 9},    {"e5b2", "Qb2", -8}, {"a6a5", "Ka5", 7},
        {"f6e5", "Ke5", -6},    {"a5a4", "Ka4", 5},   {"e5d4", "Kd4", -4},   {"a4a5", "Ka5", 3},  {"d4c5", "Kc5", -2},
        {"a5a4", "Ka4", 1},     {"b2a2", "Qa2#", -1}};
    CHECK(j["dtz"] == 1);
    CHECK(j["precise_dtz"] == 1);
    CHECK(j["winner"] == "w");
    REQUIRE(j["mainline"].size() == lila.size());
    // The same moves until a position where several share the best DTZ (lila takes the first in
    // its move generator's order, Pythia in its own); there lila's move is one of those, and
    // from there on the DTZ of every step is still lila's.
    Position pos = test::position(fen);
    bool same_line = true;
    for (size_t i = 0; i < lila.size(); ++i) {
        const auto& [uci, san, dtz] = lila[i];
        const Json& step = j["mainline"][i];
        INFO("step " << i << ": " << step.dump());
        CHECK(step["dtz"] == dtz);
        if (same_line && step["uci"] != uci) {
            same_line = false;
            const Move theirs = parse_uci_move(pos, uci);
            REQUIRE(theirs);
            Position after = pos;
            after.do_move(theirs);
            std::string param = after.fen();
            std::replace(param.begin(), param.end(), ' ', '_');
            CHECK(Json::parse(get("/standard?fen=" + param).body)["dtz"] == dtz);
            CHECK(i >= 8);  // the line so far is lila's
        }
        if (same_line) CHECK(step["san"] == san);
        pos.do_move(parse_uci_move(pos, step["uci"].get<std::string>()));
    }
    const Position end = play_out(fen, j);
    CHECK(MoveList(end).empty());
    CHECK(end.in_check());
}

TEST_CASE("mainline: a win ends in mate, a draw is empty, a mate on the board has no line", "[server][mainline]") {
    SECTION("KRvK from either side") {
        for (const std::string fen : {"8/8/8/8/8/8/1k6/R6K w - - 0 1", "8/8/8/3k4/8/8/8/R6K b - - 0 1"}) {
            INFO(fen);
            const Json j = mainline_of(fen);
            const bool white_wins = fen.find(" w ") != std::string::npos;
            CHECK(j["winner"] == "w");
            CHECK((j["dtz"].get<int>() > 0) == white_wins);
            const Position end = play_out(fen, j);
            CHECK(MoveList(end).empty());
            CHECK(end.in_check());
            CHECK(end.side_to_move() == BLACK);
            CHECK(j["mainline"].back()["dtz"] == -1);
            // Each side's DTZ counts down to the zeroing mate, the signs alternating.
            int sign = j["dtz"].get<int>() > 0 ? -1 : 1;
            for (const Json& step : j["mainline"]) {
                CHECK(step["dtz"].get<int>() * sign > 0);
                sign = -sign;
            }
        }
    }
    SECTION("a draw") {
        const Json j = mainline_of("8/8/8/4k3/8/8/8/4K2N w - - 0 1");  // KNvK
        CHECK(j["dtz"] == 0);
        CHECK(j["mainline"].empty());
        CHECK(j["winner"].is_null());
    }
    SECTION("checkmated") {
        const Json j = mainline_of("R5k1/8/6K1/8/8/8/8/8 b - - 1 1");
        CHECK(j["dtz"] == -1);
        CHECK(j["mainline"].empty());
        CHECK(j["winner"] == "w");
    }
    SECTION("a cursed win stops where the 50-move draw can be claimed") {
        // KRvK with a clock that leaves too few plies: the line stops at a clock of 100.
        const std::string fen = "8/8/8/8/8/8/1k6/R6K w - - 90 70";
        const Json j = mainline_of(fen);
        CHECK(j["dtz"].get<int>() > 10);
        CHECK(j["winner"].is_null());
        CHECK(j["mainline"].size() == 10);
        const Position end = play_out(fen, j);
        CHECK(end.rule50() == 100);
    }
}

TEST_CASE("mainline: errors are JSON with /standard's statuses, and 404 off the tables", "[server][mainline]") {
    for (const auto& [target, status] : std::vector<std::pair<std::string, int>>{
             {"/standard/mainline", 400},
             {"/standard/mainline?fen=", 400},
             {"/standard/mainline?fen=not_a_fen", 400},
             {"/standard/mainline?fen=8/8/8/8/8/8/8/8_w_-_-_0_1", 400},
             {"/standard/mainline?fen=" + std::string(600, 'k'), 414},
             {"/standard/mainline?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1", 404},
             {"/standard/mainline?fen=4k3/8/8/8/8/8/8/R3K3_w_Q_-_0_1", 404},  // castling rights
             {"/standard/mainline/x?fen=8/8/8/8/8/8/1k6/R6K_w_-_-_0_1", 404}}) {
        const HttpResponse r = get(target);
        INFO(target.substr(0, 80) << ": " << r.body);
        CHECK(r.status == status);
        CHECK(r.content_type == "application/json");
        const Json j = Json::parse(r.body, nullptr, false);
        REQUIRE(j.is_object());
        CHECK(j["error"].is_string());
    }
}

TEST_CASE("/tables says which piece counts the loaded tables cover", "[server][coverage]") {
    const HttpResponse r = get("/tables");
    REQUIRE(r.status == 200);
    const Json j = Json::parse(r.body);
    CHECK(j == Json::parse(R"({"max_pieces":4,"pythia":[{"pieces":3,"tables":5,"of":5},)"
                           R"({"pieces":4,"tables":30,"of":30}],"syzygy":[]})"));
    tb::Tablebases none;
    CHECK(Json::parse(route(none, "GET", "/tables").body) ==
          Json::parse(R"({"max_pieces":0,"pythia":[],"syzygy":[]})"));
}
