#include "tablebase/format/section_encoder.h"

#include <lz4.h>
#include <lz4hc.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "tablebase/format/pair_codec.h"
#include "tablebase/format/parallel.h"

namespace pythia::tb {

namespace {

constexpr uint64_t GRAIN = 1 << 16;  // positions per work item (a multiple of 8)
// AT_MOST bounds are WDL symbols (0..4) or DTM goodness keys (table_writer.cpp, below 0x4400).
constexpr int AT_MOST_LIMIT = 1 << 15;
constexpr uint64_t SMALL_STREAM_BYTES = 8 << 20;
constexpr uint64_t SAMPLE_STRETCHES = 32;

int code_bits_for(uint32_t symbols) {
    if (symbols <= 1) return 0;
    for (int bits : {1, 2, 4, 8, 16})
        if (symbols <= (1u << bits)) return bits;
    throw std::length_error("a table section has more than 65536 different values");
}

// Symbols of every context ranked by frequency, so that the common values get small codes
// (and, packed, the runs LZ4 likes).
struct SymbolTable {
    uint32_t num_contexts = 1, num_symbols = 1;
    std::vector<uint16_t> symbols;              // [ctx][code]
    std::vector<std::vector<int32_t>> code;     // [ctx][value] -> code, -1 if absent
    std::vector<std::vector<int32_t>> at_most;  // [ctx][bound] -> most frequent code with symbol <= bound

