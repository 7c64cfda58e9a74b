// The engine's version: the project version of CMakeLists.txt and, in a build from a git
// checkout, the short commit it was built from.
#pragma once

#include <string>

namespace pythia {

// "1.0.0 (abc1234)", "1.0.0 (abc1234-dirty)" with uncommitted changes, or "1.0.0" when
// built without git (from a tarball).
std::string version_string();
// "Pythia " + version_string(): the UCI `id name`, the bench header, `pythia --version`.
std::string engine_name();

}  // namespace pythia
