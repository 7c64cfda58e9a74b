// The PAIRS codec of a section (FORMAT.md, "PAIRS sections"): a stream of codes turned into a
// grammar of pairs (Re-Pair: the most frequent pair of adjacent symbols becomes a new symbol,
// again and again), the final symbols Huffman-coded into fixed-size compressed blocks that each
// cover a variable number of positions. A probe finds its block through a sparse index and the
// blocks' sizes, decodes at most that block's Huffman codes (a symbol stands for up to 32768
// positions, skipped by its length without expanding it) and descends one symbol's pair tree:
// no decompression buffer, no per-thread cache. WDL sections use it: LZ4 needs fixed-size decoded blocks, and with the
// small ones WDL needs, the per-block costs (offset, LZ4's own framing, literals at 8 bits)
// dominated highly compressible tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pythia::tb {

namespace pairs {

// Terminals + pair symbols: the rules store symbols as u16. Format version 8 raised this from
// 4096: KBNvKR's WDL grammars end by themselves at 13 632 and 18 837 symbols, KBPvKR's reach
// the limit (FORMAT.md, "Larger grammars and 64-byte blocks").
constexpr uint32_t MAX_SYMBOLS = 65535;
constexpr uint32_t MAX_SYMBOL_POSITIONS = 32768;  // positions one symbol stands for
constexpr uint32_t MAX_BLOCK_POSITIONS = 65536;   // positions one block covers
constexpr int MAX_CODE_BITS = 24;                 // longest Huffman code
constexpr uint32_t MIN_BLOCK_BYTES = 8, MAX_BLOCK_BYTES = 4096;  // bytes per block
// The writer's candidates; it keeps the smallest payload, in practice 64 bytes: one cache line
// (blocks start on a multiple of 64 bytes). A probe decodes half a block on average, so
// 64-byte blocks probe slower than 32-byte ones (FORMAT.md, "Larger grammars and 64-byte
// blocks", for the figures) and save 6-7 % of a WDL section; 16 or 32 bytes are smaller where
// symbols are long and a block reaches MAX_BLOCK_POSITIONS before it is full.
inline const std::vector<uint32_t> DEFAULT_BLOCK_BYTES = {16, 32, 64};

// The fixed part at the start of a PAIRS section's payload.
struct Header {
    uint32_t num_terminals;  // the section's codes: symbols below this are codes
    uint32_t num_symbols;    // terminals + pairs
    uint32_t block_bytes;    // bytes per block (its size, then codes), MIN_BLOCK_BYTES..MAX_BLOCK_BYTES
    uint32_t index_shift;    // one index entry per 2^index_shift positions
    uint64_t num_blocks;
    uint64_t num_index;      // ceil(positions / 2^index_shift)
    uint64_t positions;
};
static_assert(sizeof(Header) == 40);

// Where the blocks start in the payload (after the tables, on a multiple of 64 bytes), and the
// bytes of the payload for these header values (what the parser requires).
uint64_t blocks_offset(const Header& h);
uint64_t payload_bytes(const Header& h);

// Each block starts with its number of positions - 1, u16 little-endian: the probe finds it in
// the block's own cache line.
constexpr uint32_t BLOCK_HEADER_BITS = 16;

}  // namespace pairs

// Compresses `n` codes (packed `bits` per position as table_file.h's code_at reads them, all
// below `num_terminals`) into a PAIRS payload, with the block size of `block_candidates` that
// makes it smallest. Uses up to `threads` threads.
std::vector<uint8_t> encode_pairs(const uint8_t* packed, int bits, uint64_t n, uint32_t num_terminals, int threads,
                                  const std::vector<uint32_t>& block_candidates = pairs::DEFAULT_BLOCK_BYTES);

