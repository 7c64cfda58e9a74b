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

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/huge_page_arena.h"

namespace pythia::tb {

namespace pairs {

// Terminals + pair symbols: the rules store symbols as u16, so this is the most there can be.
// Large 5-piece WDL grammars (KBPvKR's) reach it; a limit of 4096 made them larger.
constexpr uint32_t MAX_SYMBOLS = 65535;
constexpr uint32_t MAX_SYMBOL_POSITIONS = 32768;                 // positions one symbol stands for
constexpr uint32_t MAX_BLOCK_POSITIONS = 65536;                  // positions one block covers
constexpr int MAX_CODE_BITS = 24;                                // longest Huffman code
constexpr uint32_t MIN_BLOCK_BYTES = 8, MAX_BLOCK_BYTES = 4096;  // bytes per block
// The writer's candidates; it keeps the smallest payload, in practice 64 bytes: one cache line
// (blocks start on a multiple of 64 bytes). A probe decodes half a block on average, so
// 64-byte blocks probe slower than 32-byte ones and save 6-7 % of a WDL section; 16 or 32
// bytes are smaller where symbols are long and a block reaches MAX_BLOCK_POSITIONS before it
// is full.
inline const std::vector<uint32_t> DEFAULT_BLOCK_BYTES = {16, 32, 64};

// The fixed part at the start of a PAIRS section's payload.
struct Header {
    uint32_t num_terminals;  // the section's codes: symbols below this are codes
    uint32_t num_symbols;    // terminals + pairs
    uint32_t block_bytes;    // bytes per block (its size, then codes), MIN_BLOCK_BYTES..MAX_BLOCK_BYTES
    uint32_t index_shift;    // one index entry per 2^index_shift positions
    uint64_t num_blocks;
    uint64_t num_index;  // ceil(positions / 2^index_shift)
    uint64_t positions;
};
static_assert(sizeof(Header) == 40);

// After the header, the payload holds the grammar's bit stream (pair_grammar.h), zeros to a
// multiple of 64 bytes, then the blocks. The sparse index is not stored: the reader builds it
// from the blocks' sizes as it checks them (it is exactly what they imply).

// Each block starts with its number of positions - 1, u16 little-endian: the probe finds it in
// the block's own cache line.
constexpr uint32_t BLOCK_HEADER_BITS = 16;

}  // namespace pairs

// Compresses `n` codes (packed `bits` per position as table_file.h's code_at reads them, all
// below `num_terminals`) into a PAIRS payload, with the block size of `block_candidates` that
// makes it smallest. Uses up to `threads` threads.
std::vector<uint8_t> encode_pairs(const uint8_t* packed, int bits, uint64_t n, uint32_t num_terminals, int threads,
                                  const std::vector<uint32_t>& block_candidates = pairs::DEFAULT_BLOCK_BYTES);

// The bytes encode_pairs would make of the same codes, estimated without packing: Re-Pair
// stopped at `max_rules` pairs (below 4096: its first stage only, rounds that recount the
// whole stream), then the Huffman code lengths of what is left. Cheap enough to compare
// storage orders and ways of reading a stream on samples; the ranking, not the figure, is what
// it is for (a grammar cut short overstates every candidate).
uint64_t estimate_pairs(const uint8_t* packed, int bits, uint64_t n, uint32_t num_terminals, int threads,
                        uint32_t max_rules);

// A validated PAIRS payload inside a mapping (which must outlive it).
class PairsReader {
public:
    // Checks every table of the payload at `data` (`size` bytes); nullopt with `why` set if
    // anything is inconsistent. After this, reading never leaves [data, data + size). The
    // reader's own tables (index, rules, codes) are built in `arena` if given (it must outlive
    // the reader): a probe reads them at random places too.
    static std::optional<PairsReader> parse(const uint8_t* data, uint64_t size, uint64_t positions,
                                            uint32_t num_terminals, std::string* why, HugePageArena* arena = nullptr);

    // The code of position `i`; false if the block turns out corrupt.
    bool code_at(uint64_t i, uint32_t& code) const;

    // One read of a batch: the reader and position in, the code out (`ok` false if the position
    // is out of range or its block corrupt). Until the read is done, `code` is the symbol it has
    // got to and the rest where. No member has an initializer: the prober makes an array of
    // these for every move a position could have, at every probe that bounds moves, and the
    // initialisation cost more than the reads. The caller sets `reader` and `position`;
    // read_codes sets the rest.
    struct BatchRead {
        const PairsReader* reader;
        uint64_t position;
        uint32_t code;
        bool ok;
        uint64_t block, local;
        uint32_t start_bit;
    };
    // The codes of several positions, of one section or of several, read in lockstep: every
    // read's index entry, then every read's block, checkpoint, walk, and a step of every descent
    // at a time. The reads' cache misses then overlap instead of following one another, which
    // a probe reading one code after another never achieved, prefetches included. The prober
    // reads a position's moves this way.
    static void read_codes(BatchRead* reads, int n);
    // Records, every `spacing_bits` bits into each block (at least 64), where a code
    // starts and how many positions come before it, so that code_at walks from the last of them
    // before its position rather than from the block's start: the walk was most of a probe's
    // time, and checkpoints every 512 bits cut it to a quarter on 256-byte blocks. In memory
    // only, 4 bytes each. It decodes every code
    // once, so the prober calls it for the sections it probes (DTM, DTZ), not parse: the loader
    // and the tools decode whole sections. Walks give the same codes either way, and other
    // threads may read meanwhile (they walk from the blocks' starts until it is done); one
    // thread builds, once. Gives up, building nothing, once `cancel` is set.
    void build_checkpoints(const std::atomic<bool>* cancel = nullptr, uint32_t spacing_bits = 512) const;
    // Every code, packed `bits` per position (out has room for ceil(positions * bits / 8)
    // bytes, zeroed), with up to `threads` threads working on chunks of whole blocks of at
    // least `chunk_positions` positions. False if a block is corrupt.
    bool decode_all(uint8_t* out, int bits, int threads = 1, uint64_t chunk_positions = 1 << 20) const;

