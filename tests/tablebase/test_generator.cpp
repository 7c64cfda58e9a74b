// The generator against independent tables: every position of the 3-piece tables and of a few
// 4-piece tables whose subtables are 3-piece ones, compared with Gaviota (DTM) and Syzygy
// (WDL exact, DTZ within one ply); published maxima; the verifier; under-promotion; the
// capture-resolved positions the generator records for the WDL files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <iostream>
#include <map>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "tablebase/generate/generator.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/generate/verifier.h"
#include "tablebase/probe/tb_board.h"
#include "test_mode.h"
#include "truth.h"
#include "truth_compare.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

// The tables under test: the 3-piece ones and a few 4-piece ones whose subtables they are. Light
// mode (sanitizers, where generating is slow): only KQvKR of the 4-piece ones.
std::vector<const char*> table_names() {
    if (test::light_mode()) return {"KBvK", "KNvK", "KQvK", "KRvK", "KPvK", "KQvKR"};
    return {"KBvK", "KNvK", "KQvK", "KRvK", "KPvK", "KQvKR", "KRvKR", "KBNvK", "KBBvK"};
}

// Generates the tables under test once for all test cases.
const TableSet& generated() {
    static TableSet set;
    static bool done = false;
    if (!done) {
        GenerationOptions options;
        options.threads = 2;
        for (const char* name : table_names()) set.add(generate_table(*Material::parse(name), set, options));
        done = true;
    }
    return set;
}

const TableValues& table(const char* name) {
    const TableValues* t = generated().find(*Material::parse(name));
    REQUIRE(t);
    return *t;
}

// Skips (or, under CI, fails) when the reference tables cannot be loaded.
bool truth_available() {
    std::string why;
    if (truth::init_gaviota(&why) && truth::init_syzygy(&why)) return true;
    if (test::in_ci()) FAIL("truth tables are required under CI: " << why);
    std::cout << "PYTHIA_TEST_SKIPPED: " << why << std::endl;
    return false;
}

int longest_win_in_moves(const TableValues& t) {
    int plies = 0;
    for (Color c : {WHITE, BLACK})
        for (Value v : t.dtm[c])
            if (is_win(v)) plies = std::max(plies, distance_of(v));
    return (plies + 1) / 2;
}

}  // namespace

TEST_CASE("generated tables equal Gaviota DTM and Syzygy WDL/DTZ everywhere", "[tb][generator][truth]") {
    if (!truth_available()) return;
    for (const char* name : table_names()) {
        INFO(name);
        const TableValues& t = table(name);
        truth::CompareOptions options;
        options.dtz_stride = t.index.size() < 200000 ? 101 : 2003;  // fathom's DTZ probe is slow
        truth::CompareResult c = truth::compare_table(t, options);
        for (const auto& e : c.examples) UNSCOPED_INFO(e);
        CHECK(c.positions > 40000);
        CHECK(c.dtz_checked > 400);
        CHECK(c.dtm_mismatches == 0);
        CHECK(c.wdl_mismatches == 0);
        CHECK(c.dtz_mismatches == 0);
    }
}

TEST_CASE("64-bit position ids give the values 32-bit ones do", "[tb][generator]") {
    // The solver keeps 32-bit ids up to 2^30 positions a slice (the id holds the index times
    // four), 64-bit ones beyond: six-piece slices. Forced wide here, on the tables under test.
    CHECK_FALSE(needs_wide_position_ids(uint64_t(1) << 30));
    CHECK(needs_wide_position_ids((uint64_t(1) << 30) + 1));
    TableSet wide;
    GenerationOptions options;
    options.threads = 2;
    options.wide_ids = true;
    for (const char* name : table_names()) {
        INFO(name);
        const auto t = generate_table(*Material::parse(name), wide, options);
        const TableValues& narrow = table(name);
        for (Color c : {WHITE, BLACK}) {
            CHECK(t->dtm[c] == narrow.dtm[c]);
            CHECK(t->dtz[c] == narrow.dtz[c]);
            CHECK(t->capture_resolved[c] == narrow.capture_resolved[c]);
            CHECK(t->promotion_resolved[c] == narrow.promotion_resolved[c]);
            CHECK(t->moves_resolved_dtm[c] == narrow.moves_resolved_dtm[c]);
        }
        wide.add(t);
    }
}

