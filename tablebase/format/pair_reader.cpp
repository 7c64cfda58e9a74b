// The reader's half of the pair codec (pair_codec.h): checking a payload, finding a position's
// block and symbol, batched reads, and decoding whole sections.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "tablebase/format/pair_codec.h"
#include "tablebase/format/pair_grammar.h"
#include "tablebase/format/parallel.h"

namespace pythia::tb {

namespace {

using pairs::Header;
using pairs::PairRule;

template <typename T>
T read_at(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

uint64_t load_be64(const uint8_t* p) { return __builtin_bswap64(read_at<uint64_t>(p)); }

}  // namespace

std::optional<PairsReader> PairsReader::parse(const uint8_t* data, uint64_t size, uint64_t positions,
                                              uint32_t num_terminals, std::string* why, HugePageArena* arena) {
    auto fail = [&](const char* what) -> std::optional<PairsReader> {
        if (why) *why = what;
        return std::nullopt;
    };
    if (size < sizeof(Header)) return fail("pair section shorter than its header");
    PairsReader r(arena);
    Header& h = r.h_;
    h = read_at<Header>(data);
    if (h.num_terminals != num_terminals || h.num_terminals == 0 || h.num_symbols < h.num_terminals ||
        h.num_symbols > pairs::MAX_SYMBOLS)
        return fail("pair section symbol counts");
    if (h.block_bytes < pairs::MIN_BLOCK_BYTES || h.block_bytes > pairs::MAX_BLOCK_BYTES || h.index_shift > 40 ||
        h.positions != positions || h.num_blocks == 0 || h.num_blocks > positions ||
        h.num_index != ((positions - 1) >> h.index_shift) + 1)
        return fail("pair section block or index counts");

    std::vector<PairRule> rules;
    std::vector<uint8_t> len;
    // The blocks end the payload; the grammar fills what is before them (zero-padded).
    const uint64_t block_area = h.num_blocks * h.block_bytes;  // no overflow: num_blocks <= positions < 2^40
    if (block_area > size - sizeof(Header) || (size - block_area) % 64 != 0) return fail("pair section size");
    const uint64_t blocks_at = size - block_area;
    if (!pairs::read_grammar(data + sizeof(Header), data + blocks_at, h.num_terminals, h.num_symbols, rules, len, why))
        return std::nullopt;

    // Each symbol's positions (length_) and the code it repeats throughout (-1 if none); the
    // readers' tables show a run as its code (`shown`).
    r.length_.assign(h.num_symbols, 0);
    std::vector<int32_t> run(h.num_symbols, -1);
    for (uint32_t s = 0; s < h.num_terminals; ++s) run[s] = int32_t(s);  // a code is its own run
    auto shown = [&](uint32_t s) { return uint16_t(run[s] >= 0 ? uint32_t(run[s]) : s); };
    auto symbol_positions = [&](uint32_t s) { return r.length_[s] + 1u; };
    r.rules_.assign(h.num_symbols, Rule{0, 0, 0});
    for (uint32_t s = h.num_terminals; s < h.num_symbols; ++s) {
        const uint16_t left = rules[s].left, right = rules[s].right;
        if (left >= s || right >= s) return fail("pair section rule");
        const uint32_t n = symbol_positions(left) + symbol_positions(right);
        if (n > pairs::MAX_SYMBOL_POSITIONS) return fail("pair section symbol length");
        r.length_[s] = uint16_t(n - 1);
        run[s] = run[left] == run[right] ? run[left] : -1;
        r.rules_[s] = Rule{shown(left), shown(right), uint16_t(symbol_positions(left))};
    }
    uint32_t count[pairs::MAX_CODE_BITS + 2] = {};
    uint64_t kraft = 0;
    for (uint32_t s = 0; s < h.num_symbols; ++s) {
        const uint8_t l = len[s];
        if (l > pairs::MAX_CODE_BITS) return fail("pair section code length");
        if (l) {
            ++count[l];
            kraft += 1ull << (pairs::MAX_CODE_BITS - l);
        }
    }
    if (kraft == 0 || kraft > (1ull << pairs::MAX_CODE_BITS)) return fail("pair section code lengths");
    for (int l = 1; l <= pairs::MAX_CODE_BITS; ++l)
        if (count[l]) r.max_bits_ = uint32_t(l);
    uint32_t code = 0, at = 0;
    for (int l = 1; l <= pairs::MAX_CODE_BITS; ++l) {
        r.base_[l] = at - code;
        r.limit_[l - 1] = (code + count[l]) << (pairs::MAX_CODE_BITS - l);
        at += count[l];
        code = (code + count[l]) << 1;
    }
    // By (length, symbol): each length's symbols from the rank of its first code on.
    uint32_t rank[pairs::MAX_CODE_BITS + 1] = {};
    for (int l = 2; l <= pairs::MAX_CODE_BITS; ++l) rank[l] = rank[l - 1] + count[l - 1];
    r.coded_.assign(at, 0);
    for (uint32_t s = 0; s < h.num_symbols; ++s)
        if (len[s]) r.coded_[rank[len[s]]++] = uint32_t(shown(s)) | uint32_t(r.length_[s]) << 16;

    r.blocks_ = data + blocks_at;
    uint64_t total = 0;
    for (uint64_t b = 0; b < h.num_blocks; ++b) total += r.block_positions(b);
    if (total != positions) return fail("pair section block sizes");

    r.index_.resize(h.num_index);
    uint64_t b = 0, start = 0;
    for (uint64_t e = 0; e < h.num_index; ++e) {
        const uint64_t want = e << h.index_shift;
        while (want >= start + r.block_positions(b)) start += r.block_positions(b++);
        r.index_[e] = IndexEntry{uint32_t(b), uint32_t(want - start)};
    }
    return r;
}

uint32_t PairsReader::block_positions(uint64_t b) const {
    return uint32_t(read_at<uint16_t>(blocks_ + b * h_.block_bytes)) + 1;
}

void PairsReader::copy_block(uint64_t b, uint8_t* buffer) const {
    std::memcpy(buffer, blocks_ + b * h_.block_bytes, h_.block_bytes);
    std::memset(buffer + h_.block_bytes, 0, 8);
}

int PairsReader::decode_code(uint64_t w, uint32_t& bits) const {
    const uint32_t v = uint32_t(w >> (64 - pairs::MAX_CODE_BITS));
    uint32_t l = 1;
    for (int k = 0; k < pairs::MAX_CODE_BITS; ++k) l += v >= limit_[k];
    if (l > max_bits_) return -1;  // above every code: an incomplete code, in a corrupt file
    bits = l;
    return int(base_[l] + (v >> (pairs::MAX_CODE_BITS - l)));
}

int PairsReader::next_symbol(const uint8_t* block, uint32_t& bit, uint32_t& length) const {
    if (bit >= h_.block_bytes * 8) return -1;
    uint32_t bits;
    const int k = decode_code(load_be64(block + (bit >> 3)) << (bit & 7), bits);
    if (k < 0) return -1;
    bit += bits;
    length = (coded_[k] >> 16) + 1;
    return int(coded_[k] & 0xFFFF);
}

int PairsReader::symbol_at(const uint8_t* block, uint64_t& local, uint32_t start_bit) const {
    // The codes come from a 64-bit window loaded at most every 33 bits. A code's length needs
    // no load, so the loads of consecutive codes' positions overlap. The window may reach 8
    // bytes past the block (its padding, or the next block), but no code that starts there is
    // taken: a corrupt block whose codes run out gives -1.
    const uint32_t end = h_.block_bytes * 8;
    for (uint32_t bit = start_bit; bit < end;) {
        uint64_t w = load_be64(block + (bit >> 3)) << (bit & 7);  // at least 57 valid bits
        uint32_t used = 0;
        do {
            if (bit + used >= end) return -1;
            uint32_t bits;
            const int k = decode_code(w, bits);  // used <= 33: 24 valid bits
            if (k < 0) return -1;
            const uint32_t entry = coded_[k], length = (entry >> 16) + 1;
            if (local < length) return int(entry & 0xFFFF);
            local -= length;
            w <<= bits;
            used += bits;
        } while (used <= 33);
        bit += used;
    }
    return -1;
}

void PairsReader::build_checkpoints(const std::atomic<bool>* cancel, uint32_t spacing_bits) const {
    spacing_bits = std::max<uint32_t>(spacing_bits, 64);
    const uint32_t k = h_.block_bytes * 8 / spacing_bits;  // block_bytes * 8 <= 32768: a bit fits 16 bits
    if (k < 2 || checkpoints_.ready.load(std::memory_order_acquire)) return;
    const uint32_t per_block = k - 1;  // at spacing_bits, 2 * spacing_bits, ...
    std::vector<uint32_t> cp(h_.num_blocks * per_block);
    uint8_t buffer[pairs::MAX_BLOCK_BYTES + 8];
    for (uint64_t b = 0; b < h_.num_blocks; ++b) {
        if (cancel && b % 4096 == 0 && cancel->load()) return;
        copy_block(b, buffer);
        const uint32_t positions = block_positions(b);
        uint32_t* out = &cp[b * per_block];
        uint32_t bit = pairs::BLOCK_HEADER_BITS, before = 0, next = 0;  // before < positions <= 65536
        while (next < per_block && before < positions) {
            if (bit >= (next + 1) * spacing_bits) {
                out[next++] = bit << 16 | before;
                continue;
            }
            uint32_t length;
            // The block's end, or a corrupt block: its probes walk from the last checkpoint and find out.
            if (next_symbol(buffer, bit, length) < 0) break;
            before += length;
        }
        for (; next < per_block; ++next) out[next] = next ? out[next - 1] : pairs::BLOCK_HEADER_BITS << 16;
    }
    checkpoints_.at = std::move(cp);
    checkpoints_.per_block = per_block;
    checkpoints_.ready.store(true, std::memory_order_release);
}

void PairsReader::find_entry(uint64_t i, uint64_t& b, uint64_t& local) const {
    const uint64_t e = i >> h_.index_shift;
    const IndexEntry entry = index_[e];
    b = entry.block;
    local = entry.offset + (i - (e << h_.index_shift));
}

void PairsReader::walk_to_block(uint64_t& b, uint64_t& local) const {
    for (uint32_t size; local >= (size = block_positions(b));) local -= size, ++b;  // parse() checked the walk
}

uint32_t PairsReader::checkpoint_bit(uint64_t b, uint64_t& local) const {
    if (!checkpoints_.ready.load(std::memory_order_acquire)) return pairs::BLOCK_HEADER_BITS;
    const uint32_t k = checkpoints_.per_block;
    const uint32_t* cp = &checkpoints_.at[b * k];
    for (uint32_t j = k; j-- > 0;)
        if ((cp[j] & 0xFFFF) <= local) {
            local -= cp[j] & 0xFFFF;
            return cp[j] >> 16;
        }
    return pairs::BLOCK_HEADER_BITS;
}

int PairsReader::symbol_in_block(uint64_t b, uint64_t& local, uint32_t start_bit) const {
    // A walk reads at most 8 bytes past its block's end: the next block's, if there is one.
    if (b + 1 < h_.num_blocks) return symbol_at(blocks_ + b * h_.block_bytes, local, start_bit);
    uint8_t buffer[pairs::MAX_BLOCK_BYTES + 8];
    copy_block(b, buffer);
    return symbol_at(buffer, local, start_bit);
}

bool PairsReader::code_at(uint64_t i, uint32_t& code) const {
    if (i >= h_.positions) return false;
    uint64_t b, local;
    find_entry(i, b, local);
    walk_to_block(b, local);
    const uint32_t start_bit = checkpoint_bit(b, local);
    const int s = symbol_in_block(b, local, start_bit);
    if (s < 0) return false;
    code = uint32_t(s);
    while (descend(code, local)) {
    }
    return true;
}

void PairsReader::read_codes(BatchRead* reads, int n) {
    // Each loop's loads depend on the previous loop's only, not on the other reads'.
    for (BatchRead* x = reads; x < reads + n; ++x) {
        x->code = 0;
        x->ok = x->position < x->reader->h_.positions;
        if (x->ok) x->reader->find_entry(x->position, x->block, x->local);
    }
    for (BatchRead* x = reads; x < reads + n; ++x)
        if (x->ok) x->reader->walk_to_block(x->block, x->local);
    for (BatchRead* x = reads; x < reads + n; ++x)
        if (x->ok) x->start_bit = x->reader->checkpoint_bit(x->block, x->local);
    for (BatchRead* x = reads; x < reads + n; ++x) {
        if (!x->ok) continue;
        const int s = x->reader->symbol_in_block(x->block, x->local, x->start_bit);
        x->ok = s >= 0;
        x->code = uint32_t(s);
    }
    for (bool stepped = true; stepped;) {
        stepped = false;
        for (BatchRead* x = reads; x < reads + n; ++x)
            if (x->ok && x->reader->descend(x->code, x->local)) stepped = true;
    }
}

namespace {

// Writes `n` copies of `code` from position `i` of a zeroed stream of `bits`-bit codes (at most
// 8): whole bytes at once.
void fill_codes(uint8_t* out, int bits, uint64_t i, uint64_t n, uint32_t code) {
    if (bits == 8) {
        std::memset(out + i, int(code), n);
        return;
    }
    const uint64_t per_byte = 8 / bits;
    auto put = [&](uint64_t at) { out[(at * bits) >> 3] |= uint8_t(code << ((at * bits) & 7)); };
    for (; n && i % per_byte; --n) put(i++);
    uint8_t pattern = 0;
    for (uint64_t k = 0; k < per_byte; ++k) pattern |= uint8_t(code << (k * bits));
    std::memset(out + i / per_byte, pattern, n / per_byte);
    i += n / per_byte * per_byte;
    for (n %= per_byte; n; --n) put(i++);
}

}  // namespace

bool PairsReader::decode_all(uint8_t* out, int bits, int threads, uint64_t chunk_positions) const {
    if (bits < 1 || bits > 8) return false;
    // Pieces (a symbol, or a run of one code, with its positions) of at most 56 bits of codes
    // are written whole, as a 64-bit OR (a byte-aligned word holds them at any bit offset);
    // longer runs with fill_codes; other symbols are expanded depth first (the stack never
    // holds more than the tree is deep, plus one).
    constexpr uint32_t WORD_BITS = 56;
    const uint32_t terminals = h_.num_terminals;
    auto fits = [&](uint32_t n) { return uint64_t(n) * bits <= WORD_BITS; };
    uint64_t ones[WORD_BITS + 1] = {};  // n codes 1: a run of n codes c is c * ones[n] (no carries)
    for (uint32_t n = 1; n * bits <= WORD_BITS; ++n) ones[n] = ones[n - 1] | uint64_t(1) << ((n - 1) * bits);
    auto run_word = [&](uint32_t code, uint32_t n) { return uint64_t(code) * ones[n]; };
    std::vector<uint64_t> word(h_.num_symbols, 0);  // of the pair symbols that fit
    auto piece_word = [&](uint32_t t, uint32_t n) { return t < terminals ? run_word(t, n) : word[t]; };
    for (uint32_t t = terminals; t < h_.num_symbols; ++t) {
        const uint32_t n = length_[t] + 1u, left = rules_[t].left_length;
        if (fits(n))
            word[t] = piece_word(rules_[t].left, left) | piece_word(rules_[t].right, n - left) << (left * bits);
    }
    struct Piece {
        uint16_t symbol;
        uint16_t positions_minus_1;
    };
    // Chunks of whole blocks, decoded in parallel, each into a buffer of its own bytes: only a
    // chunk's first and last byte can hold codes of a neighbour, and those are OR-ed in atomically.
    std::vector<uint64_t> chunk_block{0}, chunk_first{0};
    uint64_t p = 0;
    for (uint64_t b = 0; b < h_.num_blocks; ++b) {
        p += block_positions(b);
        if (p - chunk_first.back() >= chunk_positions || b + 1 == h_.num_blocks) {
            chunk_block.push_back(b + 1);
            chunk_first.push_back(p);
        }
    }
    if (p != h_.positions) return false;  // parse() checked it
    std::atomic<bool> ok{true};
    parallel_for(chunk_block.size() - 1, threads, 1, [&](uint64_t c0, uint64_t c1, int) {
        std::vector<uint8_t> chunk;
        std::vector<Piece> stack(h_.num_symbols + 1);
        uint8_t buffer[pairs::MAX_BLOCK_BYTES + 8];
        for (uint64_t c = c0; c < c1 && ok; ++c) {
            const uint64_t first_byte = chunk_first[c] * bits >> 3, end_byte = (chunk_first[c + 1] * bits + 7) >> 3;
            chunk.assign(end_byte - first_byte + 8, 0);                 // 8 bytes of room for the last word
            const uint64_t begin = (chunk_first[c] * bits & 7) / bits;  // the chunk's first position in `chunk`
            uint64_t i = begin;
            for (uint64_t b = chunk_block[c]; b < chunk_block[c + 1]; ++b) {
                copy_block(b, buffer);
                uint32_t bit = pairs::BLOCK_HEADER_BITS;
                for (uint32_t left = block_positions(b); left;) {
                    uint32_t length;
                    const int s = next_symbol(buffer, bit, length);
                    if (s < 0 || length > left) {
                        ok = false;
                        return;
                    }
                    left -= length;
                    size_t top = 0;
                    stack[top++] = Piece{uint16_t(s), uint16_t(length - 1)};
                    while (top) {
                        const Piece piece = stack[--top];
                        const uint32_t t = piece.symbol, n = piece.positions_minus_1 + 1u;
                        const uint64_t at = i * bits;
                        if (fits(n)) {
                            uint64_t w;
                            std::memcpy(&w, chunk.data() + (at >> 3), 8);
                            w |= piece_word(t, n) << (at & 7);
                            std::memcpy(chunk.data() + (at >> 3), &w, 8);
                            i += n;
                        } else if (t < terminals) {
                            fill_codes(chunk.data(), bits, i, n, t);
                            i += n;
                        } else {
                            const Rule& r = rules_[t];
                            stack[top++] = Piece{r.right, uint16_t(n - r.left_length - 1)};
                            stack[top++] = Piece{r.left, uint16_t(r.left_length - 1)};
                        }
                    }
                }
            }
            if (i - begin != chunk_first[c + 1] - chunk_first[c]) {
                ok = false;
                return;
            }
            const uint64_t bytes = end_byte - first_byte;
            __atomic_fetch_or(out + first_byte, chunk[0], __ATOMIC_RELAXED);
            if (bytes > 1) {
                std::memcpy(out + first_byte + 1, chunk.data() + 1, bytes - 2);
                __atomic_fetch_or(out + end_byte - 1, chunk[bytes - 1], __ATOMIC_RELAXED);
            }
        }
    });
    return ok;
}

}  // namespace pythia::tb
