#include "tablebase/generate/spill_file.h"

#include <lz4.h>
#include <spdlog/spdlog.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace pythia::tb {

namespace {

// Layout: the header, then per side held (White first) its DTM array and its cursed bits
// (TableValues::cursed: a spilled table is read back only for conversions), each in chunks of
// CHUNK_BYTES bytes: the compressed size (uint32), the XXH3 of the compressed bytes (uint64),
// the bytes.
constexpr char MAGIC[8] = {'P', 'Y', 'T', 'S', 'P', 'I', 'L', '3'};
constexpr int CHUNK_BYTES = 2 << 20;

struct SpillHeader {
    char magic[8];
    char material[16];  // the table's name, NUL-padded
    uint64_t positions;
    uint32_t sides;
    uint32_t reserved;
    uint64_t write_id;  // of the table's files (0: none)
};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

bool fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
}

bool write_bytes(std::FILE* f, const void* data, uint64_t bytes, std::vector<char>& buffer) {
    const char* from = static_cast<const char*>(data);
    for (uint64_t begin = 0; begin < bytes; begin += CHUNK_BYTES) {
        const int size_in = int(std::min<uint64_t>(CHUNK_BYTES, bytes - begin));
        const int packed = LZ4_compress_default(from + begin, buffer.data(), size_in, int(buffer.size()));
        if (packed <= 0) return false;
        const uint32_t size = uint32_t(packed);
        const uint64_t hash = XXH3_64bits(buffer.data(), size);
        if (std::fwrite(&size, sizeof size, 1, f) != 1 || std::fwrite(&hash, sizeof hash, 1, f) != 1 ||
            std::fwrite(buffer.data(), 1, size, f) != size)
            return false;
    }
    return true;
}

bool read_bytes(std::FILE* f, void* data, uint64_t bytes, std::vector<char>& buffer) {
    char* to = static_cast<char*>(data);
    for (uint64_t begin = 0; begin < bytes; begin += CHUNK_BYTES) {
        const int size_out = int(std::min<uint64_t>(CHUNK_BYTES, bytes - begin));
        uint32_t size = 0;
        uint64_t hash = 0;
        if (std::fread(&size, sizeof size, 1, f) != 1 || std::fread(&hash, sizeof hash, 1, f) != 1 ||
            size > buffer.size() || std::fread(buffer.data(), 1, size, f) != size ||
            XXH3_64bits(buffer.data(), size) != hash)
            return false;
        if (LZ4_decompress_safe(buffer.data(), to + begin, int(size), size_out) != size_out) return false;
    }
    return true;
}

// The cursed bits of side c: those held, or made from the side's DTZ.
PositionBits cursed_bits(const TableValues& t, Color c) {
    return t.dtz[c].empty() ? t.cursed[c] : cursed_positions(t.dtz[c]);
}

}  // namespace