TEST_CASE("published longest mates are reproduced", "[tb][generator]") {
    CHECK(longest_win_in_moves(table("KQvK")) == 10);
    CHECK(longest_win_in_moves(table("KRvK")) == 16);
    CHECK(longest_win_in_moves(table("KPvK")) == 28);
    CHECK(longest_win_in_moves(table("KQvKR")) == 35);
    if (test::light_mode()) return;  // the others are not generated in light mode
    CHECK(longest_win_in_moves(table("KBBvK")) == 19);
    CHECK(longest_win_in_moves(table("KBNvK")) == 33);
    CHECK(longest_win_in_moves(table("KRvKR")) == 19);
}

TEST_CASE("legal position counts of KRvK match Gaviota's published figures", "[tb][generator]") {
    // 175,168 placements with White to move and 223,944 with Black to move, counted over the
    // whole board: expand each stored position by the number of board symmetries it stands for.
    const TableValues& t = table("KRvK");
    uint64_t counts[2] = {};
    for (uint64_t i = 0; i < t.index.size(); ++i) {
        Placement p;
        if (!t.index.decode(i, p)) continue;
        int images = 0;
        std::vector<std::array<Square, 3>> seen;
        for (int tr = 0; tr < 8; ++tr) {
            std::array<Square, 3> img{transform_square(p[0], tr), transform_square(p[1], tr),
                                      transform_square(p[2], tr)};
            if (std::find(seen.begin(), seen.end(), img) == seen.end()) seen.push_back(img), ++images;
        }
        for (Color c : {WHITE, BLACK})
            if (!is_illegal(t.dtm[c][i])) counts[c] += images;
    }
    CHECK(counts[WHITE] == 175168);
    CHECK(counts[BLACK] == 223944);
}

TEST_CASE("under-promotion: a rook wins where a queen stalemates", "[tb][generator]") {
    const TableValues& t = table("KPvK");
    Position pos;
    REQUIRE(pos.set_fen("8/1P6/8/8/8/8/8/5K1k w - - 0 1"));
    TbBoard b;
    PieceOn pcs[3] = {{WHITE, KING, SQ_F1}, {BLACK, KING, SQ_H1}, {WHITE, PAWN, SQ_B7}};
    uint64_t i = t.index.encode(placement_for(t.index, pcs, 3));
    CHECK(is_win(t.dtm[WHITE][i]));
    // After b8=Q Black is stalemated; after b8=R Black is lost.
    Value q_dtm, q_dtz, r_dtm, r_dtz;
    PieceOn after_q[3] = {{WHITE, KING, SQ_F1}, {BLACK, KING, SQ_H1}, {WHITE, QUEEN, SQ_B8}};
    PieceOn after_r[3] = {{WHITE, KING, SQ_F1}, {BLACK, KING, SQ_H1}, {WHITE, ROOK, SQ_B8}};
    REQUIRE(generated().lookup(after_q, 3, BLACK, q_dtm, q_dtz));
    REQUIRE(generated().lookup(after_r, 3, BLACK, r_dtm, r_dtz));
    CHECK(is_draw(q_dtm));
    CHECK(is_loss(r_dtm));
    CHECK(distance_of(t.dtm[WHITE][i]) == distance_of(r_dtm) + 1);
    (void)b;
}

