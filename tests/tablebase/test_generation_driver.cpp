// The generation driver's memory budget: tables that do not fit are dropped and loaded back
// from the store when a later table needs them, and the results do not change.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <map>

#include "tablebase/generation_driver.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

// A store in memory that counts its loads.
struct MemoryStore {
    std::map<std::string, std::shared_ptr<TableValues>> tables;
    int loads = 0;

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
        s.save = [this](const TableValues& t, const TableSet&, double, int) {
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

TEST_CASE("the generation driver stays within its memory budget by loading tables back", "[tb][driver]") {
    MemoryStore roomy, tight;
    const auto roomy_report = generate(roomy, size_t(1) << 32);
    // A budget too small for any kept table: every subtable is loaded back for each table.
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

TEST_CASE("the default memory budget is part of the machine's memory", "[tb][driver]") {
    const size_t budget = default_memory_budget();
    CHECK(budget >= size_t(256) << 20);
    CHECK(budget < size_t(sysconf(_SC_PHYS_PAGES)) * size_t(sysconf(_SC_PAGE_SIZE)));
}
