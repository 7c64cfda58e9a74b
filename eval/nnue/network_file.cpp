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

// The header's fields from offset 8, as the reader takes them.
struct Header {
    uint32_t version, inputs, hidden, activation, qa, qb, scale, flags;
};

Header read_header(const uint8_t* p) {
    uint32_t f[8];
    for (int i = 0; i < 8; ++i) f[i] = read_u32(p + 8 + 4 * i);
    return {f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]};
}

// Why a header cannot be read, or "" when it can.
std::string header_problem(const Header& h) {
    auto has = [](const char* field, uint32_t v, const std::string& needed) {
        return "net file has " + std::string(field) + " " + std::to_string(v) + ", this engine needs " + needed;
    };
    if (h.version != NET_FORMAT_PLAIN && h.version != NET_FORMAT_BUCKETED)
        return has("format version", h.version, "1 or 2");
    const uint32_t max_inputs = h.version == NET_FORMAT_PLAIN ? PIECE_INPUTS : PIECE_INPUTS * MAX_KING_BUCKETS;
    if (h.inputs == 0 || h.inputs % PIECE_INPUTS || h.inputs > max_inputs)
        return has("inputs", h.inputs, h.version == NET_FORMAT_PLAIN ? "768" : "768 times 1 to 32 king buckets");
    if (h.hidden == 0 || h.hidden % HIDDEN_STEP || h.hidden > MAX_HIDDEN)
        return has("hidden", h.hidden, "a multiple of 16 up to 1024");
    if (h.activation != ACTIVATION_SCRELU) return has("activation", h.activation, "1 (SCReLU)");
    if (h.qa != QA) return has("QA", h.qa, std::to_string(QA));
    if (h.qb != QB) return has("QB", h.qb, std::to_string(QB));
    if (h.scale != SCALE) return has("scale", h.scale, std::to_string(SCALE));
    const uint32_t known_flags = h.version == NET_FORMAT_PLAIN ? 0 : FLAG_MIRRORED;
    if (h.flags & ~known_flags) return has(h.version == NET_FORMAT_PLAIN ? "reserved" : "flags", h.flags, "no others");
    return "";
}

}  // namespace

size_t net_file_bytes(int hidden, int king_buckets, bool with_buckets) {
    const size_t weights = size_t(king_buckets) * PIECE_INPUTS * hidden + hidden + 2 * size_t(hidden) + 1;
    return NET_HEADER_BYTES + (with_buckets ? NET_BUCKETS_BYTES : 0) + sizeof(int16_t) * weights;
}

std::unique_ptr<Network> parse_network(std::span<const uint8_t> bytes, std::string& error) {
    if (bytes.size() < NET_HEADER_BYTES || std::memcmp(bytes.data(), NET_MAGIC, sizeof NET_MAGIC) != 0) {
        error = "not a Pythia net file (no PYTHNNUE header)";
        return nullptr;
    }
    const Header h = read_header(bytes.data());
    if (std::string problem = header_problem(h); !problem.empty()) {
        error = problem;
        return nullptr;
    }
    const bool with_buckets = h.version == NET_FORMAT_BUCKETED;
    const int king_buckets = int(h.inputs / PIECE_INPUTS), hidden = int(h.hidden);
    const size_t expected = net_file_bytes(hidden, king_buckets, with_buckets);
    if (bytes.size() != expected) {
        error = "net file is " + std::to_string(bytes.size()) + " bytes, a net of its shape is " +
                std::to_string(expected) + (bytes.size() < expected ? " (truncated)" : "");
        return nullptr;
    }
    const uint8_t* after_header = bytes.data() + NET_HEADER_BYTES;
    if (XXH64(after_header, expected - NET_HEADER_BYTES, 0) != read_u64(bytes.data() + 40)) {
        error = "net file checksum mismatch (corrupt)";
        return nullptr;
    }
    auto net = std::make_unique<Network>(Network::of_shape(hidden, king_buckets, h.flags & FLAG_MIRRORED));
    if (with_buckets) {
        std::memcpy(net->bucket_of.data(), after_header, NET_BUCKETS_BYTES);
        for (uint8_t b : net->bucket_of)
            if (b >= king_buckets) {
                error = "net file's king buckets table names bucket " + std::to_string(b) + " of " +
                        std::to_string(king_buckets);
                return nullptr;
            }
    }
    const uint8_t* p = after_header + (with_buckets ? NET_BUCKETS_BYTES : 0);  // any alignment: memcpy
    auto take = [&p](int16_t* dst, size_t n) {
        std::memcpy(dst, p, n * sizeof(int16_t));
        p += n * sizeof(int16_t);
    };
    take(net->feature_weights.data(), net->feature_weights.size());
    take(net->feature_bias.data(), net->feature_bias.size());
    take(net->output_weights.data(), net->output_weights.size());
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
    const bool with_buckets = !net.plain();
    std::string out(net_file_bytes(net.hidden, net.king_buckets, with_buckets), '\0');
    std::memcpy(out.data(), NET_MAGIC, sizeof NET_MAGIC);
    const uint32_t fields[8] = {with_buckets ? NET_FORMAT_BUCKETED : NET_FORMAT_PLAIN,
                                uint32_t(net.inputs()),
                                uint32_t(net.hidden),
                                ACTIVATION_SCRELU,
                                QA,
                                QB,
                                SCALE,
                                net.mirrored ? FLAG_MIRRORED : 0};
    for (int i = 0; i < 8; ++i) put_u32(out, 8 + 4 * size_t(i), fields[i]);
    char* p = out.data() + NET_HEADER_BYTES;
    if (with_buckets) {
        std::memcpy(p, net.bucket_of.data(), NET_BUCKETS_BYTES);
        p += NET_BUCKETS_BYTES;
    }
    auto put = [&p](const int16_t* src, size_t n) {
        std::memcpy(p, src, n * sizeof(int16_t));
        p += n * sizeof(int16_t);
    };
    put(net.feature_weights.data(), net.feature_weights.size());
    put(net.feature_bias.data(), net.feature_bias.size());
    put(net.output_weights.data(), net.output_weights.size());
    put(&net.output_bias, 1);
    const uint64_t hash = XXH64(out.data() + NET_HEADER_BYTES, out.size() - NET_HEADER_BYTES, 0);
    std::memcpy(out.data() + 40, &hash, sizeof hash);
    return out;
}

}  // namespace pythia::nnue
