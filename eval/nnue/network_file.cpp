#include "eval/nnue/network_file.h"

#include <bit>
#include <cstring>

#include <xxhash.h>

namespace pythia::nnue {

static_assert(std::endian::native == std::endian::little, "net files are little-endian and read in place");

namespace {

uint32_t read_u32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

uint64_t read_u64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

void put_u32(std::string& out, size_t at, uint32_t v) { std::memcpy(out.data() + at, &v, sizeof v); }

// The fields a reader must agree with, in header order from offset 8.
struct Expected {
    const char* name;
    uint32_t value;
};
constexpr Expected HEADER_FIELDS[] = {
    {"format version", NET_FORMAT_VERSION},
    {"inputs", INPUTS},
    {"hidden", HIDDEN},
    {"activation", ACTIVATION_SCRELU},
    {"QA", QA},
    {"QB", QB},
    {"scale", SCALE},
    {"reserved", 0},
};

}  // namespace

std::unique_ptr<Network> parse_network(std::span<const uint8_t> bytes, std::string& error) {
    if (bytes.size() < NET_HEADER_BYTES || std::memcmp(bytes.data(), NET_MAGIC, sizeof NET_MAGIC) != 0) {
        error = "not a Pythia net file (no PYTHNNUE header)";
        return nullptr;
    }
    for (size_t i = 0; i < std::size(HEADER_FIELDS); ++i) {
        const uint32_t v = read_u32(bytes.data() + 8 + 4 * i);
        if (v != HEADER_FIELDS[i].value) {
            error = "net file has " + std::string(HEADER_FIELDS[i].name) + " " + std::to_string(v) +
                    ", this engine needs " + std::to_string(HEADER_FIELDS[i].value);
            return nullptr;
        }
    }
    if (bytes.size() != NET_FILE_BYTES) {
        error = "net file is " + std::to_string(bytes.size()) + " bytes, a net of this architecture is " +
                std::to_string(NET_FILE_BYTES) + (bytes.size() < NET_FILE_BYTES ? " (truncated)" : "");
        return nullptr;
    }
    const uint8_t* payload = bytes.data() + NET_HEADER_BYTES;
    if (XXH64(payload, NET_PAYLOAD_BYTES, 0) != read_u64(bytes.data() + 40)) {
        error = "net file checksum mismatch (corrupt)";
        return nullptr;
    }
    auto net = std::make_unique<Network>();
    const int16_t* p = reinterpret_cast<const int16_t*>(payload);  // any alignment: memcpy below
    auto take = [&p](int16_t* dst, size_t n) {
        std::memcpy(dst, p, n * sizeof(int16_t));
        p += n;
    };
    take(net->feature_weights, INPUTS * HIDDEN);
    take(net->feature_bias, HIDDEN);
    take(net->output_weights, 2 * HIDDEN);
    take(&net->output_bias, 1);
    for (int16_t w : net->output_weights)
        if (w > OUTPUT_WEIGHT_LIMIT || w < -OUTPUT_WEIGHT_LIMIT) {
            error = "net file has an output weight of " + std::to_string(w) + ", beyond the limit of +-" +
                    std::to_string(OUTPUT_WEIGHT_LIMIT);
            return nullptr;
        }
    return net;
}

std::string serialize_network(const Network& net) {
    std::string out(NET_FILE_BYTES, '\0');
    std::memcpy(out.data(), NET_MAGIC, sizeof NET_MAGIC);
    for (size_t i = 0; i < std::size(HEADER_FIELDS); ++i) put_u32(out, 8 + 4 * i, HEADER_FIELDS[i].value);
    char* p = out.data() + NET_HEADER_BYTES;
    auto put = [&p](const int16_t* src, size_t n) {
        std::memcpy(p, src, n * sizeof(int16_t));
        p += n * sizeof(int16_t);
    };
    put(net.feature_weights, INPUTS * HIDDEN);
    put(net.feature_bias, HIDDEN);
    put(net.output_weights, 2 * HIDDEN);
    put(&net.output_bias, 1);
    const uint64_t hash = XXH64(out.data() + NET_HEADER_BYTES, NET_PAYLOAD_BYTES, 0);
    std::memcpy(out.data() + 40, &hash, sizeof hash);
    return out;
}

}  // namespace pythia::nnue
