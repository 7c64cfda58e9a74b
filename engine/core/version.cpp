#include "engine/core/version.h"

#include "pythia_version.h"  // generated at build time (cmake/version.cmake)

namespace pythia {

std::string version_string() {
    const std::string commit = PYTHIA_GIT_COMMIT;
    return commit.empty() ? std::string(PYTHIA_VERSION) : std::string(PYTHIA_VERSION) + " (" + commit + ")";
}

std::string engine_name() { return "Pythia " + version_string(); }

}  // namespace pythia
