// The net file built into the binary (CMake's PYTHIA_EVALFILE); empty when the build embeds none.
#pragma once

#include <cstdint>
#include <span>

namespace pythia::nnue {

std::span<const uint8_t> embedded_net_bytes();

}  // namespace pythia::nnue