bool write_spill_file(const std::filesystem::path& path, const TableValues& t, uint64_t write_id, std::string* error) {
    SpillHeader h{};
    std::memcpy(h.magic, MAGIC, sizeof MAGIC);
    h.write_id = write_id;
    const std::string name = t.index.material().name();
    if (name.size() >= sizeof h.material) return fail(error, "spill: table name too long: " + name);
    std::memcpy(h.material, name.data(), name.size());
    h.positions = t.index.size();
    const uint64_t words = (h.positions + 63) / 64;
    for (Color c : {WHITE, BLACK})
        if (t.dtm[c].size() == h.positions && (t.dtz[c].size() == h.positions || t.cursed[c].size() == words))
            h.sides |= 1u << c;
    const std::filesystem::path temporary = path.string() + ".tmp";
    File f(std::fopen(temporary.c_str(), "wb"));
    if (!f) return fail(error, "spill: cannot create " + temporary.string() + ": " + std::strerror(errno));
    std::vector<char> buffer(size_t(LZ4_compressBound(CHUNK_BYTES)));
    bool ok = std::fwrite(&h, sizeof h, 1, f.get()) == 1;
    uint64_t raw = 0;
    for (Color c : {WHITE, BLACK})
        if (ok && (h.sides & (1u << c))) {
            const PositionBits cursed = cursed_bits(t, c);
            ok = write_bytes(f.get(), t.dtm[c].data(), h.positions * sizeof(Value), buffer) &&
                 write_bytes(f.get(), cursed.data(), words * sizeof(uint64_t), buffer);
            raw += h.positions * sizeof(Value) + words * sizeof(uint64_t);
        }
    ok = ok && std::fflush(f.get()) == 0;
    const long written = ok ? std::ftell(f.get()) : 0;
    f.reset();
    std::error_code ec;
    if (ok) std::filesystem::rename(temporary, path, ec);
    if (!ok || ec) {
        std::filesystem::remove(temporary, ec);
        return fail(error, "spill: cannot write " + path.string());
    }
    // The driver's dry run counts spill space before compression; this is the ratio to apply.
    spdlog::debug("{}: spill file {:.1f} MiB, {:.1f} MiB of values ({:.2f} of them)", name, written / 1048576.0,
                  raw / 1048576.0, raw ? double(written) / double(raw) : 0.0);
    return true;
}

namespace {

// Reads the header of the spill file `f` of `material`'s table: false if it is not one.
bool read_header(std::FILE* f, const Material& material, SpillHeader& h) {
    const TableIndex index(material.normalized());
    const std::string name = index.material().name();
    return std::fread(&h, sizeof h, 1, f) == 1 && std::memcmp(h.magic, MAGIC, sizeof MAGIC) == 0 &&
           std::string(h.material, strnlen(h.material, sizeof h.material)) == name && h.positions == index.size();
}

}  // namespace

bool spill_file_holds(const std::filesystem::path& path, const Material& material, uint8_t sides) {
    File f(std::fopen(path.c_str(), "rb"));
    SpillHeader h{};
    return f && read_header(f.get(), material, h) && (h.sides & sides) == sides;
}

std::optional<uint64_t> spill_file_write_id(const std::filesystem::path& path, const Material& material) {
    File f(std::fopen(path.c_str(), "rb"));
    SpillHeader h{};
    if (!f || !read_header(f.get(), material, h)) return std::nullopt;
    return h.write_id;
}

std::shared_ptr<TableValues> read_spill_file(const std::filesystem::path& path, const Material& material, uint8_t sides,
                                             std::string* why) {
    File f(std::fopen(path.c_str(), "rb"));
    if (!f) {
        fail(why, "no spill file");
        return nullptr;
    }
    auto t = std::make_shared<TableValues>(material.normalized());
    SpillHeader h{};
    const std::string name = t->index.material().name();
    if (!read_header(f.get(), material, h)) {
        fail(why, path.string() + " is not a spill file of " + name);
        return nullptr;
    }
    if ((h.sides & sides) != sides) {
        fail(why, path.string() + " does not hold the sides to move asked for");
        return nullptr;
    }
    std::vector<char> buffer(size_t(LZ4_compressBound(CHUNK_BYTES)));
    const uint64_t words = (h.positions + 63) / 64;
    for (Color c : {WHITE, BLACK}) {
        if (!(h.sides & (1u << c))) continue;
        t->dtm[c].resize(h.positions);
        t->cursed[c].resize(words);
        const bool ok = read_bytes(f.get(), t->dtm[c].data(), h.positions * sizeof(Value), buffer) &&
                        read_bytes(f.get(), t->cursed[c].data(), words * sizeof(uint64_t), buffer);
        if (!ok) {
            fail(why, path.string() + ": truncated or corrupt");
            return nullptr;
        }
        if (!(sides & (1 << c))) {  // read past, not kept
            release(t->dtm[c]);
            release(t->cursed[c]);
        }
    }
    return t;
}

}  // namespace pythia::tb
