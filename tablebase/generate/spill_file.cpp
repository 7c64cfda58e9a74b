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

// Layout: the header, then per side held (White first) its DTM then its DTZ array, each in
// chunks of CHUNK_VALUES values: the compressed size (uint32), the XXH3 of the compressed
// bytes (uint64), the bytes.
constexpr char MAGIC[8] = {'P', 'Y', 'T', 'S', 'P', 'I', 'L', '1'};
constexpr uint64_t CHUNK_VALUES = uint64_t(1) << 20;  // 2 MiB of values

struct SpillHeader {
    char magic[8];
    char material[16];  // the table's name, NUL-padded
    uint64_t positions;
    uint32_t sides;
    uint32_t reserved;
};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

bool fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
}

bool write_array(std::FILE* f, const ValueArray& values, std::vector<char>& buffer) {
    for (uint64_t begin = 0; begin < values.size(); begin += CHUNK_VALUES) {
        const int bytes = int(std::min<uint64_t>(CHUNK_VALUES, values.size() - begin) * sizeof(Value));
        const int packed = LZ4_compress_default(reinterpret_cast<const char*>(values.data() + begin), buffer.data(),
                                                bytes, int(buffer.size()));
        if (packed <= 0) return false;
        const uint32_t size = uint32_t(packed);
        const uint64_t hash = XXH3_64bits(buffer.data(), size);
        if (std::fwrite(&size, sizeof size, 1, f) != 1 || std::fwrite(&hash, sizeof hash, 1, f) != 1 ||
            std::fwrite(buffer.data(), 1, size, f) != size)
            return false;
    }
    return true;
}

bool read_array(std::FILE* f, ValueArray& values, uint64_t n, std::vector<char>& buffer) {
    values.resize(n);
    for (uint64_t begin = 0; begin < n; begin += CHUNK_VALUES) {
        const int bytes = int(std::min<uint64_t>(CHUNK_VALUES, n - begin) * sizeof(Value));
        uint32_t size = 0;
        uint64_t hash = 0;
        if (std::fread(&size, sizeof size, 1, f) != 1 || std::fread(&hash, sizeof hash, 1, f) != 1 ||
            size > buffer.size() || std::fread(buffer.data(), 1, size, f) != size ||
            XXH3_64bits(buffer.data(), size) != hash)
            return false;
        if (LZ4_decompress_safe(buffer.data(), reinterpret_cast<char*>(values.data() + begin), int(size), bytes) !=
            bytes)
            return false;
    }
    return true;
}

}  // namespace

bool write_spill_file(const std::filesystem::path& path, const TableValues& t, std::string* error) {
    SpillHeader h{};
    std::memcpy(h.magic, MAGIC, sizeof MAGIC);
    const std::string name = t.index.material().name();
    if (name.size() >= sizeof h.material) return fail(error, "spill: table name too long: " + name);
    std::memcpy(h.material, name.data(), name.size());
    h.positions = t.index.size();
    for (Color c : {WHITE, BLACK})
        if (t.dtm[c].size() == h.positions && t.dtz[c].size() == h.positions) h.sides |= 1u << c;
    const std::filesystem::path temporary = path.string() + ".tmp";
    File f(std::fopen(temporary.c_str(), "wb"));
    if (!f) return fail(error, "spill: cannot create " + temporary.string() + ": " + std::strerror(errno));
    std::vector<char> buffer(size_t(LZ4_compressBound(int(CHUNK_VALUES * sizeof(Value)))));
    bool ok = std::fwrite(&h, sizeof h, 1, f.get()) == 1;
    uint64_t raw = 0;
    for (Color c : {WHITE, BLACK})
        if (ok && (h.sides & (1u << c))) {
            ok = write_array(f.get(), t.dtm[c], buffer) && write_array(f.get(), t.dtz[c], buffer);
            raw += 2 * h.positions * sizeof(Value);
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
    if (std::fread(&h, sizeof h, 1, f.get()) != 1 || std::memcmp(h.magic, MAGIC, sizeof MAGIC) != 0 ||
        std::string(h.material, strnlen(h.material, sizeof h.material)) != name || h.positions != t->index.size()) {
        fail(why, path.string() + " is not a spill file of " + name);
        return nullptr;
    }
    if ((h.sides & sides) != sides) {
        fail(why, path.string() + " does not hold the sides to move asked for");
        return nullptr;
    }
    std::vector<char> buffer(size_t(LZ4_compressBound(int(CHUNK_VALUES * sizeof(Value)))));
    for (Color c : {WHITE, BLACK}) {
        if (!(h.sides & (1u << c))) continue;
        const bool ok =
            read_array(f.get(), t->dtm[c], h.positions, buffer) && read_array(f.get(), t->dtz[c], h.positions, buffer);
        if (!ok) {
            fail(why, path.string() + ": truncated or corrupt");
            return nullptr;
        }
        if (!(sides & (1 << c))) t->dtm[c] = t->dtz[c] = {};  // read past, not kept
    }
    return t;
}

}  // namespace pythia::tb
