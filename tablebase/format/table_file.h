// One opened table file: memory-mapped, every header field and offset checked before use, the
// checksums verified. After open() succeeds, reading a block can fail only on data that a
// matching checksum already vouched for; the reader still checks every LZ4 result, so a bad
// file never makes it read or write outside its buffers.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/huge_page_arena.h"
#include "engine/core/mapped_file.h"
#include "tablebase/format/file_format.h"
#include "tablebase/format/material.h"
#include "tablebase/format/pair_codec.h"
#include "tablebase/format/storage_order.h"
#include "tablebase/format/table_index.h"
#include "tablebase/format/value.h"

namespace pythia::tb {

// Each value of a one-context symbol table with the lowest code that holds it, sorted by value.
// A DTZ read through the whole DTM code of a FLAG_MOVES_RESOLVED section takes as context the
// code of the exact DTM (the stored code may be any lower value): this is how writer and reader
// find it.
using CodeByValue = std::vector<std::pair<uint16_t, uint32_t>>;
CodeByValue lowest_code_by_value(const std::vector<uint16_t>& symbols);
// The code of `value` in `table`, or -1 if no code holds it (the stored code is used then).
int code_of_value(const CodeByValue& table, uint16_t value);

// A section after validation, with what a reader needs at hand.
struct Section {
    SectionHeader h;
    std::vector<uint16_t> symbols;     // num_contexts * num_symbols
    const uint8_t* offsets = nullptr;  // num_blocks + 1 little-endian uint64 in the mapping
    const char* dict = nullptr;
    uint32_t block_bytes = 0;          // decoded bytes of a full block (LZ4)
    std::optional<PairsReader> pairs;  // set for a PAIRS section
    StorageOrder order;                // where position `index` is stored: order.to_storage(index)
    CodeByValue code_by_value;         // DTM sections with FLAG_MOVES_RESOLVED

    Metric metric() const { return Metric(h.metric); }
    Color side() const { return Color(h.side); }
    int bits() const { return h.code_bits; }
    // The symbol of `code` in context `ctx`; false for a code the table does not define.
    bool symbol(uint32_t ctx, uint32_t code, uint16_t& out) const {
        if (code >= h.num_symbols || ctx >= h.num_contexts) return false;
        out = symbols[size_t(ctx) * h.num_symbols + code];
        return true;
    }
};

// The code of position `local` in a decoded block of `bits`-bit codes.
inline uint32_t code_at(const uint8_t* block, uint64_t local, int bits) {
    switch (bits) {
        case 0:
            return 0;
        case 8:
            return block[local];
        case 16:
            return uint32_t(block[2 * local]) | uint32_t(block[2 * local + 1]) << 8;
        default: {
            const uint64_t bit = local * uint64_t(bits);
            return (block[bit >> 3] >> (bit & 7)) & ((1u << bits) - 1);
        }
    }
}
// Bytes of a block that must be decoded to read the code of position `local`.
inline uint32_t bytes_needed(uint64_t local, int bits) { return uint32_t((local * bits) / 8 + (bits == 16 ? 2 : 1)); }

class TableFile {
public:
    // Opens and validates `path`, which must hold `kind` for the table of `expected`. With
    // `verify_payload` false the payload checksum is skipped (the header's is always checked).
    // On failure returns nullptr and sets `error` to the problem (without the path). The
    // payload is checksummed in pieces; once `cancel` is set the open gives up ("cancelled").
    // With `copy_to`, the file is read into memory from there (which must outlive the
    // TableFile) before it is validated, and probes read the copy; if that memory is refused,
    // the file stays mapped. The pair sections' readers build their tables there too.
    static std::unique_ptr<TableFile> open(const std::filesystem::path& path, const TableIndex& expected, FileKind kind,
                                           std::string* error, bool verify_payload = true,
                                           const std::atomic<bool>* cancel = nullptr, HugePageArena* copy_to = nullptr);

    const std::filesystem::path& path() const { return path_; }
    const Material& material() const { return material_; }
    FileKind kind() const { return FileKind(header_.kind); }
    uint64_t positions() const { return header_.positions; }
    uint64_t write_id() const { return header_.write_id; }
    uint32_t version() const { return header_.version; }
    size_t file_size() const { return file_.size(); }
    // Unique among the files opened by this process (keys of the decoded-block caches).
    uint64_t uid() const { return uid_; }

    const std::vector<Section>& sections() const { return sections_; }
    // PairsReader::build_checkpoints for the DTM and DTZ pair sections (the prober's): every 256
    // bits in DTM, which a probe reads one or two moves deep (captures, promotions, left-out
    // sides), every 512 in DTZ, read once per move at the root. Against DTM at 512 bits and no
    // DTZ checkpoints, this takes a fifth fewer instructions on slow 5-piece root rankings
    // (Callgrind); DTZ at 256 bits would add memory for almost nothing more.
    void build_checkpoints(const std::atomic<bool>* cancel = nullptr) const {
        for (const Section& s : sections_)
            if (s.pairs && s.metric() != Metric::WDL)
                s.pairs->build_checkpoints(cancel, s.metric() == Metric::DTM ? 256 : 512);
    }
    const Section* find(Metric metric, Color side) const;
    // A DTM/DTZ file may store one side to move only: the other side's
    // values are recovered from it by one ply of moves (forward_values.h).
    std::optional<Color> left_out_side() const { return left_out_side_; }
    bool has_side(Color c) const { return left_out_side_ != c; }
    const std::optional<TableStatistics>& statistics() const { return statistics_; }

    // Decoded bytes of block `b` (the last block may be short).
    uint32_t block_size(const Section& s, uint64_t b) const;
    // Decodes block `b` of an LZ4 section into `out` (room for block_size bytes) until at least
    // `need` bytes are there. Returns the number of bytes decoded, or -1 if the block is corrupt.
    int decode_block(const Section& s, uint64_t b, uint8_t* out, uint32_t need) const;
    // Every code of a section in stored order (the code of index i is at
    // s.order.to_storage(i)), packed as code_at reads them, into `out` (room for
    // ceil(positions * bits / 8) bytes, zeroed), either codec (PAIRS with up to `threads`
    // threads). False if a block is corrupt.
    bool decode_section(const Section& s, uint8_t* out, int threads = 1) const;

private:
    TableFile() = default;
    // `arena`: where the pair readers build their tables (open's `copy_to`), or the heap.
    bool validate(const TableIndex& expected, FileKind kind, bool verify_payload, const std::atomic<bool>* cancel,
                  HugePageArena* arena, std::string* error);
    bool validate_section(const SectionHeader& h, size_t index, const TableIndex& table, std::string* error);
    uint64_t offset(const Section& s, uint64_t i) const;

    std::filesystem::path path_;
    MappedFile file_;
    FileHeader header_{};
    Material material_;
    std::vector<Section> sections_;
    std::optional<TableStatistics> statistics_;
    std::optional<Color> left_out_side_;
    uint64_t uid_ = 0;
};

}  // namespace pythia::tb