    uint16_t symbol(uint32_t ctx, uint32_t c) const { return symbols[size_t(ctx) * num_symbols + c]; }
};

SymbolTable rank_symbols(uint64_t n, const CellSource& source, const SectionPlan& plan) {
    const uint32_t contexts = plan.num_contexts;
    // Pass 1: counts per context and value, and the AT_MOST bounds. A flat table per worker over
    // the compact keys (values of distance < 1024: nearly all), a map for the rest; a flat table
    // over all 65536 values would be 0.5 MiB per context (DTZ by DTM code has hundreds).
    constexpr uint32_t COMPACT = 8 << 10;
    auto compact = [](uint16_t v) { return (v & 0x1C00) ? COMPACT : uint32_t(v >> 13) << 10 | (v & 0x3FF); };
    auto expand = [](uint32_t k) { return uint16_t((k >> 10) << 13 | (k & 0x3FF)); };
    const int workers = workers_for(n, plan.threads, GRAIN);
    std::vector<std::vector<uint64_t>> local(workers);
    std::vector<std::map<uint32_t, uint64_t>> local_rare(workers);
    std::vector<std::vector<uint8_t>> local_bounds(workers);
    std::vector<std::vector<Cell>> cells(workers);
    parallel_for(n, plan.threads, GRAIN, [&](uint64_t begin, uint64_t end, int w) {
        auto& count = local[w];
        auto& bound = local_bounds[w];
        if (count.empty()) {
            count.assign(size_t(contexts) * COMPACT, 0);
            cells[w].resize(GRAIN);
        }
        Cell* c = cells[w].data();
        source(begin, end, c);
        for (uint64_t i = 0; i < end - begin; ++i) {
            if (c[i].kind == Cell::EXACT) {
                const uint32_t k = compact(c[i].value);
                if (k < COMPACT)
                    ++count[size_t(c[i].context) * COMPACT + k];
                else
                    ++local_rare[w][uint32_t(c[i].context) << 16 | c[i].value];
            } else if (c[i].kind == Cell::AT_MOST) {
                if (bound.empty()) bound.assign(size_t(contexts) * AT_MOST_LIMIT, 0);  // only streams with bounds
                bound[size_t(c[i].context) * AT_MOST_LIMIT + std::min<int>(c[i].value, AT_MOST_LIMIT - 1)] = 1;
            }
        }
    });
    std::vector<std::map<uint16_t, uint64_t>> counts(contexts);  // value -> count, per context
    std::vector<std::vector<bool>> bounds(contexts);             // [ctx][bound], empty where no worker saw one
    for (int w = 0; w < workers; ++w) {
        if (local[w].empty()) continue;
        for (uint32_t ctx = 0; ctx < contexts; ++ctx) {
            const uint64_t* row = local[w].data() + size_t(ctx) * COMPACT;
            for (uint32_t k = 0; k < COMPACT; ++k)
                if (row[k]) counts[ctx][expand(k)] += row[k];
            if (local_bounds[w].empty()) continue;
            if (bounds[ctx].empty()) bounds[ctx].assign(AT_MOST_LIMIT, false);
            for (int b = 0; b < AT_MOST_LIMIT; ++b)
                if (local_bounds[w][size_t(ctx) * AT_MOST_LIMIT + b]) bounds[ctx][b] = true;
        }
        for (const auto& [key, number] : local_rare[w]) counts[key >> 16][uint16_t(key)] += number;
    }

    SymbolTable t;
    t.num_contexts = contexts;
    std::vector<std::vector<uint16_t>> ranked(contexts);
    for (uint32_t ctx = 0; ctx < contexts; ++ctx) {
        auto& cnt = counts[ctx];
        // An AT_MOST bound with no exact symbol at or below it gets its own symbol.
        for (int b = 0; b < AT_MOST_LIMIT && !bounds[ctx].empty(); ++b)
            if (bounds[ctx][b] && (cnt.empty() || cnt.begin()->first > b)) cnt[uint16_t(b)] = 1;
        for (const auto& [v, number] : cnt) ranked[ctx].push_back(v);  // ascending values
        std::stable_sort(ranked[ctx].begin(), ranked[ctx].end(),
                         [&](uint16_t a, uint16_t b) { return cnt.at(a) > cnt.at(b); });
        t.num_symbols = std::max<uint32_t>(t.num_symbols, uint32_t(ranked[ctx].size()));
    }
    // Contexts with fewer symbols repeat their most frequent one (a context without any symbol,
    // such as the draws of a DTZ read by DTM sign, decodes to 0: a draw).
    t.symbols.assign(size_t(contexts) * t.num_symbols, 0);
    t.code.resize(contexts);
    t.at_most.resize(contexts);
    for (uint32_t ctx = 0; ctx < contexts; ++ctx) {
        const auto& r = ranked[ctx];
        for (uint32_t c = 0; c < t.num_symbols; ++c)
            t.symbols[size_t(ctx) * t.num_symbols + c] = r.empty() ? 0 : c < r.size() ? r[c] : r[0];
        t.code[ctx].assign(r.empty() ? 0 : *std::max_element(r.begin(), r.end()) + 1, -1);
        for (uint32_t c = 0; c < r.size(); ++c) t.code[ctx][r[c]] = int32_t(c);
        // Only the bounds that occur: a DTM stream has thousands of possible ones.
        for (int b = 0; b < AT_MOST_LIMIT && !bounds[ctx].empty(); ++b) {
            if (!bounds[ctx][b]) continue;
            if (t.at_most[ctx].empty()) t.at_most[ctx].assign(AT_MOST_LIMIT, -1);
            for (uint32_t c = 0; c < r.size() && t.at_most[ctx][b] < 0; ++c)
                if (r[c] <= b) t.at_most[ctx][b] = int32_t(c);
        }
    }
    return t;
}

// Pass 2: the code of every position, packed. A run of don't-care positions takes one code, the
// way Syzygy's writer fills them: its left neighbour's when that one may be stored there and
// itself repeats the code before it; else its right neighbour's when that may and starts a run of
// two, or when the left one may not; else the left one's when it may. Otherwise each position
// repeats the previous code when it may, or takes the most frequent code it may. On KBNvKN's WDL
// (in its chosen storage order) this is 4.6 % smaller than always repeating the left code.
std::vector<uint8_t> make_codes(uint64_t n, const CellSource& source, const SymbolTable& t, int bits, int threads) {
    std::vector<uint8_t> out((n * bits + 7) / 8, 0);
    if (bits == 0) return out;
    std::vector<std::vector<Cell>> cells(workers_for(n, threads, GRAIN));
    parallel_for(n, threads, GRAIN, [&](uint64_t begin, uint64_t end, int w) {
        if (cells[w].empty()) cells[w].resize(GRAIN);
        Cell* cell = cells[w].data();
        source(begin, end, cell);
        const uint64_t m = end - begin;
        auto exact_code = [&](const Cell& c) { return uint32_t(t.code[c.context][c.value]); };
        // True if every position of the run [q, r) may hold `code`.
        auto fits = [&](uint64_t q, uint64_t r, uint32_t code) {
            for (uint64_t k = q; k < r; ++k)
                if (cell[k].kind == Cell::AT_MOST && t.symbol(cell[k].context, code) > cell[k].value) return false;
            return true;
        };
        auto put = [&](uint64_t i, uint32_t code) {
            if (bits == 16) {
                out[2 * i] = uint8_t(code);
                out[2 * i + 1] = uint8_t(code >> 8);
            } else if (bits == 8) {
                out[i] = uint8_t(code);
            } else {
                const uint64_t bit = i * bits;
                out[bit >> 3] |= uint8_t(code << (bit & 7));  // a work item is whole bytes
            }
        };
        uint32_t prev = 0, before_prev = 0;  // the codes of positions q - 1 and q - 2
        for (uint64_t q = 0; q < m;) {
            if (cell[q].kind == Cell::EXACT) {
                before_prev = prev;
                prev = exact_code(cell[q]);
                put(begin + q++, prev);
                continue;
            }
            uint64_t r = q;
            while (r < m && cell[r].kind != Cell::EXACT) ++r;
            int fill = -1;
            bool left_run = false;
            if (q > 0 && fits(q, r, prev)) {
                fill = int(prev);
                left_run = q > 1 && before_prev == prev;
            }
            if (r < m && !left_run) {
                const uint32_t right = exact_code(cell[r]);
                const bool right_run = r + 1 < m && cell[r + 1].kind == Cell::EXACT && exact_code(cell[r + 1]) == right;
                if ((fill < 0 || right_run) && fits(q, r, right)) fill = int(right);
            }
            for (; q < r; ++q) {
                uint32_t code = prev;
                if (fill >= 0)
                    code = uint32_t(fill);
                else if (cell[q].kind == Cell::AT_MOST && t.symbol(cell[q].context, prev) > cell[q].value)
                    code = uint32_t(t.at_most[cell[q].context][cell[q].value]);
                before_prev = prev;
                put(begin + q, prev = code);
            }
        }
    });
    return out;
}

// The dictionary: 1 KiB pieces taken at even intervals over the stream; none for a stream
// too short to pay for it.
std::vector<uint8_t> sample_dictionary(const std::vector<uint8_t>& codes, size_t bytes) {
    std::vector<uint8_t> dict;
    const size_t piece = 1024, pieces = bytes / piece;
    if (pieces == 0 || codes.size() < 16 * bytes) return dict;
    for (size_t k = 0; k < pieces; ++k) {
        size_t at = codes.size() / pieces * k;
        dict.insert(dict.end(), codes.begin() + at, codes.begin() + at + piece);
    }
    return dict;
}

// LZ4-HC with a dictionary: the dictionary is hashed once and the prepared state copied for
// every block (loading 64 KiB of dictionary per 1 KiB block would dominate the writing time).
class Compressor {
public:
    Compressor(const std::vector<uint8_t>& dict, int level)
        : work_(LZ4_createStreamHC()), prepared_(LZ4_createStreamHC()) {
        LZ4_resetStreamHC_fast(prepared_, level);
        if (!dict.empty()) LZ4_loadDictHC(prepared_, reinterpret_cast<const char*>(dict.data()), int(dict.size()));
    }
    ~Compressor() {
        LZ4_freeStreamHC(work_);
        LZ4_freeStreamHC(prepared_);
    }
    Compressor(const Compressor&) = delete;
    Compressor& operator=(const Compressor&) = delete;

