// The net file: a 48-byte header, then the int16 weights (little-endian) in Network's order:
// feature weights (INPUTS x HIDDEN, input-major), feature bias (HIDDEN), output weights
// (2 x HIDDEN), output bias (1).
//
//   offset  size  field
//   0       8     magic "PYTHNNUE"
//   8       4     format version (NET_FORMAT_VERSION)
//   12      4     inputs (768)      16  4  hidden (HIDDEN)   20  4  activation (1: SCReLU)
//   24      4     QA                28  4  QB                32  4  scale
//   36      4     reserved, 0
//   40      8     xxHash64 (seed 0) of everything after the header
//
// A file that differs in any of these, in its length, or whose output weights break the
// inference's limit, is refused with a message naming the reason; nothing changes then.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "eval/nnue/network.h"

namespace pythia::nnue {

constexpr char NET_MAGIC[8] = {'P', 'Y', 'T', 'H', 'N', 'N', 'U', 'E'};
constexpr uint32_t NET_FORMAT_VERSION = 1;
constexpr uint32_t ACTIVATION_SCRELU = 1;
constexpr size_t NET_HEADER_BYTES = 48;
constexpr size_t NET_PAYLOAD_BYTES = sizeof(int16_t) * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN + 1);
constexpr size_t NET_FILE_BYTES = NET_HEADER_BYTES + NET_PAYLOAD_BYTES;

// The network in `bytes`, or nullptr with `error` saying why not.
std::unique_ptr<Network> parse_network(std::span<const uint8_t> bytes, std::string& error);
// The bytes of a net file holding `net` (for tests and tools).
std::string serialize_network(const Network& net);

}  // namespace pythia::nnue
