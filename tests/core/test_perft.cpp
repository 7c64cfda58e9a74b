#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "engine/core/perft.h"

using namespace pythia;

namespace {

uint64_t perft_of(const std::string& fen, int depth) {
    Position pos;
    std::string error;
    REQUIRE(pos.set_fen(fen, &error));
    return perft(pos, depth);
}

// Node budget per position of the public suite: deep in optimised builds, shallow in
// debug and sanitizer builds so that the whole suite stays quick everywhere.
#ifdef NDEBUG
constexpr uint64_t SUITE_NODE_BUDGET = 20'000'000;
#else
constexpr uint64_t SUITE_NODE_BUDGET = 300'000;
#endif

}  // namespace

TEST_CASE("perft of the six standard positions", "[perft]") {
    struct Case {
        const char* fen;
        std::vector<uint64_t> counts;  // depth 1, 2, ...
    };
    const Case cases[] = {
        {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", {20, 400, 8902, 197281, 4865609}},
        {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", {48, 2039, 97862, 4085603}},
        {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", {14, 191, 2812, 43238, 674624}},
        {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", {6, 264, 9467, 422333}},
        {"r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", {6, 264, 9467, 422333}},
        {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", {44, 1486, 62379, 2103487}},
        {"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", {46, 2079, 89890, 3894594}},
    };
    for (const auto& c : cases) {
        for (size_t d = 0; d < c.counts.size(); ++d) {
#ifndef NDEBUG
            if (c.counts[d] > 5'000'000) continue;
#endif
            INFO(c.fen << " depth " << d + 1);
            CHECK(perft_of(c.fen, int(d + 1)) == c.counts[d]);
        }
    }
}

#ifdef NDEBUG
TEST_CASE("perft 6 of the start position", "[perft][slow]") { CHECK(perft_of(std::string(START_FEN), 6) == 119060324); }
#endif

TEST_CASE("perft of the public ROCE suite", "[perft]") {
    std::ifstream in(PYTHIA_TEST_DATA_DIR "/perftsuite.epd");
    REQUIRE(in.good());
    std::string line;
    int positions = 0, checked = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string fen, part;
        std::getline(fields, fen, ';');
        ++positions;
        // Check every depth whose count fits the budget.
        while (std::getline(fields, part, ';')) {
            int depth;
            uint64_t expected;
            std::istringstream p(part);
            char d;
            REQUIRE((p >> d >> depth >> expected));
            if (expected > SUITE_NODE_BUDGET) continue;
            INFO(fen << " depth " << depth);
            CHECK(perft_of(fen, depth) == expected);
            ++checked;
        }
    }
    CHECK(positions >= 100);
    CHECK(checked >= 4 * positions);
}
