#include "tablebase/format/table_file.h"

#include <lz4.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "tablebase/format/table_index.h"

namespace pythia::tb {

namespace {

std::atomic<uint64_t> next_uid{1};

bool fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
}

template <typename T>
T read_at(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// True if [offset, offset + size) lies inside [lo, hi), without overflow.
bool inside(uint64_t offset, uint64_t size, uint64_t lo, uint64_t hi) {
    return offset >= lo && offset <= hi && size <= hi - offset;
}

const char* metric_name(uint8_t m) { return m == 0 ? "WDL" : m == 1 ? "DTM" : m == 2 ? "DTZ" : "?"; }

bool valid_distance_symbol(uint16_t v) { return v == VALUE_UNKNOWN || is_final(v); }

}  // namespace

std::unique_ptr<TableFile> TableFile::open(const std::filesystem::path& path, const TableIndex& expected, FileKind kind,
                                           std::string* error, bool verify_payload, const std::atomic<bool>* cancel,
                                           HugePageArena* copy_to) {
    std::unique_ptr<TableFile> f(new TableFile());
    f->path_ = path;
    if (!f->file_.open(path.string(), error, MappedFile::Access::RANDOM)) return nullptr;
    if (copy_to)
        if (uint8_t* memory = copy_to->allocate(f->file_.size())) f->file_.copy_into(memory);
    if (!f->validate(expected, kind, verify_payload, cancel, copy_to, error)) return nullptr;
    f->uid_ = next_uid.fetch_add(1);
    return f;
}

bool TableFile::validate(const TableIndex& expected, FileKind kind, bool verify_payload,
                         const std::atomic<bool>* cancel, HugePageArena* arena, std::string* error) {
    const uint8_t* data = file_.data();
    const uint64_t size = file_.size();
    if (size < sizeof(FileHeader))
        return fail(error, "truncated: " + std::to_string(size) + " bytes, shorter than a header");
    std::memcpy(&header_, data, sizeof header_);
    if (std::memcmp(header_.magic, FILE_MAGIC, sizeof FILE_MAGIC) != 0)
        return fail(error, "not a Pythia tablebase file (wrong magic)");
    if (header_.version != FORMAT_VERSION)
        return fail(error, "format version " + std::to_string(header_.version) + ", this build reads version " +
                               std::to_string(FORMAT_VERSION) + " only");
    if (header_.kind != uint32_t(kind))
        return fail(error, std::string("holds ") + (header_.kind == uint32_t(FileKind::WDL) ? "WDL" : "other") +
                               " data, not the " + (kind == FileKind::WDL ? "WDL" : "DTM/DTZ") + " its name says");
    if (header_.file_size != size)
        return fail(error, (size < header_.file_size ? "truncated: " : "too long: ") + std::to_string(size) +
                               " bytes, its header says " + std::to_string(header_.file_size));
    if (header_.header_size < sizeof(FileHeader) || header_.header_size > size ||
        header_.header_size > MAX_HEADER_BYTES)
        return fail(error, "corrupt header (header size " + std::to_string(header_.header_size) + ")");

    // The header checksum covers the header with its own field zeroed.
    std::vector<uint8_t> head(data, data + header_.header_size);
    std::memset(head.data() + offsetof(FileHeader, header_hash), 0, sizeof header_.header_hash);
    if (XXH3_64bits(head.data(), head.size()) != header_.header_hash) return fail(error, "header checksum mismatch");

    char name[sizeof header_.material + 1] = {};
    std::memcpy(name, header_.material, sizeof header_.material);
    auto material = Material::parse(name);
    if (!material || !material->is_normalized())
        return fail(error, "corrupt header (material '" + std::string(name) + "')");
    material_ = *material;
    if (!(material_ == expected.material()))
        return fail(error,
                    "holds table " + material_.name() + ", not " + expected.material().name() + " as its name says");
    if (header_.positions != expected.size())
        return fail(error, "corrupt header: " + std::to_string(header_.positions) + " positions, the index of " +
                               material_.name() + " has " + std::to_string(expected.size()));
    if (header_.num_sections == 0 || header_.num_sections > MAX_SECTIONS ||
        sizeof(FileHeader) + uint64_t(header_.num_sections) * sizeof(SectionHeader) > header_.header_size)
        return fail(error, "corrupt header (" + std::to_string(header_.num_sections) + " sections)");

    if (verify_payload) {
        // In pieces, so that a cancelled open stops soon (a 5-piece DTM file is up to 0.5 GB).
        constexpr uint64_t PIECE = 16 << 20;
        XXH3_state_t* state = XXH3_createState();
        XXH3_64bits_reset(state);
        bool cancelled = false;
        file_.advise(MappedFile::Access::SEQUENTIAL);  // read ahead from disk while hashing
        for (uint64_t at = header_.header_size; at < size && !cancelled; at += PIECE) {
            XXH3_64bits_update(state, data + at, std::min(PIECE, size - at));
            cancelled = cancel && cancel->load(std::memory_order_relaxed);
        }
        file_.advise(MappedFile::Access::RANDOM);  // probes are scattered
        const uint64_t hash = XXH3_64bits_digest(state);
        XXH3_freeState(state);
        if (cancelled) return fail(error, "cancelled");
        if (hash != header_.payload_hash) return fail(error, "checksum mismatch in the data (the file is corrupt)");
    }

    if (header_.stats_size) {
        if (header_.stats_size != sizeof(TableStatistics) ||
            !inside(header_.stats_offset, header_.stats_size, sizeof(FileHeader), header_.header_size))
            return fail(error, "corrupt header (statistics)");
        statistics_ = read_at<TableStatistics>(data + header_.stats_offset);
    }

    for (uint32_t i = 0; i < header_.num_sections; ++i) {
        auto h = read_at<SectionHeader>(data + sizeof(FileHeader) + i * sizeof(SectionHeader));
        if (!validate_section(h, i, expected, error)) return false;
    }
    // Every section the kind needs is there, once. A DTM/DTZ file may leave out both sections of
    // one side to move; the loader and the prober recover that side from the other.
    const bool wdl_file = kind == FileKind::WDL;
    const Metric needed[2] = {wdl_file ? Metric::WDL : Metric::DTM, Metric::DTZ};
    const int metrics = wdl_file ? 1 : 2;
    for (Color c : {WHITE, BLACK}) {
        int found[2] = {0, 0};
        for (int m = 0; m < metrics; ++m)
            for (const Section& s : sections_) found[m] += s.metric() == needed[m] && s.side() == c;
        if (!wdl_file && found[0] == 0 && found[1] == 0) {
            left_out_side_ = c;  // not both sides: a file has at least one section of its kind
            continue;
        }
        for (int m = 0; m < metrics; ++m)
            if (found[m] != 1)
                return fail(error, std::string("corrupt header: ") + metric_name(uint8_t(needed[m])) +
                                       (c == WHITE ? " white" : " black") + " to move is missing or repeated");
    }
    // A DTZ section is stored in its DTM's order (the prober converts an index once for both).
    if (!wdl_file)
        for (Color c : {WHITE, BLACK})
            if (has_side(c) && find(Metric::DTZ, c)->h.storage_order != find(Metric::DTM, c)->h.storage_order)
                return fail(error, "corrupt header: a DTZ section's storage order differs from its DTM's");
    // A DTZ section read through DTM codes needs as many contexts as the DTM has symbols.
    for (const Section& s : sections_) {
        if (s.h.context == uint8_t(Context::NONE)) continue;
        const Section* dtm = find(Metric::DTM, s.side());
        if (!dtm || (s.h.context == uint8_t(Context::DTM_CODE) && s.h.num_contexts != dtm->h.num_symbols))
            return fail(error, "corrupt header: a DTZ section's context does not match its DTM");
    }
    for (size_t i = 0; i < sections_.size(); ++i) {
        Section& s = sections_[i];
        if (s.h.codec != uint8_t(Codec::PAIRS) || s.h.code_bits == 0) continue;
        const std::string what = "corrupt section " + std::to_string(i) + " (";
        std::string why;
        s.pairs = PairsReader::parse(file_.data() + s.h.offsets_offset, s.h.compressed_bytes, header_.positions,
                                     s.h.num_symbols, &why, arena);
        if (!s.pairs) return fail(error, what + why + ")");
        if (s.pairs->header().num_blocks != s.h.num_blocks) return fail(error, what + "block count)");
    }
    return true;
}

CodeByValue lowest_code_by_value(const std::vector<uint16_t>& symbols) {
    CodeByValue table;
    for (uint32_t c = 0; c < symbols.size(); ++c) table.push_back({symbols[c], c});
    // Sorted by value, then code: the first entry of each value has its lowest code.
    std::sort(table.begin(), table.end());
    table.erase(
        std::unique(table.begin(), table.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
        table.end());
    return table;
}

int code_of_value(const CodeByValue& table, uint16_t value) {
    const auto it = std::lower_bound(table.begin(), table.end(), std::pair<uint16_t, uint32_t>{value, 0});
    return it != table.end() && it->first == value ? int(it->second) : -1;
}

bool TableFile::validate_section(const SectionHeader& h, size_t i, const TableIndex& table, std::string* error) {
    const uint64_t size = file_.size();
    const std::string what = "corrupt section " + std::to_string(i) + " (";
    const bool wdl_file = header_.kind == uint32_t(FileKind::WDL);
    if (h.metric > 2 || (h.metric == uint8_t(Metric::WDL)) != wdl_file || h.side > 1)
        return fail(error, what + "metric or side)");
    const int bits = h.code_bits;
    if (bits != 0 && bits != 1 && bits != 2 && bits != 4 && bits != 8 && bits != 16)
        return fail(error, what + "code width " + std::to_string(bits) + ")");
    if (h.context > 2 || (h.context != 0 && h.metric != uint8_t(Metric::DTZ))) return fail(error, what + "context)");
    const uint8_t allowed_flags = h.metric == uint8_t(Metric::WDL)   ? FLAG_CAPTURE_RESOLVED | FLAG_PROMOTIONS_RESOLVED
                                  : h.metric == uint8_t(Metric::DTM) ? FLAG_MOVES_RESOLVED | FLAG_DRAWS_IN_WDL
                                                                     : 0;
    if ((h.flags & ~allowed_flags) || ((h.flags & FLAG_PROMOTIONS_RESOLVED) && !(h.flags & FLAG_CAPTURE_RESOLVED)) ||
        ((h.flags & FLAG_DRAWS_IN_WDL) && !(h.flags & FLAG_MOVES_RESOLVED)))
        return fail(error, what + "flags " + std::to_string(h.flags) + ")");
    const uint32_t want_contexts = h.context == uint8_t(Context::DTM_SIGN) ? 3 : h.num_contexts;
    if (h.num_symbols == 0 || h.num_symbols > MAX_SYMBOLS || (bits < 16 && h.num_symbols > (1u << bits)) ||
        h.num_contexts == 0 || h.num_contexts > MAX_CONTEXTS || h.num_contexts != want_contexts ||
        (h.context == 0 && h.num_contexts != 1))
        return fail(error, what + "symbol table size)");
    const uint64_t symbol_bytes = uint64_t(h.num_symbols) * h.num_contexts * 2;
    if (!inside(h.symbols_offset, symbol_bytes, sizeof(FileHeader), header_.header_size))
        return fail(error, what + "symbol table outside the header)");

    Section s;
    s.h = h;
    s.symbols.resize(size_t(h.num_symbols) * h.num_contexts);
    std::memcpy(s.symbols.data(), file_.data() + h.symbols_offset, symbol_bytes);
    for (uint16_t v : s.symbols)
        if (wdl_file ? v > 4 : !valid_distance_symbol(v)) return fail(error, what + "a symbol is not a value)");

    if (h.flags & FLAG_MOVES_RESOLVED) s.code_by_value = lowest_code_by_value(s.symbols);

    const auto order = StorageOrder::from_field(table, h.storage_order);
    if (!order) return fail(error, what + "storage order)");
    s.order = *order;

    if (h.codec > uint8_t(Codec::PAIRS)) return fail(error, what + "codec " + std::to_string(h.codec) + ")");
    if (bits == 0) {
        if (h.num_blocks != 0 || h.codec != 0) return fail(error, what + "blocks in a constant section)");
    } else if (h.codec == uint8_t(Codec::PAIRS)) {
        // The pair codec holds codes of up to 8 bits.
        if (bits > 8 || h.block_positions != 0 || h.dict_size != 0)
            return fail(error, what + "a pair section's metric, width or blocks)");
        if (!inside(h.offsets_offset, h.compressed_bytes, header_.header_size, size))
            return fail(error, what + "pair data outside the file)");
        // The payload is parsed at the end of validate(), once every section header has passed, so
        // that a header's problem is named first.
    } else {
        if (h.block_positions == 0 || h.block_positions % 8 != 0 ||
            uint64_t(h.block_positions) * bits / 8 > MAX_BLOCK_BYTES)
            return fail(error, what + "block size)");
        s.block_bytes = uint32_t(uint64_t(h.block_positions) * bits / 8);
        if (h.num_blocks != (header_.positions + h.block_positions - 1) / h.block_positions)
            return fail(error, what + "block count)");
        if (h.num_blocks >= size / 8 || !inside(h.offsets_offset, (h.num_blocks + 1) * 8, header_.header_size, size))
            return fail(error, what + "block offsets outside the file)");
        if (h.dict_size > MAX_DICT_BYTES || !inside(h.dict_offset, h.dict_size, header_.header_size, size))
            return fail(error, what + "dictionary outside the file)");
        s.offsets = file_.data() + h.offsets_offset;
        s.dict = h.dict_size ? reinterpret_cast<const char*>(file_.data() + h.dict_offset) : nullptr;
        uint64_t previous = offset(s, 0);
        if (previous < header_.header_size || previous > size) return fail(error, what + "block outside the file)");
        for (uint64_t b = 0; b < h.num_blocks; ++b) {
            const uint64_t next = offset(s, b + 1);
            if (next < previous || next > size || next - previous == 0 ||
                next - previous > uint64_t(LZ4_compressBound(int(block_size(s, b)))))
                return fail(error, what + "block " + std::to_string(b) + " outside the file or of impossible size)");
            previous = next;
        }
    }
    for (const Section& other : sections_)
        if (other.h.metric == h.metric && other.h.side == h.side) return fail(error, what + "repeated)");
    sections_.push_back(std::move(s));
    return true;
}

uint64_t TableFile::offset(const Section& s, uint64_t i) const { return read_at<uint64_t>(s.offsets + 8 * i); }

const Section* TableFile::find(Metric metric, Color side) const {
    for (const Section& s : sections_)
        if (s.metric() == metric && s.side() == side) return &s;
    return nullptr;
}

uint32_t TableFile::block_size(const Section& s, uint64_t b) const {
    const uint64_t first = b * s.h.block_positions;
    const uint64_t n = std::min<uint64_t>(s.h.block_positions, header_.positions - first);
    return uint32_t((n * s.h.code_bits + 7) / 8);
}

bool TableFile::decode_section(const Section& s, uint8_t* out, int threads) const {
    if (s.pairs) return s.pairs->decode_all(out, s.bits(), threads);
    for (uint64_t b = 0; b < s.h.num_blocks; ++b) {
        const uint32_t size = block_size(s, b);
        if (decode_block(s, b, out + b * s.block_bytes, size) != int(size)) return false;
    }
    return true;
}

int TableFile::decode_block(const Section& s, uint64_t b, uint8_t* out, uint32_t need) const {
    if (b >= s.h.num_blocks || s.pairs) return -1;
    const uint64_t from = offset(s, b), to = offset(s, b + 1);
    const char* src = reinterpret_cast<const char*>(file_.data() + from);
    const int src_size = int(to - from);
    const int full = int(block_size(s, b));
    char* dst = reinterpret_cast<char*>(out);
    if (need >= uint32_t(full)) {
        int n = LZ4_decompress_safe_usingDict(src, dst, src_size, full, s.dict, int(s.h.dict_size));
        return n == full ? n : -1;
    }
    int n = LZ4_decompress_safe_partial_usingDict(src, dst, src_size, int(need), full, s.dict, int(s.h.dict_size));
    return n >= int(need) ? n : -1;
}

}  // namespace pythia::tb
