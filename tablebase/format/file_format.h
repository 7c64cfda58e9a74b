// The on-disk layout of Pythia's tablebase files (specified in tablebase/format/FORMAT.md).
//
// A table has two files: `<MATERIAL>.pytw` (WDL, small, probed inside the search tree) and
// `<MATERIAL>.pytd` (DTM and DTZ50, probed at the root and loaded by the generator). Both use
// the same container: a header (fixed part, section descriptors, symbol tables, statistics),
// then the payload (per section: block offset table, dictionary, LZ4 blocks). Everything is
// little-endian; the reader copies every field out with memcpy, so nothing needs alignment.
#pragma once

#include <bit>
#include <cstdint>
#include <filesystem>
#include <string>

#include "tablebase/format/material.h"
#include "tablebase/format/pair_codec.h"

namespace pythia::tb {

static_assert(std::endian::native == std::endian::little, "the tablebase files are little-endian");

constexpr char FILE_MAGIC[8] = {'P', 'Y', 'T', 'H', 'I', 'A', 'T', 'B'};
// The one format version this build reads and writes (Pythia tablebases 1.0). A file of any
// other version is refused, with the command that generates it again.
constexpr uint32_t FORMAT_VERSION = 11;

enum class FileKind : uint32_t { WDL = 1, DISTANCE = 2 };
enum class Metric : uint8_t { WDL = 0, DTM = 1, DTZ = 2 };

// How a section's codes become values: directly, or through the DTM of the same position
// (its sign: loss, draw, win; or its whole code).
enum class Context : uint8_t { NONE = 0, DTM_SIGN = 1, DTM_CODE = 2 };

// How a section's codes are compressed (FORMAT.md): LZ4 blocks of a fixed number of positions,
// or the PAIRS codec (pair_codec.h) for codes of up to 8 bits. The writer uses PAIRS wherever
// the codes allow it; WDL sections are always PAIRS.
enum class Codec : uint8_t { LZ4 = 0, PAIRS = 1 };

// Section flags.
constexpr uint8_t FLAG_CAPTURE_RESOLVED = 1;  // WDL: stored values may be low where a capture decides
// DTM: stored values may be low where a capture or promotion achieves the value; the
// value is the best of the stored one and those moves (captures.h, best_leaving_move_dtm).
constexpr uint8_t FLAG_MOVES_RESOLVED = 2;
// WDL, only with FLAG_CAPTURE_RESOLVED: stored values may also be low where a quiet
// promotion to a queen achieves the value (captures.h, best_resolving_move).
constexpr uint8_t FLAG_PROMOTIONS_RESOLVED = 4;
// DTM, only with FLAG_MOVES_RESOLVED: where the WDL file stores a draw and no
// capture or promotion wins, the position is a draw and its stored DTM is any value. (A stored
// WDL draw may be low only where such a move wins: WDL's FLAG_CAPTURE_RESOLVED.) The DTM then
// needs the WDL file of the same write to be read.
constexpr uint8_t FLAG_DRAWS_IN_WDL = 8;

constexpr const char* WDL_EXTENSION = ".pytw";
constexpr const char* DISTANCE_EXTENSION = ".pytd";

// Limits the reader enforces before trusting anything in a file.
constexpr uint32_t MAX_SECTIONS = 8;
constexpr uint32_t MAX_SYMBOLS = 65536;
constexpr uint32_t MAX_CONTEXTS = 256;
constexpr uint32_t MAX_BLOCK_BYTES = 65536;  // decoded bytes of one block
constexpr uint32_t MAX_DICT_BYTES = 65536;   // LZ4's window
constexpr uint32_t MAX_HEADER_BYTES = 1u << 24;

struct FileHeader {
    char magic[8];
    uint32_t version;
    uint32_t kind;         // FileKind
    char material[16];     // "KQRvKR", NUL-padded
    uint64_t positions;    // index size: positions per side to move
    uint64_t file_size;    // the whole file
    uint32_t header_size;  // bytes covered by header_hash: everything before the payload
    uint32_t num_sections;
    uint64_t write_id;      // the same in both files of one write_table_files call
    uint64_t payload_hash;  // XXH3-64 of bytes [header_size, file_size)
    uint64_t header_hash;   // XXH3-64 of bytes [0, header_size) with this field set to 0
    uint32_t stats_offset;  // TableStatistics inside the header (WDL file), 0 if none
    uint32_t stats_size;
    uint8_t reserved[32];
};
static_assert(sizeof(FileHeader) == 120);

struct SectionHeader {
    uint8_t metric;     // Metric
    uint8_t side;       // Color to move
    uint8_t code_bits;  // 0, 1, 2, 4, 8 or 16 bits per position; 0: every position has symbol 0
    uint8_t context;    // Context
    uint8_t flags;
    uint8_t codec;  // Codec
    uint8_t reserved1[2];
    uint32_t num_symbols;      // codes per context
    uint32_t num_contexts;     // 1 for Context::NONE, 3 for DTM_SIGN, the DTM's symbols for DTM_CODE
    uint32_t symbols_offset;   // in the header: num_contexts * num_symbols uint16 values
    uint32_t block_positions;  // positions per block, a multiple of 8 (LZ4); 0 (PAIRS)
    uint64_t num_blocks;
    uint64_t offsets_offset;  // LZ4: file offset of num_blocks + 1 uint64 block starts (absolute);
                              // PAIRS: file offset of the codec's payload (compressed_bytes long)
    uint64_t dict_offset;     // file offset of the LZ4 dictionary shared by the blocks
    uint32_t dict_size;
    uint32_t storage_order;     // StorageOrder::field(): 0 the index's own order
    uint64_t compressed_bytes;  // offset table + dictionary + blocks (for `tb info`)
};
static_assert(sizeof(SectionHeader) == 64);

// A symbol of a WDL section is wdl + 2; of a DTM or DTZ section a tb::Value.
constexpr uint16_t wdl_symbol(int wdl) { return uint16_t(wdl + 2); }

// Outcome counts and extremes of one side to move, computed when the table is written.
struct SideStatistics {
    uint64_t legal;
    uint64_t wdl_count[5];                                   // by WDL -2..2
    uint64_t mated;                                          // checkmated positions (loss in 0)
    uint64_t longest_dtm_win_index, longest_dtm_loss_index;  // UINT64_MAX: none
    uint64_t longest_dtz_win_index, longest_dtz_loss_index;
    uint16_t longest_dtm_win, longest_dtm_loss;  // plies
    uint16_t longest_dtz_win, longest_dtz_loss;
};
static_assert(sizeof(SideStatistics) == 96);

struct TableStatistics {
    SideStatistics side[2];
    double generation_seconds;  // passed in by the generator
    double write_seconds;       // transforms and compression
    int64_t written_unix_time;
    uint32_t generation_threads;
    uint32_t reserved;
};
static_assert(sizeof(TableStatistics) == 224);

inline std::filesystem::path table_file_path(const std::filesystem::path& dir, const Material& m, FileKind kind) {
    return dir / (m.name() + (kind == FileKind::WDL ? WDL_EXTENSION : DISTANCE_EXTENSION));
}

}  // namespace pythia::tb