TEST_CASE("the verifier accepts generated tables and catches a wrong value", "[tb][generator][verify]") {
    for (const char* name : {"KQvK", "KPvK", test::light_mode() ? "KQvKR" : "KRvKR"}) {
        INFO(name);
        VerifyReport ok = verify_table(table(name), generated(), 2);
        CHECK(ok.positions > 40000);
        CHECK(ok.mismatches == 0);
    }
    // Shorten one win by two plies: the verifier must notice.
    TableValues broken = table("KRvK");
    uint64_t victim = 0;
    while (!(is_win(broken.dtm[WHITE][victim]) && distance_of(broken.dtm[WHITE][victim]) > 5)) ++victim;
    broken.dtm[WHITE][victim] = win_in(distance_of(broken.dtm[WHITE][victim]) - 2);
    VerifyReport bad = verify_table(broken, generated(), 2);
    CHECK(bad.mismatches >= 1);
    REQUIRE_FALSE(bad.examples.empty());
    CHECK(bad.examples[0].find("DTM") != std::string::npos);

    // Lengthen one loss's DTZ by two plies, on the other side to move.
    TableValues slow = table("KRvK");
    victim = 0;
    while (!(is_loss(slow.dtz[BLACK][victim]) && distance_of(slow.dtz[BLACK][victim]) > 5)) ++victim;
    slow.dtz[BLACK][victim] = loss_in(distance_of(slow.dtz[BLACK][victim]) + 2);
    VerifyReport late = verify_table(slow, generated(), 2);
    CHECK(late.mismatches >= 1);
    // The victim itself, or a predecessor that now wins more slowly through it.
    CHECK(std::any_of(late.examples.begin(), late.examples.end(),
                      [](const std::string& e) { return e.find("DTZ loss in") != std::string::npos; }));

    // A wrong subtable shows where captures lead into it: KQvKR checked against a KRvK in
    // which every position is a draw (Black capturing the queen reaches it colour-flipped).
    TableSet drawn;
    drawn.add(std::make_shared<TableValues>(table("KQvK")));
    auto krk = std::make_shared<TableValues>(table("KRvK"));
    for (Color c : {WHITE, BLACK})
        for (uint64_t i = 0; i < krk->index.size(); ++i)
            if (!is_illegal(krk->dtm[c][i])) krk->dtm[c][i] = krk->dtz[c][i] = VALUE_UNKNOWN;
    drawn.add(krk);
    CHECK(verify_table(table("KQvKR"), drawn, 2).mismatches > 0);
    CHECK(verify_table(table("KQvKR"), generated(), 2).mismatches == 0);
}

namespace {

// Checks that a generator's record (bits per position and side) equals what a search finds;
// returns how many positions the search set.
uint64_t check_record_equals_search(const PositionBits (&recorded)[COLOR_NB],
                                    const std::array<PositionBits, COLOR_NB>& searched) {
    uint64_t set = 0;
    for (Color c : {WHITE, BLACK}) {
        REQUIRE(recorded[c].size() == searched[c].size());
        uint64_t differing = 0;
        for (size_t w = 0; w < searched[c].size(); ++w) {
            differing += std::popcount(recorded[c][w] ^ searched[c][w]);
            set += std::popcount(searched[c][w]);
        }
        CHECK(differing == 0);
    }
    return set;
}

}  // namespace

TEST_CASE("the generator records the capture-resolved positions a search of the captures finds", "[tb][generator]") {
    // The WDL files leave these positions "don't care"; the writer uses the generator's record
    // and searches the captures itself only for tables loaded from files.
    for (const char* name : table_names()) {
        INFO(name);
        const TableValues& t = table(name);
        // Every table under test has captures that decide positions (the king takes a piece).
        CHECK(check_record_equals_search(t.capture_resolved, search_capture_resolved(t, generated(), 2)) > 0);
    }
}

TEST_CASE("the generator records the positions whose DTM a capture or promotion achieves, as a search finds them",
          "[tb][generator]") {
    // DTM sections with FLAG_MOVES_RESOLVED store these positions' values low; the writer uses
    // the generator's record and searches the moves itself only for tables loaded from files.
    for (const char* name : table_names()) {
        INFO(name);
        const TableValues& t = table(name);
        // Every table under test has captures that reach its DTM.
        CHECK(check_record_equals_search(t.moves_resolved_dtm, search_moves_resolved_dtm(t, generated(), 2)) > 0);
    }
}

TEST_CASE("the generator records the positions a queen promotion resolves as a search finds them",
          "[tb][generator][promoted]") {
    // WDL sections with FLAG_PROMOTIONS_RESOLVED leave these low too; tables without pawns have
    // no record. KPvK is the pawn table under test: White's pawn promotes, Black has none.
    uint64_t pawn_tables = 0;
    for (const char* name : table_names()) {
        INFO(name);
        const TableValues& t = table(name);
        const auto searched = search_promotion_resolved(t, generated(), 2);
        for (Color c : {WHITE, BLACK}) {
            REQUIRE(t.promotion_resolved[c].size() == searched[c].size());
            CHECK(t.promotion_resolved[c].empty() == !t.index.has_pawns());
            uint64_t differing = 0, resolved = 0;
            for (size_t w = 0; w < searched[c].size(); ++w) {
                differing += std::popcount(t.promotion_resolved[c][w] ^ searched[c][w]);
                resolved += std::popcount(searched[c][w]);
            }
            CHECK(differing == 0);
            if (t.index.has_pawns()) CHECK((resolved > 0) == (t.index.material().count(c, PAWN) > 0));
        }
        pawn_tables += t.index.has_pawns();
    }
    CHECK(pawn_tables > 0);
}