// A validated PAIRS payload inside a mapping (which must outlive it).
class PairsReader {
public:
    // Checks every table of the payload at `data` (`size` bytes); nullopt with `why` set if
    // anything is inconsistent. After this, reading never leaves [data, data + size).
    static std::optional<PairsReader> parse(const uint8_t* data, uint64_t size, uint64_t positions,
                                            uint32_t num_terminals, std::string* why);

    // The code of position `i`; false if the block turns out corrupt.
    bool code_at(uint64_t i, uint32_t& code) const;
    // Every code, packed `bits` per position (out has room for ceil(positions * bits / 8)
    // bytes, zeroed), with up to `threads` threads working on chunks of whole blocks of at
    // least `chunk_positions` positions. False if a block is corrupt.
    bool decode_all(uint8_t* out, int bits, int threads = 1, uint64_t chunk_positions = 1 << 20) const;

    const pairs::Header& header() const { return h_; }

private:
    struct Rule {
        uint16_t left, right;
        uint16_t left_length;  // positions of the left part (< 32768): one load per step of a descent
        int16_t uniform;       // the code the symbol repeats throughout, or -1: the descent stops there
    };
    // The symbol whose Huffman code is at the top of `w` (at least 24 valid bits), with its
    // positions and its code's length; -1 if the bits are no code.
    int decode_code(uint64_t w, uint32_t& length, uint32_t& bits) const;
    // Decodes the Huffman code at `bit` of a zero-padded block: the symbol and its positions
    // in `length`, or -1.
    int next_symbol(const uint8_t* block, uint32_t& bit, uint32_t& length) const;
    // The symbol of a zero-padded block that covers position `local` of the block, with `local`
    // made relative to the symbol; -1 if the codes do not decode or run out first.
    int symbol_at(const uint8_t* block, uint64_t& local) const;
    // The length of a code longer than LUT_BITS at the top of `w`, or -1 if it is none.
    int long_code_bits(uint64_t w) const;
    void copy_block(uint64_t b, uint8_t* buffer) const;
    uint32_t block_positions(uint64_t b) const;

    pairs::Header h_{};
    std::vector<Rule> rules_;       // by symbol (of a terminal only its uniform, the terminal itself)
    std::vector<uint32_t> length_;  // positions per symbol
    std::vector<uint16_t> sorted_;  // coded symbols by (code length, symbol)
    uint64_t limit_[pairs::MAX_CODE_BITS + 2] = {};  // left-justified end of the codes of each length
    uint32_t first_[pairs::MAX_CODE_BITS + 2] = {};  // first code of each length
    uint32_t offset_[pairs::MAX_CODE_BITS + 2] = {};  // index in sorted_ of the first code of each length
    int min_bits_ = 0, max_bits_ = 0;
    // The codes of at most LUT_BITS bits, by the next LUT_BITS bits of a block (bits 0 for a
    // longer code, or none), with the symbol's positions: a walk through a block touches
    // nothing else. Packed in 32 bits, so the table of a section is 16 KiB: code bits (5),
    // symbol (16), positions - 1 (11 bits; LONG_SYMBOL for 2048 positions or more, then read
    // from length_). With 64-bit entries (32 KiB) and no stop at uniform rules, version 8's
    // files probed 28-36 % slower than version 7's on a cold cache (FORMAT.md).
    struct Short {
        uint32_t packed;
        uint32_t bits() const { return packed & 31; }
        uint32_t symbol() const { return (packed >> 5) & 0xFFFF; }
        uint32_t length_field() const { return packed >> 21; }
    };
    static constexpr uint32_t LONG_SYMBOL = 2047;
    static_assert(pairs::MAX_SYMBOLS <= 65536 && pairs::MAX_SYMBOL_POSITIONS <= 32768 && pairs::MAX_CODE_BITS < 32);
    static constexpr int LUT_BITS = 12;
    std::vector<Short> lut_;
    const uint8_t* index_ = nullptr;   // u32 block, u16 offset per entry
    const uint8_t* blocks_ = nullptr;
};

}  // namespace pythia::tb
