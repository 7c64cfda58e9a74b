#include <catch2/catch.hpp>

#include <random>

#include "tablebase/format/table_index.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

// True if b is a's placement after some symmetry the table allows, up to the order of
// identical pieces.
bool same_position(const TableIndex& t, const Placement& a, const Placement& b) {
    for (int tr = 0; tr < 8; ++tr) {
        if (t.has_pawns() && tr > 1) break;  // pawn tables: identity and the file mirror only
        bool equal = true;
        for (int i = 0; i < t.num_slots() && equal; ++i) {
            Square s = transform_square(a[i], tr);
            bool found = false;
            for (int j = 0; j < t.num_slots(); ++j)
                if (b[j] == s && t.slot(j).color == t.slot(i).color && t.slot(j).type == t.slot(i).type) found = true;
            equal = found;
        }
        if (equal) return true;
    }
    return false;
}

bool legal_squares(const TableIndex& t, const Placement& p) {
    Bitboard seen = 0;
    for (int i = 0; i < t.num_slots(); ++i) {
        if (seen & square_bb(p[i])) return false;
        seen |= square_bb(p[i]);
        if (t.slot(i).type == PAWN && (rank_of(p[i]) == RANK_1 || rank_of(p[i]) == RANK_8)) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("every index of every 3- and 4-piece table decodes and encodes back", "[tb][index]") {
    for (const Material& m : all_materials(4)) {
        TableIndex t(m);
        INFO(m.name());
        // Counted, not asserted one by one: millions of assertions would dominate the run time.
        // Light mode (sanitizers): every 7th index of the 4-piece tables.
        const uint64_t stride = test::light_mode() && m.total() == 4 ? 7 : 1;
        uint64_t valid = 0, bad = 0, first_bad = 0, tried = 0;
        for (uint64_t i = 0; i < t.size(); i += stride) {
            ++tried;
            Placement p;
            if (!t.decode(i, p)) continue;
            ++valid;
            if (!legal_squares(t, p) || t.encode(p) != i) {
                if (!bad++) first_bad = i;
            }
        }
        INFO("first failing index " << first_bad);
        CHECK(bad == 0);
        CHECK(valid > tried / 2);
    }
}

TEST_CASE("every placement of the 3-piece tables maps to an index of the same position", "[tb][index]") {
    for (const Material& m : all_materials(3)) {
        TableIndex t(m);
        INFO(m.name());
        uint64_t bad = 0;
        for (int a = 0; a < 64; ++a)
            for (int b = 0; b < 64; ++b)
                for (int c = 0; c < 64; ++c) {
                    Placement p{Square(a), Square(b), Square(c)};
                    if (!legal_squares(t, p)) continue;
                    if (distance(Square(a), Square(b)) <= 1) continue;  // kings never touch
                    uint64_t i = t.encode(p);
                    Placement q;
                    if (i >= t.size() || !t.decode(i, q) || !same_position(t, p, q)) ++bad;
                }
        CHECK(bad == 0);
    }
}

TEST_CASE("random placements of 4- to 6-piece tables map to an index of the same position", "[tb][index]") {
    // Every 4- and 5-piece table, and 6-piece ones with four, three and two like pieces (the
    // groups' ranks by bitboard against their unranking by search).
    std::mt19937_64 rng(12345);
    std::vector<Material> materials;
    for (const Material& m : all_materials(5))
        if (m.total() >= 4) materials.push_back(m);
    for (const char* name : {"KRRRRvK", "KBBBvKN", "KNNNvKP", "KQQvKQQ"}) materials.push_back(*Material::parse(name));
    for (const Material& m : materials) {
        TableIndex t(m);
        INFO(m.name());
        int tested = 0;
        while (tested < 2000) {
            Placement p;
            for (int i = 0; i < t.num_slots(); ++i) p[i] = Square(rng() % 64);
            if (!legal_squares(t, p) || distance(p[0], p[1]) <= 1) continue;
            uint64_t i = t.encode(p);
            Placement q;
            REQUIRE(i < t.size());
            REQUIRE(t.decode(i, q));
            REQUIRE(same_position(t, p, q));
            REQUIRE(t.encode(q) == i);
            ++tested;
        }
    }
}

TEST_CASE("pawnless tables use 462 king pairs, pawn tables 24 single-pawn slices", "[tb][index]") {
    TableIndex kqk(*Material::parse("KQvK"));
    CHECK(kqk.size() == 462 * 64);
    TableIndex kpk(*Material::parse("KPvK"));
    CHECK(kpk.num_slices() == 24);
    CHECK(kpk.size() == 24 * 64 * 64);
    TableIndex krrk(*Material::parse("KRRvK"));
    CHECK(krrk.size() == 462 * 2016);  // two identical rooks: C(64, 2) placements
}

TEST_CASE("moving one piece gives the index that encoding the moved placement gives", "[tb][index]") {
    // encode_moved is the solver's shortcut for every un-move: it must agree with encode for
    // every piece and every target square (kings never next to each other, as in the solver),
    // including the kings on the long diagonal and identical pieces. Every index of the
    // 3-piece tables, a sample of the 4- and 5-piece ones and of 6-piece ones with four and
    // three like pieces.
    std::mt19937_64 rng(11);
    std::vector<Material> materials = all_materials(5);
    for (const char* name : {"KRRRRvK", "KBBBvKN", "KNNNvKP", "KQQvKQQ"}) materials.push_back(*Material::parse(name));
    for (const Material& m : materials) {
        const TableIndex t(m);
        INFO(m.name());
        const bool every = m.total() == 3;
        const uint64_t samples = every ? t.size() : test::light_mode() ? 300 : 3000;
        uint64_t tried = 0, bad = 0;
        for (uint64_t k = 0; k < samples; ++k) {
            const uint64_t i = every ? k : rng() % t.size();
            Placement p;
            if (!t.decode(i, p)) continue;
            Bitboard occupied = 0;
            for (int s = 0; s < t.num_slots(); ++s) occupied |= square_bb(p[s]);
            for (int slot = 0; slot < t.num_slots(); ++slot) {
                if (t.slot(slot).type == PAWN) continue;
                for (Bitboard targets = ~occupied; targets;) {
                    const Square to = pop_lsb(targets);
                    if (slot < 2 && distance(to, p[1 - slot]) <= 1) continue;
                    Placement moved = p;
                    moved[slot] = to;
                    ++tried;
                    if (t.encode_moved(i, p, slot, to) != t.encode(moved)) ++bad;
                }
            }
        }
        CHECK(bad == 0);
        CHECK(tried > 0);
    }
}
