// The engine's default 3-4-piece tables (PYTHIA_DEFAULT_TB_DIR, which scripts/test makes), as
// a referee for tests that play through the UCI pipe.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "tablebase/probe/tablebases.h"
#include "test_mode.h"

namespace pythia::test {

// The default tables, opened once; null when they are not there (up to 4 pieces).
inline const tb::Tablebases* default_tables() {
    static tb::Tablebases tables;
    static const bool loaded = [] {
        tables.set_paths(PYTHIA_DEFAULT_TB_DIR);
        return tables.max_pieces() >= 4;
    }();
    return loaded ? &tables : nullptr;
}

}  // namespace pythia::test

// Declares `tables` (the default tables) or ends the test case: a skip, or a failure under CI,
// where scripts/test has made them.
#define REQUIRE_DEFAULT_TABLES()                                                                     \
    const tb::Tablebases* tables = pythia::test::default_tables();                                   \
    if (!tables) {                                                                                   \
        if (pythia::test::in_ci()) FAIL("no 3-4-piece tables in " PYTHIA_DEFAULT_TB_DIR);            \
        WARN("skipped: no 3-4-piece tables in " PYTHIA_DEFAULT_TB_DIR " (scripts/test makes them)"); \
        return;                                                                                      \
    }
