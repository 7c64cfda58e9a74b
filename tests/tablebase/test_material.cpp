#include <catch2/catch.hpp>

#include "tablebase/format/material.h"

using namespace pythia;
using namespace pythia::tb;

TEST_CASE("material names parse, normalise and print", "[tb][material]") {
    auto m = Material::parse("KRvKQ");
    REQUIRE(m);
    CHECK(m->name() == "KRvKQ");
    CHECK_FALSE(m->is_normalized());
    CHECK(m->normalized().name() == "KQvKR");
    CHECK(Material::parse("kbvkn")->normalized().name() == "KBvKN");
    CHECK(Material::parse("KvKNN")->normalized().name() == "KNNvK");
    CHECK(Material::parse("KPvKQ")->normalized().name() == "KQvKP");
    CHECK_FALSE(Material::parse("KQK"));
    CHECK_FALSE(Material::parse("KQvQ"));
    CHECK_FALSE(Material::parse("KXvK"));
    CHECK_FALSE(Material::parse("KKvK"));
}

TEST_CASE("there are 5 three-piece, 30 four-piece and 110 five-piece tables", "[tb][material]") {
    CHECK(all_materials(3).size() == 5);
    CHECK(all_materials(4).size() == 35);
    CHECK(all_materials(5).size() == 145);
}

TEST_CASE("tables come after everything they convert into", "[tb][material]") {
    auto all = all_materials(5);
    for (size_t i = 0; i < all.size(); ++i)
        for (const Material& s : all[i].successors()) {
            if (s.total() < 3) continue;
            auto it = std::find(all.begin(), all.end(), s);
            INFO(all[i].name() << " -> " << s.name());
            REQUIRE(it != all.end());
            CHECK(it - all.begin() < long(i));
        }
    auto deps = with_dependencies({*Material::parse("KPvKP")});
    std::vector<std::string> names;
    for (auto& m : deps) names.push_back(m.name());
    CHECK(names.back() == "KPvKP");
    CHECK(std::find(names.begin(), names.end(), "KQvKP") != names.end());
    CHECK(std::find(names.begin(), names.end(), "KQvKQ") != names.end());
    CHECK(std::find(names.begin(), names.end(), "KNvK") != names.end());
}

TEST_CASE("successors include captures that promote", "[tb][material]") {
    auto names = [](const char* material) {
        std::vector<std::string> out;
        for (const Material& s : Material::parse(material)->successors()) out.push_back(s.name());
        std::sort(out.begin(), out.end());
        return out;
    };
    // The black pawn takes the bishop on the first rank and promotes: KQvK, KRvK, KBvK, KNvK.
    CHECK(names("KBvKP") ==
          std::vector<std::string>{"KBvK", "KBvKB", "KBvKN", "KNvK", "KPvK", "KQvK", "KQvKB", "KRvK", "KRvKB"});
    // A pawn cannot take a pawn while promoting, and never a piece of its own side.
    CHECK(names("KPvKP") == std::vector<std::string>{"KBvKP", "KNvKP", "KPvK", "KQvKP", "KRvKP"});
}
