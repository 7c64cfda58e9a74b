// A table file's bytes, read, changed and written back: for the tests and the fuzz target that
// feed the reader damaged files (tests/tablebase, tests/fuzz/fuzz_tablebase.cpp).
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "tablebase/format/file_format.h"

namespace pythia::test {

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Recomputes both checksums of a table file's bytes, so that a changed field is judged by the
// field checks rather than by the checksums. Bytes too short for a header are left as they are.
inline void fix_checksums(std::vector<uint8_t>& bytes) {
    tb::FileHeader h;
    if (bytes.size() < sizeof h) return;
    std::memcpy(&h, bytes.data(), sizeof h);
    if (h.header_size > bytes.size() || h.header_size < sizeof h) return;
    h.payload_hash = XXH3_64bits(bytes.data() + h.header_size, bytes.size() - h.header_size);
    h.header_hash = 0;
    std::memcpy(bytes.data(), &h, sizeof h);
    h.header_hash = XXH3_64bits(bytes.data(), h.header_size);
    std::memcpy(bytes.data(), &h, sizeof h);
}

}  // namespace pythia::test
