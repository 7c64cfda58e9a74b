// How thorough the tests are. The sanitize preset sets PYTHIA_TEST_LIGHT=1 (CMakePresets.json):
// under ASan + UBSan the exhaustive tablebase tests would take most of CI's time, so they
// check a sample (every test still runs). Release and debug runs are exhaustive.
#pragma once

#include <cstdlib>
#include <cstring>

namespace pythia::test {

inline bool light_mode() {
    const char* v = std::getenv("PYTHIA_TEST_LIGHT");
    return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace pythia::test
