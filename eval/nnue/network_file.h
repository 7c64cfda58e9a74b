// The net file: a 48-byte header, in version 2 the king buckets' table, then the int16 weights
// (little-endian) in Network's order: feature weights (inputs x hidden, input-major), feature
// bias (hidden), output weights (2 x hidden), output bias (1).
//
//   offset  size  field
//   0       8     magic "PYTHNNUE"
//   8       4     format version: 1 (768 inputs, no king buckets) or 2 (king buckets)
//   12      4     inputs (768 x king buckets)   16  4  hidden (a multiple of 16, at most 1024)
//   20      4     activation (1: SCReLU)        24  4  QA       28  4  QB       32  4  scale
//   36      4     version 1: 0; version 2: flags (bit 0: mirrored left to right, network.h)
//   40      8     xxHash64 (seed 0) of everything after the header
//   48      64    version 2 only: the king bucket of each square of the perspective's own king
//
// A file that differs in any of these, in its length, whose buckets table names a bucket it has
// no inputs for, or whose output weights break the inference's limit, is refused with a message
// naming the reason; nothing changes then.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "eval/nnue/network.h"

namespace pythia::nnue {

constexpr char NET_MAGIC[8] = {'P', 'Y', 'T', 'H', 'N', 'N', 'U', 'E'};
constexpr uint32_t NET_FORMAT_PLAIN = 1;     // 768 inputs
constexpr uint32_t NET_FORMAT_BUCKETED = 2;  // king buckets, perhaps mirrored
constexpr uint32_t ACTIVATION_SCRELU = 1;
constexpr uint32_t FLAG_MIRRORED = 1;
constexpr size_t NET_HEADER_BYTES = 48;
constexpr size_t NET_BUCKETS_BYTES = 64;

// The bytes of a net file of this shape.
size_t net_file_bytes(int hidden, int king_buckets, bool bucketed);
// No net file is longer than this (the largest shape).
inline size_t max_net_file_bytes() { return net_file_bytes(MAX_HIDDEN, MAX_KING_BUCKETS, true); }

// The network in `bytes`, or nullptr with `error` saying why not.
std::unique_ptr<Network> parse_network(std::span<const uint8_t> bytes, std::string& error);
// The bytes of a net file holding `net` (for tests and tools): version 1 for a net of one king
// bucket and no mirroring, else version 2.
std::string serialize_network(const Network& net);

}  // namespace pythia::nnue
