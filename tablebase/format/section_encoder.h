// Turns one stream of values (one metric, one side to move) into a file section: symbols
// ranked by frequency, don't-care positions filled to extend runs, codes packed to the fewest
// bits, blocks compressed with LZ4-HC against a dictionary sampled from the stream. Used only
// by the writer; the reader needs nothing but table_file.h.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tablebase/format/file_format.h"
#include "tablebase/format/pair_codec.h"

namespace pythia::tb {

// What the writer knows about one position of a stream.
struct Cell {
    enum Kind : uint8_t {
        EXACT,    // must decode to `value`
        FREE,     // don't care (an illegal position, or one whose value comes from elsewhere)
        AT_MOST,  // any symbol <= `value` (a WDL position that a capture already decides)
    };
    Kind kind;
    uint16_t value;
    uint16_t context;  // < the plan's num_contexts
};

struct SectionPlan {
    Metric metric;
    Color side;
    Context context = Context::NONE;
    uint32_t num_contexts = 1;
    uint8_t flags = 0;
    // Candidate decoded block sizes in bytes; the writer compresses a sample with each and keeps
    // the smallest one whose output is within `block_tolerance` of the best.
    std::vector<uint32_t> block_bytes = {8192};
    double block_tolerance = 1.03;
    bool dictionary = true;
    int threads = 1;
    int level = 9;  // LZ4-HC compression level
    // PAIRS: the codes go to the pair codec (pair_codec.h) instead of LZ4 blocks, with the
    // smallest of these block sizes; the LZ4 options above then serve only `estimate_only`.
    // A section of more than 8-bit codes (over 256 symbols) stays LZ4.
    Codec codec = Codec::LZ4;
    std::vector<uint32_t> pair_block_bytes = pairs::DEFAULT_BLOCK_BYTES;
    // Only rank, pack and compress the sample: fills EncodedSection::estimated_bytes and the
    // chosen block size; finish_section() then compresses the whole stream.
    bool estimate_only = false;
    // PAIRS, when not 0: only estimate the pair codec's bytes (estimate_pairs with this many
    // pairs at most) into EncodedSection::estimated_bytes; nothing is compressed.
    uint32_t estimate_pair_rules = 0;
    // Stop once the codes are made (and, for LZ4, the block size chosen): finish_section()
    // compresses them later, so that the caller can compress on one thread while another reads
    // the codes (the writer encodes a DTZ in the order and by the codes of its DTM).
    bool defer_compression = false;
};

struct EncodedSection {
    SectionHeader header{};  // offsets and symbols_offset are filled in by the file writer
    std::vector<uint16_t> symbols;
    std::vector<uint8_t> dictionary;
    std::vector<uint8_t> data;         // the compressed blocks, one after the other (PAIRS: the payload)
    std::vector<uint64_t> block_ends;  // end of each block in `data` (LZ4)
    std::vector<uint8_t> codes;        // the packed codes (kept for DTZ's DTM_CODE context)
    uint64_t positions = 0;            // of the stream (finish_section needs it for PAIRS)
    double estimated_bytes = 0;        // from the sample the block size was chosen on
    // Code of each position when the section has at most 8 bits (DTM: the DTZ's context).
    uint32_t code_of(uint64_t i) const;
};

// Fills out[0, end - begin) with the cells of positions [begin, end) (at most 65536 at a time).
using CellSource = std::function<void(uint64_t begin, uint64_t end, Cell* out)>;

// Encodes `positions` cells. `source` is called from several threads at once and twice per
// position, so it must be thread safe. `counted`, if given, yields the same cells in any order:
// the symbols are counted on it, and `source` is read once (a source walking a storage order
// reads its values with strides, one cache miss per cell; in index order they stream in).
EncodedSection encode_section(uint64_t positions, const CellSource& source, const SectionPlan& plan,
                              const CellSource& counted = {});

// Compresses a section encoded with `estimate_only` or `defer_compression`: with the pair codec
// if the plan says so and the codes allow, else with the LZ4 block size chosen then (the codes
// are not packed again). Reads the codes, writes only the compressed fields.
void finish_section(EncodedSection& s, const SectionPlan& plan);

// The compressed size of a section, for choosing between plans.
inline uint64_t encoded_bytes(const EncodedSection& s) {
    if (s.header.codec == uint8_t(Codec::PAIRS)) return s.data.size();
    return s.data.size() + s.dictionary.size() + 8 * (s.block_ends.size() + 1);
}

// Makes `s` a PAIRS section of its packed `codes` (code_bits 1-8) of `positions` positions,
// keeping its metric, side, context, flags and symbols; the smallest of `block_bytes` wins.
void encode_pairs_section(EncodedSection& s, uint64_t positions, int threads,
                          const std::vector<uint32_t>& block_bytes = pairs::DEFAULT_BLOCK_BYTES);

}  // namespace pythia::tb