    const pairs::Header& header() const { return h_; }

private:
    // A pair symbol's rule as probes read it. A child that repeats one code throughout (a run)
    // is replaced by that code, so a descent ends where the run starts, one load earlier; the
    // child's positions are still left_length, or the parent's positions less left_length.
    struct Rule {
        uint16_t left, right;
        uint16_t left_length;  // positions of the left part (< 32768): one load per step of a descent
    };
    // The rank (in coded_) of the symbol whose Huffman code is at the top of `w` (at least 24
    // valid bits), with its code's length in `bits`; -1 if the bits are no code.
    int decode_code(uint64_t w, uint32_t& bits) const;
    // Decodes the Huffman code at `bit` of a zero-padded block: its symbol, or the code it
    // repeats if it is a run, with its positions in `length`; -1 if none.
    int next_symbol(const uint8_t* block, uint32_t& bit, uint32_t& length) const;
    // The symbol (or run's code) of a block that covers position `local` of the block, with
    // `local` made relative to it; -1 if the codes do not decode or run out first. Reads up to
    // 8 bytes past the block: zero padding, or the next block.
    int symbol_at(const uint8_t* block, uint64_t& local, uint32_t start_bit = pairs::BLOCK_HEADER_BITS) const;
    void copy_block(uint64_t b, uint8_t* buffer) const;
    uint32_t block_positions(uint64_t b) const;
    // The steps of code_at, which read_codes interleaves. `local`: the position's offset in
    // block `b`, then in the code it is in, then in the descent's current symbol.
    void find_entry(uint64_t i, uint64_t& b, uint64_t& local) const;  // from the index
    void walk_to_block(uint64_t& b, uint64_t& local) const;           // past the blocks before it
    uint32_t checkpoint_bit(uint64_t b, uint64_t& local) const;       // where its walk starts
    // symbol_at in block b, read where it is mapped (or from a zero-padded copy for the last
    // block, whose walk could otherwise read past the payload).
    int symbol_in_block(uint64_t b, uint64_t& local, uint32_t start_bit) const;
    // One step down the pair tree; false once `s` is a code (a terminal or a run's code).
    bool descend(uint32_t& s, uint64_t& local) const {
        if (s < h_.num_terminals) return false;
        const Rule& r = rules_[s];
        if (local < r.left_length) {
            s = r.left;
        } else {
            local -= r.left_length;
            s = r.right;
        }
        return true;
    }

    // Its tables in `arena`, or on the heap without one (parse).
    explicit PairsReader(HugePageArena* arena)
        : rules_(ArenaAllocator<Rule>(arena)),
          length_(ArenaAllocator<uint16_t>(arena)),
          coded_(ArenaAllocator<uint32_t>(arena)),
          index_(ArenaAllocator<IndexEntry>(arena)) {}

    template <typename T>
    using Table = std::vector<T, ArenaAllocator<T>>;
    pairs::Header h_{};
    Table<Rule> rules_;       // by symbol (a terminal's is unused)
    Table<uint16_t> length_;  // positions - 1 per symbol
    // The coded symbols by rank (code length, then symbol): the symbol (a run's code for a
    // run) with its positions - 1 in the high 16 bits. One load per code a walk passes: two
    // arrays of u16, so that a walk reads only lengths, probed no faster.
    Table<uint32_t> coded_;
    // Canonical Huffman decoding without a lookup table: a code's length is one more than the
    // number of lengths whose codes all sort below it (24 compares the compiler vectorizes),
    // so the next code's position never waits for a load and the loads of consecutive codes
    // overlap. A 4096-entry table, which made each code's position wait for a load, probed
    // long codes slower.
    uint32_t limit_[pairs::MAX_CODE_BITS] = {};     // left-justified end of the codes of length k + 1
    uint32_t base_[pairs::MAX_CODE_BITS + 2] = {};  // rank of a length's code 0 (wrapping)
    uint32_t max_bits_ = 0;
    static_assert(pairs::MAX_SYMBOLS <= 65536 && pairs::MAX_SYMBOL_POSITIONS <= 32768 && pairs::MAX_CODE_BITS <= 24);
    // Entry e: the block that holds position e << index_shift, and that position's offset in it.
    // Built at load from the blocks' sizes.
    struct IndexEntry {
        uint32_t block, offset;
    };
    Table<IndexEntry> index_;
    // A cache that build_checkpoints fills and then publishes through `ready` (release; code_at
    // acquires): mutable, as the reader is shared read-only.
    struct Checkpoints {
        std::vector<uint32_t> at;  // per block: a code's start bit << 16 | positions before it
        uint32_t per_block = 0;
        std::atomic<bool> ready{false};
        Checkpoints() = default;
        Checkpoints(const Checkpoints& o) : at(o.at), per_block(o.per_block), ready(o.ready.load()) {}
        Checkpoints& operator=(const Checkpoints& o) {
            at = o.at;
            per_block = o.per_block;
            ready = o.ready.load();
            return *this;
        }
    };
    mutable Checkpoints checkpoints_;
    const uint8_t* blocks_ = nullptr;
};

}  // namespace pythia::tb
