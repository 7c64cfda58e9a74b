// A search constant that SPSA may tune (scripts/spsa). In the ordinary builds it is a constexpr
// int. In the tuning build (cmake --preset tune, which defines PYTHIA_TUNE) it is a variable with
// a UCI spin option of the same name and range, so that a tuner can set it between games.
#pragma once

#ifdef PYTHIA_TUNE

#include <vector>

namespace pythia::search_params {

struct Tunable {
    const char* name;
    int* value;
    int min, max;
};

// Every tunable constant in declaration order (inline variables of one header are initialised
// in the order they are defined).
inline std::vector<Tunable>& tunables() {
    static std::vector<Tunable> list;
    return list;
}

struct TunableRegistration {
    TunableRegistration(const char* name, int* value, int min, int max) {
        tunables().push_back({name, value, min, max});
    }
};

}  // namespace pythia::search_params

#define PYTHIA_TUNABLE(name, value, min, max) \
    inline int name = value;                  \
    inline const TunableRegistration name##_registration { #name, &name, min, max }

#else

#define PYTHIA_TUNABLE(name, value, min, max) \
    constexpr int name = value;               \
    static_assert((min) <= (value) && (value) <= (max), #name " outside its tuning range")

#endif
