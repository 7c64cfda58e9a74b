// How thorough the tests are. The sanitize preset sets PYTHIA_TEST_LIGHT=1 (CMakePresets.json):
// under ASan + UBSan the exhaustive tablebase tests would take most of CI's time, so they
// check a sample (every test still runs). Release and debug runs are exhaustive. And whether
// they run under CI, where a missing optional reference is a failure instead of a skip.
#pragma once

#include <cstdlib>
#include <cstring>

namespace pythia::test {

inline bool light_mode() {
    const char* v = std::getenv("PYTHIA_TEST_LIGHT");
    return v && *v && std::strcmp(v, "0") != 0;
}

// Under CI (environment CI=true) scripts/test has installed and made every optional reference
// (Debian's packages, the truth tables, the default tables), so a test that misses one fails.
inline bool in_ci() {
    const char* v = std::getenv("CI");
    return v && std::strcmp(v, "true") == 0;
}

}  // namespace pythia::test
