// Diagnostics go to stderr through spdlog; stdout belongs to the UCI protocol.
#pragma once

namespace pythia {

// Installs a stderr logger as spdlog's default. Safe to call more than once.
void init_logging();

}  // namespace pythia
