// The generation driver's memory budget: which kept tables are dropped to make room, and tables
// that are not kept are loaded back from the store with the same results.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <map>

#include "tablebase/generation_driver.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

// A store in memory that counts its loads.
struct MemoryStore {
    std::map<std::string, std::shared_ptr<TableValues>> tables;
    int loads = 0;
    size_t most_subtables_saved_with = 0;  // the largest set of subtables a write was given

    TableStore store() {
        TableStore s;
        s.present = [this](const Material& m, std::string*) { return tables.count(m.name()) > 0; };
        s.load = [this](const Material& m, std::string* error) -> std::shared_ptr<TableValues> {
            ++loads;
            auto it = tables.find(m.name());
            if (it == tables.end()) {
                if (error) *error = "not stored";
                return nullptr;
            }
            return it->second;
        };
        s.save = [this](const TableValues& t, const TableSet& subtables, double, int) {
            most_subtables_saved_with = std::max(most_subtables_saved_with, subtables.size());
            tables[t.index.material().name()] = std::make_shared<TableValues>(t);
        };
        return s;
    }
};

std::vector<GeneratedTable> generate(MemoryStore& ms, size_t budget) {
    DriverOptions options;
    options.threads = 2;
    options.memory_budget = budget;
    return generate_tables({*Material::parse("KQvKR"), *Material::parse("KRvKR")}, ms.store(), options);
}

}  // namespace

TEST_CASE("kept tables are dropped largest first, never those the next table needs", "[tb][driver]") {
    const std::vector<KeptTable> kept = {{"A", 5, false}, {"B", 3, true}, {"C", 4, false}};
    using Names = std::vector<std::string>;
    CHECK(tables_to_drop(kept, 6, 18) == Names{});          // 5 + 3 + 4 + 6 = 18 fits
    CHECK(tables_to_drop(kept, 6, 14) == Names{"A"});       // 13 fits
    CHECK(tables_to_drop(kept, 6, 10) == Names{"A", "C"});  // 9 fits
    CHECK(tables_to_drop(kept, 6, 2) == Names{"A", "C"});   // B is needed: 9 is the least
}

TEST_CASE("the generation driver loads back the tables it does not keep, with the same results", "[tb][driver]") {
    MemoryStore roomy, tight;
    const auto roomy_report = generate(roomy, size_t(1) << 32);
    // A budget too small for any kept table.
    const auto tight_report = generate(tight, 1);
    REQUIRE(roomy_report.size() == tight_report.size());
    CHECK(roomy_report.size() == 4);  // KQvK, KRvK, KQvKR, KRvKR
    CHECK(roomy.loads == 0);
    // KQvK and KRvK are not kept after their generation and are loaded for KQvKR; KRvK, which
    // KRvKR needs too, stays (a table's own subtables are never dropped).
    CHECK(tight.loads == 2);
    for (const auto& [name, t] : roomy.tables) {
        INFO(name);
        REQUIRE(tight.tables.count(name));
        const TableValues& u = *tight.tables[name];
        for (Color c : {WHITE, BLACK}) {
            CHECK(t->dtm[c] == u.dtm[c]);
            CHECK(t->dtz[c] == u.dtz[c]);
        }
    }
}

TEST_CASE("a generated table is written without holding its subtables", "[tb][driver]") {
    // The write runs beside the next generation; the subtables it would hold are memory the
    // budget could not free. The generator records the capture-resolved positions, so the
    // writer does not need them.
    MemoryStore ms;
    generate(ms, size_t(1) << 32);
    for (const auto& [name, t] : ms.tables) {
        INFO(name);
        CHECK(!t->capture_resolved[WHITE].empty());
    }
    CHECK(ms.most_subtables_saved_with == 0);
}

TEST_CASE("the default memory budget is part of the machine's memory", "[tb][driver]") {
    const size_t budget = default_memory_budget();
    CHECK(budget >= size_t(256) << 20);
    CHECK(budget < size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE)));
}