    // Appends the compressed block to `out` and returns its size.
    size_t compress(const uint8_t* src, size_t n, std::vector<uint8_t>& out) {
        std::memcpy(work_, prepared_, sizeof(LZ4_streamHC_t));
        const size_t at = out.size();
        out.resize(at + size_t(LZ4_compressBound(int(n))));
        int size = LZ4_compress_HC_continue(work_, reinterpret_cast<const char*>(src),
                                            reinterpret_cast<char*>(out.data() + at), int(n), int(out.size() - at));
        if (size <= 0) throw std::runtime_error("LZ4 compression failed");
        out.resize(at + size_t(size));
        return size_t(size);
    }

private:
    LZ4_streamHC_t* work_;
    LZ4_streamHC_t* prepared_;
};

struct Compressed {
    std::vector<uint8_t> data;
    std::vector<uint64_t> ends;
};

Compressed compress_blocks(const std::vector<uint8_t>& codes, uint32_t block_bytes, const std::vector<uint8_t>& dict,
                           const std::vector<uint64_t>& which, int threads, int level) {
    std::vector<std::vector<uint8_t>> parts(which.size());
    // One compressor per worker: preparing one (two 256 KiB states, the dictionary hashed) costs
    // about as much as compressing 16 blocks.
    std::vector<std::unique_ptr<Compressor>> compressors(workers_for(which.size(), threads, 16));
    parallel_for(which.size(), threads, 16, [&](uint64_t begin, uint64_t end, int w) {
        if (!compressors[w]) compressors[w] = std::make_unique<Compressor>(dict, level);
        for (uint64_t k = begin; k < end; ++k) {
            const uint64_t from = which[k] * block_bytes;
            compressors[w]->compress(codes.data() + from, std::min<uint64_t>(block_bytes, codes.size() - from),
                                     parts[k]);
        }
    });
    Compressed out;
    for (auto& p : parts) {
        out.data.insert(out.data.end(), p.begin(), p.end());
        out.ends.push_back(out.data.size());
    }
    return out;
}

}  // namespace

uint32_t EncodedSection::code_of(uint64_t i) const {
    const int bits = header.code_bits;
    if (bits == 0) return 0;
    if (bits == 16) return uint32_t(codes[2 * i]) | uint32_t(codes[2 * i + 1]) << 8;
    const uint64_t bit = i * bits;
    return (codes[bit >> 3] >> (bit & 7)) & ((1u << bits) - 1);
}

// The pair codec takes codes of up to 8 bits; a wider section stays LZ4 whatever the plan.
static bool uses_pairs(const SectionPlan& plan, int bits) { return plan.codec == Codec::PAIRS && bits <= 8; }

EncodedSection encode_section(uint64_t n, const CellSource& source, const SectionPlan& plan,
                              const CellSource& counted) {
    const SymbolTable t = rank_symbols(n, counted ? counted : source, plan);
    const int bits = code_bits_for(t.num_symbols);

    EncodedSection s;
    SectionHeader& h = s.header;
    h.metric = uint8_t(plan.metric);
    h.side = uint8_t(plan.side);
    h.code_bits = uint8_t(bits);
    h.context = uint8_t(plan.context);
    h.flags = plan.flags;
    h.num_symbols = t.num_symbols;
    h.num_contexts = t.num_contexts;
    s.symbols = t.symbols;
    s.positions = n;
    s.codes = make_codes(n, source, t, bits, plan.threads);
    s.estimated_bytes = 0;
    if (bits == 0) return s;
    if (uses_pairs(plan, bits) && plan.estimate_pair_rules) {
        s.estimated_bytes =
            double(estimate_pairs(s.codes.data(), bits, n, t.num_symbols, plan.threads, plan.estimate_pair_rules));
        return s;
    }
    if (uses_pairs(plan, bits) && !plan.estimate_only) {  // no LZ4 sample to choose blocks on
        if (plan.defer_compression) return s;
        finish_section(s, plan);
        s.estimated_bytes = double(s.data.size());
        return s;
    }

    // Choose the block size (and whether a dictionary pays) on a sample of the stream. Small
    // streams take the middle candidate with a dictionary: trying every candidate would cost
    // more than compressing them, for a few hundred bytes.
    struct Choice {
        uint32_t bytes;
        bool dict;
        double estimate;
    };
    std::vector<uint32_t> sizes = plan.block_bytes;
    std::sort(sizes.begin(), sizes.end());
    const bool small = s.codes.size() < SMALL_STREAM_BYTES;
    if (small) sizes = {sizes[sizes.size() / 2]};
    const std::vector<uint8_t> dict =
        plan.dictionary ? sample_dictionary(s.codes, MAX_DICT_BYTES) : std::vector<uint8_t>{};
    std::vector<Choice> choices;
    for (uint32_t bytes : sizes) {
        // The same SAMPLE_STRETCHES stretches of the stream (as many as fit) for every size.
        const uint64_t nblocks = (s.codes.size() + bytes - 1) / bytes;
        const uint64_t stretch = sizes.back() / bytes;  // blocks of this size per stretch
        const uint64_t stretches = (s.codes.size() + sizes.back() - 1) / sizes.back();
        const uint64_t step = std::max<uint64_t>(1, stretches / SAMPLE_STRETCHES);
        std::vector<uint64_t> which;
        for (uint64_t k = 0; k < stretches; k += step)
            for (uint64_t j = 0; j < stretch && k * stretch + j < nblocks; ++j) which.push_back(k * stretch + j);
        const double scale = double(nblocks) / which.size();
        const bool largest = bytes == sizes.back();
        for (bool use_dict : {false, true}) {
            if ((use_dict && dict.empty()) || (!use_dict && !largest && !dict.empty()) ||
                (!use_dict && small && !dict.empty()))
                continue;
            Compressed c = compress_blocks(s.codes, bytes, use_dict ? dict : std::vector<uint8_t>{}, which,
                                           plan.threads, plan.level);
            choices.push_back({bytes, use_dict, c.data.size() * scale + (use_dict ? dict.size() : 0)});
        }
    }
    double best = choices[0].estimate;
    for (const Choice& c : choices) best = std::min(best, c.estimate);
    Choice pick = choices[0];
    bool found = false;
    for (const Choice& c : choices)  // smallest blocks first (faster probes) within the tolerance
        if (c.estimate <= best * plan.block_tolerance &&
            (!found || c.bytes < pick.bytes || (c.bytes == pick.bytes && c.estimate < pick.estimate))) {
            pick = c;
            found = true;
        }

    s.estimated_bytes = pick.estimate;
    h.block_positions = uint32_t(uint64_t(pick.bytes) * 8 / bits);
    h.num_blocks = (n + h.block_positions - 1) / h.block_positions;
    if (pick.dict) s.dictionary = dict;
    if (!plan.estimate_only && !plan.defer_compression) finish_section(s, plan);
    return s;
}

void encode_pairs_section(EncodedSection& s, uint64_t n, int threads, const std::vector<uint32_t>& block_bytes) {
    SectionHeader& h = s.header;
    s.data = encode_pairs(s.codes.data(), h.code_bits, n, h.num_symbols, threads, block_bytes);
    pairs::Header ph;
    std::memcpy(&ph, s.data.data(), sizeof ph);
    h.codec = uint8_t(Codec::PAIRS);
    h.block_positions = 0;
    h.num_blocks = ph.num_blocks;
    h.dict_size = 0;
    s.dictionary.clear();
    s.block_ends.clear();
}

void finish_section(EncodedSection& s, const SectionPlan& plan) {
    if (s.header.codec == uint8_t(Codec::PAIRS)) return;
    SectionHeader& h = s.header;
    if (h.code_bits == 0) return;
    if (uses_pairs(plan, h.code_bits)) {
        encode_pairs_section(s, s.positions, plan.threads, plan.pair_block_bytes);
        return;
    }
    const uint32_t block_bytes = uint32_t(uint64_t(h.block_positions) * h.code_bits / 8);
    std::vector<uint64_t> all(h.num_blocks);
    for (uint64_t b = 0; b < h.num_blocks; ++b) all[b] = b;
    Compressed c = compress_blocks(s.codes, block_bytes, s.dictionary, all, plan.threads, plan.level);
    s.data = std::move(c.data);
    s.block_ends = std::move(c.ends);
    h.dict_size = uint32_t(s.dictionary.size());
}

}  // namespace pythia::tb
