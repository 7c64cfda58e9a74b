#include "tablebase/pair_codec.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <queue>
#include <stdexcept>

#include "tablebase/pair_grammar.h"
#include "tablebase/parallel.h"
#include "tablebase/table_file.h"  // code_at

namespace pythia::tb {

namespace {

using pairs::Header;

template <typename T>
T read_at(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

uint64_t load_be64(const uint8_t* p) { return __builtin_bswap64(read_at<uint64_t>(p)); }

constexpr uint32_t MIN_PAIR_COUNT = 4;  // a new symbol costs a rule and a code length (about 2.4 bytes from version 9)
constexpr uint32_t PAIRS_PER_ROUND = 64;
constexpr uint32_t ROUND_SPREAD = 64;   // a round takes pairs at least 1/64 as frequent as its best
// The first stage (rounds that recount every pair, in parallel) hands over to the second (one
// pair at a time, see PairOccurrences) once there are STAGE_TWO_SYMBOLS symbols and the stream is
// short enough for the second stage's 18 bytes a symbol, or at the latest at FULL_RECOUNT_SYMBOLS
// symbols. Recounting every round is the cheaper way only while a round replaces much of the stream.
constexpr uint32_t STAGE_TWO_SYMBOLS = 256;
constexpr uint64_t STAGE_TWO_MAX_LENGTH = uint64_t(1) << 26;  // 1.2 GB of stage-two state
constexpr uint32_t FULL_RECOUNT_SYMBOLS = 4096;

// The pair counts of one worker, keyed by pair_key(left, right): a dense array for the pairs of
// the first DENSE symbols, which the long streams of the first rounds are made of, and an
// open-addressing hash table for the others (a dense array of every pair, as before format
// version 8, would take 16 GiB for 65535 symbols). Each part lists what it filled, so a round
// clears only that.
constexpr uint32_t pair_key(uint32_t left, uint32_t right) { return left << 16 | right; }
// Which of `workers` counts the pair: mixed, so that the pairs of a run (left == right) spread too.
inline uint32_t pair_owner(uint32_t left, uint32_t right, uint32_t workers) {
    const uint32_t h = (left * 0x9E3779B1u) ^ (right * 0x85EBCA77u);
    return uint32_t((uint64_t(h ^ h >> 15) * workers) >> 32);  // a multiply, not a division (11 % of counting)
}

class PairCounts {
public:
    void add(uint32_t left, uint32_t right) {
        if ((left | right) < DENSE) {
            const uint32_t k = left * DENSE + right;
            if (dense_[k]++ == 0) dense_touched_.push_back(k);
            return;
        }
        const uint32_t k = pair_key(left, right);
        uint32_t at = slot_of(k);
        if (slots_[at].key == EMPTY) {
            if (2 * (touched_.size() + 1) > slots_.size()) {  // keep the table at most half full
                grow();
                at = slot_of(k);
            }
            slots_[at].key = k;
            touched_.push_back(at);
        }
        ++slots_[at].count;
    }
    // f(left, right, count) for every pair counted.
    template <typename F>
    void for_each(F&& f) const {
        for (uint32_t k : dense_touched_) f(k / DENSE, k % DENSE, dense_[k]);
        for (uint32_t at : touched_) f(slots_[at].key >> 16, slots_[at].key & 0xFFFF, slots_[at].count);
    }
    void clear() {
        for (uint32_t k : dense_touched_) dense_[k] = 0;
        dense_touched_.clear();
        for (uint32_t at : touched_) slots_[at] = Slot{};
        touched_.clear();
    }

private:
    static constexpr uint32_t DENSE = 1024;        // 4 MiB of counts
    static constexpr uint32_t EMPTY = UINT32_MAX;  // no pair: symbols stay below 65535
    struct Slot {
        uint32_t key = EMPTY, count = 0;
    };

    uint32_t slot_of(uint32_t k) const {
        const uint32_t mask = uint32_t(slots_.size() - 1);
        uint32_t at = uint32_t((uint64_t(k) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
        while (slots_[at].key != k && slots_[at].key != EMPTY) at = (at + 1) & mask;
        return at;
    }
    void grow() {
        std::vector<Slot> old(2 * slots_.size());
        old.swap(slots_);
        std::vector<uint32_t> old_touched;
        old_touched.swap(touched_);
        for (uint32_t at : old_touched) {
            const uint32_t to = slot_of(old[at].key);
            slots_[to] = old[at];
            touched_.push_back(to);
        }
    }

    std::vector<uint32_t> dense_ = std::vector<uint32_t>(DENSE * DENSE, 0);
    std::vector<uint32_t> dense_touched_;
    std::vector<Slot> slots_ = std::vector<Slot>(1 << 16);
    std::vector<uint32_t> touched_;  // filled slots
};

// Spare PairCounts, all empty, for the next encode_pairs: the writer encodes hundreds of samples
// when it chooses storage orders. With the dense counts of format version 7, faulting in 64 MiB
// of fresh zero pages for each took a fifth of its CPU time (`tb rewrite KBNvKN`: 109 s of CPU,
// 21 of them in the kernel, against 85 s with the pool); a grown hash table is kept the same way.
class CountsPool {
public:
    std::unique_ptr<PairCounts> take() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (spare_.empty()) return std::make_unique<PairCounts>();
        auto c = std::move(spare_.back());
        spare_.pop_back();
        return c;
    }
    void give(std::unique_ptr<PairCounts> c) {
        c->clear();
        std::lock_guard<std::mutex> lock(mutex_);
        if (spare_.size() < MAX_SPARE) spare_.push_back(std::move(c));
    }

private:
    static constexpr size_t MAX_SPARE = 4;  // two encodes at once, two workers each
    std::mutex mutex_;
    std::vector<std::unique_ptr<PairCounts>> spare_;
};

CountsPool& counts_pool() {
    static CountsPool pool;
    return pool;
}

// Counts the pairs of x[0, end) that a left-to-right replacement could take: in a run "aaa"
// the pair aa is counted once per two symbols. Worker `w` of `workers` counts only the pairs it
// owns, over the whole stream, so the workers' counts need no merging (perf put the one-thread
// merge of the workers' counts at 7 % of `tb rewrite --wdl-only KBNvKR`).
void count_pairs(const uint16_t* x, uint64_t end, PairCounts& c, uint32_t w, uint32_t workers) {
    for (uint64_t i = 0; i + 1 < end;) {
        const uint32_t a = x[i], b = x[i + 1];
        if (workers == 1 || pair_owner(a, b, workers) == w) c.add(a, b);
        i += (a == b && i + 2 < end && x[i + 2] == a) ? 2 : 1;
    }
}

using pairs::PairRule;

// Makes the pair (a, b) a new symbol, which this round's pass puts wherever a is followed by b
// (right_of and new_of are by left symbol: a round's pairs have different left symbols).
void add_rule(uint32_t a, uint32_t b, std::vector<PairRule>& rules, std::vector<uint32_t>& length,
              std::vector<int32_t>& right_of, std::vector<int32_t>& new_of) {
    right_of[a] = int32_t(b);
    new_of[a] = int32_t(rules.size());
    rules.push_back({uint16_t(a), uint16_t(b)});
    const uint32_t positions = length[a] + length[b];
    length.push_back(positions);
}

// The grammar's second stage, once the first hands over: Re-Pair as Larsson and Moffat describe
// it, one pair at a time, always the most frequent. Each position knows its neighbours
// (replaced positions are unlinked, not moved) and belongs to the list of occurrences of the pair
// it starts, so a replacement visits only the pair's occurrences: the work follows the
// replacements, not the stream's length times the rounds. (Until 2026-11-25 this stage went in
// rounds of up to 64 pairs with a scan of the whole stream each: about a thousand scans of
// millions of symbols on a DTM section, 3-5 times the time for 1 % more bytes.) Occurrence lists
// stay in stream order, so a run "aaaa" becomes "cc", as a left-to-right pass would make it.
class PairOccurrences {
public:
    static constexpr uint32_t NIL = UINT32_MAX;

    explicit PairOccurrences(const std::vector<uint16_t>& x)
        : sym_(x), next_(x.size()), prev_(x.size()), occ_next_(x.size(), NIL), occ_prev_(x.size(), NIL) {
        const uint32_t m = uint32_t(x.size());
        for (uint32_t i = 0; i < m; ++i) {
            next_[i] = i + 1 < m ? i + 1 : NIL;
            prev_[i] = i ? i - 1 : NIL;
        }
        slots_.assign(1u << 16, Slot{});
        for (uint32_t i = 0; i + 1 < m; ++i) link(i, false);
        for (const Slot& s : slots_)
            if (s.key != EMPTY) changed(s.key, s.count);
    }

    // The most frequent pair with at least `min_count` occurrences that `allowed` accepts; false if none.
    template <typename Allowed>
    bool best_pair(uint32_t min_count, Allowed&& allowed, uint32_t& a, uint32_t& b) {
        while (!heap_.empty()) {
            const auto [count, key] = heap_.top();
            heap_.pop();
            const Slot* s = find(key);
            if (count < min_count) return false;
            if (s->count != count) {  // the count went down since (a rise pushes its own entry)
                if (s->count < count && s->count >= min_count) heap_.push({s->count, key});
                continue;
            }
            a = key >> 16;
            b = key & 0xFFFF;
            if (allowed(a, b)) return true;
        }
        return false;
    }

    // Replaces every occurrence of (a, b) by c, in stream order; returns how many.
    uint32_t replace(uint32_t a, uint32_t b, uint16_t c) {
        uint32_t replaced = 0;
        for (;;) {
            Slot* s = find(pair_key(a, b));
            if (!s || s->head == NIL) break;
            const uint32_t i = s->head, j = next_[i], h = prev_[i], k = next_[j];
            if (h != NIL) unlink(h);
            unlink(i);
            if (k != NIL) unlink(j);
            sym_[i] = c;
            next_[i] = k;
            if (k != NIL) prev_[k] = i;
            if (h != NIL) link(h);
            if (k != NIL) link(i);
            ++replaced;
        }
        // The pairs this made (each holds c) enter the heap once, with their final counts.
        for (uint32_t key : raised_) {
            Slot& s = *find(key);
            if (s.raised) changed(key, s.count);
            s.raised = false;
        }
        raised_.clear();
        return replaced;
    }

    // The stream as it stands.
    void write(std::vector<uint16_t>& x) const {
        x.clear();
        for (uint32_t i = sym_.empty() ? NIL : 0; i != NIL; i = next_[i]) x.push_back(sym_[i]);
    }

private:
    struct Slot {
        uint32_t key = EMPTY, count = 0, head = NIL, tail = NIL;
        bool raised = false;  // in raised_
    };
    static constexpr uint32_t EMPTY = UINT32_MAX;

    Slot* find(uint32_t key) {
        const uint32_t mask = uint32_t(slots_.size() - 1);
        for (uint32_t at = hash(key) & mask;; at = (at + 1) & mask) {
            if (slots_[at].key == key) return &slots_[at];
            if (slots_[at].key == EMPTY) return nullptr;
        }
    }
    Slot& find_or_add(uint32_t key) {
        if (2 * (used_ + 1) > slots_.size()) grow();
        const uint32_t mask = uint32_t(slots_.size() - 1);
        uint32_t at = hash(key) & mask;
        while (slots_[at].key != key && slots_[at].key != EMPTY) at = (at + 1) & mask;
        if (slots_[at].key == EMPTY) {
            slots_[at].key = key;
            ++used_;
        }
        return slots_[at];
    }
    static uint32_t hash(uint32_t key) { return uint32_t((uint64_t(key) * 0x9E3779B97F4A7C15ull) >> 32); }
    void grow() {
        std::vector<Slot> old(2 * slots_.size());
        old.swap(slots_);
        const uint32_t mask = uint32_t(slots_.size() - 1);
        for (const Slot& s : old) {
            if (s.key == EMPTY) continue;
            uint32_t at = hash(s.key) & mask;
            while (slots_[at].key != EMPTY) at = (at + 1) & mask;
            slots_[at] = s;
        }
    }
    void changed(uint32_t key, uint32_t count) {
        if (count >= MIN_PAIR_COUNT) heap_.push({count, key});
    }
    // Position i (whose successor exists) joins the tail of its pair's list.
    void link(uint32_t i, bool count_changed = true) {
        const uint32_t key = pair_key(sym_[i], sym_[next_[i]]);
        Slot& s = find_or_add(key);
        occ_prev_[i] = s.tail;
        occ_next_[i] = NIL;
        if (s.tail != NIL) occ_next_[s.tail] = i;
        else s.head = i;
        s.tail = i;
        ++s.count;
        if (count_changed && !s.raised) {
            s.raised = true;
            raised_.push_back(key);
        }
    }
    // Position i leaves its pair's list.
    void unlink(uint32_t i) {
        const uint32_t key = pair_key(sym_[i], sym_[next_[i]]);
        Slot& s = *find(key);
        if (occ_prev_[i] != NIL) occ_next_[occ_prev_[i]] = occ_next_[i];
        else s.head = occ_next_[i];
        if (occ_next_[i] != NIL) occ_prev_[occ_next_[i]] = occ_prev_[i];
        else s.tail = occ_prev_[i];
        --s.count;  // its entry in the heap stays, too high: best_pair() corrects it when it comes up
    }

    std::vector<uint16_t> sym_;
    std::vector<uint32_t> next_, prev_, occ_next_, occ_prev_;
    std::vector<Slot> slots_;
    size_t used_ = 0;
    std::vector<uint32_t> raised_;  // pairs whose count rose during a replace()
    std::priority_queue<std::pair<uint32_t, uint32_t>> heap_;  // (count, pair key), stale entries skipped
};

void extend_one_pair_at_a_time(std::vector<uint16_t>& x, std::vector<PairRule>& rules, std::vector<uint32_t>& length) {
    if (rules.size() >= pairs::MAX_SYMBOLS || x.size() < 2 || x.size() >= PairOccurrences::NIL) return;
    PairOccurrences occurrences(x);
    auto allowed = [&](uint32_t a, uint32_t b) { return length[a] + length[b] <= pairs::MAX_SYMBOL_POSITIONS; };
    uint32_t a, b;
    while (rules.size() < pairs::MAX_SYMBOLS && occurrences.best_pair(MIN_PAIR_COUNT, allowed, a, b)) {
        const uint16_t c = uint16_t(rules.size());
        rules.push_back({uint16_t(a), uint16_t(b)});
        length.push_back(length[a] + length[b]);
        occurrences.replace(a, b, c);
    }
    occurrences.write(x);
}

struct Blocks {
    std::vector<uint8_t> bytes;
    std::vector<uint16_t> sizes;  // positions - 1 per block
};

// Each block: its positions - 1 (u16, little-endian), then whole codes, MSB first, as many as
// fit in `block_bytes` (and in pairs::MAX_BLOCK_POSITIONS).
Blocks pack_blocks(const std::vector<uint16_t>& x, const std::vector<uint8_t>& len, const std::vector<uint32_t>& code,
                   const std::vector<uint32_t>& length, uint32_t block_bytes) {
    Blocks out;
    std::vector<uint8_t> block(block_bytes, 0);
    uint32_t bit = pairs::BLOCK_HEADER_BITS, positions = 0;
    auto close_block = [&] {
        const uint16_t size = uint16_t(positions - 1);
        std::memcpy(block.data(), &size, 2);
        out.bytes.insert(out.bytes.end(), block.begin(), block.end());
        out.sizes.push_back(size);
        std::fill(block.begin(), block.end(), 0);
        bit = pairs::BLOCK_HEADER_BITS;
        positions = 0;
    };
    for (uint16_t s : x) {
        if (positions && (bit + len[s] > block_bytes * 8 || positions + length[s] > pairs::MAX_BLOCK_POSITIONS))
            close_block();
        for (int k = len[s] - 1; k >= 0; --k, ++bit)
            if (code[s] >> k & 1) block[bit >> 3] |= uint8_t(0x80 >> (bit & 7));
        positions += length[s];
    }
    close_block();
    return out;
}

template <typename T>
void append(std::vector<uint8_t>& out, const T& v) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof v);
}

}  // namespace

uint64_t pairs::blocks_offset(const Header& h) {
    const uint64_t tables = sizeof(Header) + 4ull * (h.num_symbols - h.num_terminals) + h.num_symbols + 6 * h.num_index;
    return (tables + 63) / 64 * 64;
}

uint64_t pairs::payload_bytes(const Header& h) { return blocks_offset(h) + h.num_blocks * h.block_bytes; }

std::vector<uint8_t> encode_pairs(const uint8_t* packed, int bits, uint64_t n, uint32_t num_terminals, int threads,
                                  const std::vector<uint32_t>& block_candidates, pairs::Layout layout) {
    using pairs::blocks_offset;
    using pairs::payload_bytes;
    if (n == 0 || num_terminals == 0 || num_terminals > 256 || block_candidates.empty())
        throw std::invalid_argument("encode_pairs: bad arguments");
    for (uint32_t b : block_candidates)
        if (b < pairs::MIN_BLOCK_BYTES || b > pairs::MAX_BLOCK_BYTES) throw std::invalid_argument("encode_pairs: block size");
    std::vector<uint16_t> x(n);
    parallel_for(n, threads, 1 << 16, [&](uint64_t begin, uint64_t end, int) {
        for (uint64_t i = begin; i < end; ++i) x[i] = uint16_t(code_at(packed, i, bits));
    });

    // Re-Pair in rounds: each round replaces several frequent pairs with no symbol in common,
    // so one left-to-right pass replaces them all without ambiguity. Then
    // extend_one_pair_at_a_time goes on.
    std::vector<PairRule> rules(num_terminals, PairRule{0, 0});
    std::vector<uint32_t> length(num_terminals, 1);
    const int workers = std::max(1, std::min(threads, int(n >> 20) + 1));
    std::vector<std::unique_ptr<PairCounts>> counts;  // worker w's
    for (int w = 0; w < workers; ++w) counts.push_back(counts_pool().take());
    std::vector<uint64_t> part(workers + 1);
    while (rules.size() < FULL_RECOUNT_SYMBOLS &&
           (rules.size() < STAGE_TWO_SYMBOLS || x.size() > STAGE_TWO_MAX_LENGTH)) {
        const uint64_t m = x.size();
        for (int w = 0; w <= workers; ++w) part[w] = m * w / workers;
        parallel_for(workers, workers, 1, [&](uint64_t w, uint64_t, int) {
            counts[w]->clear();
            count_pairs(x.data(), m, *counts[w], uint32_t(w), uint32_t(workers));
        });
        // The round's candidates: pairs at least MIN_PAIR_COUNT and 1/ROUND_SPREAD of the best.
        uint32_t best = 0;
        for (const auto& c : counts)
            c->for_each([&](uint32_t, uint32_t, uint32_t n) { best = std::max(best, n); });
        const uint32_t floor = std::max<uint32_t>(MIN_PAIR_COUNT, (best + ROUND_SPREAD - 1) / ROUND_SPREAD);
        std::vector<std::pair<uint32_t, uint32_t>> candidates;  // (count, pair key)
        for (const auto& c : counts)
            c->for_each([&](uint32_t a, uint32_t b, uint32_t n) {
                if (n >= floor) candidates.push_back({n, pair_key(a, b)});
            });
        std::sort(candidates.rbegin(), candidates.rend());
        std::vector<int32_t> right_of(rules.size(), -1), new_of(rules.size(), -1);  // by left symbol
        std::vector<uint8_t> used(rules.size(), 0);
        uint32_t added = 0;
        for (const auto& [c, key] : candidates) {
            if (added == PAIRS_PER_ROUND || rules.size() == FULL_RECOUNT_SYMBOLS) break;
            const uint32_t a = key >> 16, b = key & 0xFFFF;
            if (used[a] || used[b] || length[a] + length[b] > pairs::MAX_SYMBOL_POSITIONS) continue;
            used[a] = used[b] = 1;
            add_rule(a, b, rules, length, right_of, new_of);
            ++added;
        }
        if (!added) break;
        // Replace within each part, compacting in place, then close the gaps between parts.
        std::vector<uint64_t> kept(workers);
        parallel_for(workers, workers, 1, [&](uint64_t w, uint64_t, int) {
            uint64_t o = part[w];
            for (uint64_t i = part[w]; i < part[w + 1];) {
                const uint16_t a = x[i];
                if (right_of[a] >= 0 && i + 1 < part[w + 1] && x[i + 1] == right_of[a]) {
                    x[o++] = uint16_t(new_of[a]);
                    i += 2;
                } else {
                    x[o++] = x[i++];
                }
            }
            kept[w] = o - part[w];
        });
        uint64_t o = kept[0];
        for (int w = 1; w < workers; ++w) {
            std::memmove(x.data() + o, x.data() + part[w], kept[w] * sizeof(uint16_t));
            o += kept[w];
        }
        x.resize(o);
    }
    for (auto& c : counts) counts_pool().give(std::move(c));
    extend_one_pair_at_a_time(x, rules, length);

    const uint32_t num_symbols = uint32_t(rules.size());
    {  // Numbered as the compact grammar codes them best (pair_grammar.h).
        const std::vector<uint16_t> order = pairs::generation_order(num_terminals, rules);
        std::vector<PairRule> renumbered(num_symbols, PairRule{0, 0});
        std::vector<uint32_t> renumbered_length(num_symbols);
        for (uint32_t s = 0; s < num_symbols; ++s) {
            if (s >= num_terminals) renumbered[order[s]] = PairRule{order[rules[s].left], order[rules[s].right]};
            renumbered_length[order[s]] = length[s];
        }
        rules.swap(renumbered);
        length.swap(renumbered_length);
        parallel_for(x.size(), threads, 1 << 16, [&](uint64_t begin, uint64_t end, int) {
            for (uint64_t i = begin; i < end; ++i) x[i] = order[x[i]];
        });
    }
    std::vector<uint64_t> freq(num_symbols, 0);
    for (uint16_t s : x) ++freq[s];
    const std::vector<uint8_t> len = pairs::code_lengths(freq);
    const std::vector<uint32_t> code = pairs::canonical_codes(len);

    // Blocks of each candidate size; the smallest payload wins (a table whose symbols are long
    // fills few bits of a block before it reaches pairs::MAX_BLOCK_POSITIONS, and prefers small ones).
    Header h{};
    h.num_terminals = num_terminals;
    h.num_symbols = num_symbols;
    h.positions = n;
    // Version 8 stores the index; version 9's payloads differ by their blocks only (the grammar is the same).
    auto bytes_of = [&](const Header& x) {
        return layout == pairs::Layout::VERSION_8 ? payload_bytes(x) : x.num_blocks * x.block_bytes;
    };
    Blocks packed_blocks;
    for (uint32_t bytes : block_candidates) {
        Blocks c = pack_blocks(x, len, code, length, bytes);
        Header t = h;
        t.block_bytes = bytes;
        t.num_blocks = c.sizes.size();
        // The sparse index: 2^shift positions per entry, about one entry per two to four blocks.
        const uint64_t per_block = std::max<uint64_t>(1, n / t.num_blocks);
        t.index_shift = uint32_t(std::min(40, 63 - __builtin_clzll(per_block) + 2));
        t.num_index = ((n - 1) >> t.index_shift) + 1;
        if (packed_blocks.sizes.empty() || bytes_of(t) < bytes_of(h)) {
            h = t;
            packed_blocks = std::move(c);
        }
    }
    const std::vector<uint8_t>& blocks = packed_blocks.bytes;
    const std::vector<uint16_t>& sizes = packed_blocks.sizes;

    std::vector<uint8_t> out;
    out.reserve(payload_bytes(h));
    append(out, h);
    if (layout == pairs::Layout::VERSION_9) {
        pairs::write_grammar(out, num_terminals, rules, len);
        out.resize((out.size() + 63) / 64 * 64, 0);  // blocks start on a cache line
        out.insert(out.end(), blocks.begin(), blocks.end());
        return out;
    }
    for (uint32_t s = num_terminals; s < num_symbols; ++s) {
        append(out, rules[s].left);
        append(out, rules[s].right);
    }
    out.insert(out.end(), len.begin(), len.end());
    uint64_t b = 0, start = 0;  // block b covers [start, start + sizes[b] + 1)
    for (uint64_t e = 0; e < h.num_index; ++e) {
        const uint64_t p = e << h.index_shift;
        while (p >= start + sizes[b] + 1) start += sizes[b++] + 1;
        append(out, uint32_t(b));
        append(out, uint16_t(p - start));
    }
    out.resize(blocks_offset(h), 0);  // blocks start on a cache line (the writer aligns the payload)
    out.insert(out.end(), blocks.begin(), blocks.end());
    if (out.size() != payload_bytes(h)) throw std::logic_error("encode_pairs: payload size");
    return out;
}

std::optional<PairsReader> PairsReader::parse(const uint8_t* data, uint64_t size, uint64_t positions,
                                              uint32_t num_terminals, std::string* why, pairs::Layout layout,
                                              HugePageArena* arena) {
    using pairs::blocks_offset;
    using pairs::payload_bytes;
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
    if (h.block_bytes < pairs::MIN_BLOCK_BYTES || h.block_bytes > pairs::MAX_BLOCK_BYTES || h.index_shift > 40 || h.positions != positions ||
        h.num_blocks == 0 || h.num_blocks > positions || h.num_index != ((positions - 1) >> h.index_shift) + 1)
        return fail("pair section block or index counts");

    std::vector<PairRule> rules;
    std::vector<uint8_t> len;
    const uint8_t* stored_index = nullptr;  // version 8
    uint64_t blocks_at = 0;
    if (layout == pairs::Layout::VERSION_9) {
        // The blocks end the payload; the grammar fills what is before them (zero-padded).
        const uint64_t block_area = h.num_blocks * h.block_bytes;  // no overflow: num_blocks <= positions < 2^40
        if (block_area > size - sizeof(Header) || (size - block_area) % 64 != 0) return fail("pair section size");
        blocks_at = size - block_area;
        if (!pairs::read_grammar(data + sizeof(Header), data + blocks_at, h.num_terminals, h.num_symbols, rules, len,
                                 why))
            return std::nullopt;
    } else {
        if (payload_bytes(h) != size) return fail("pair section size");
        blocks_at = blocks_offset(h);
        const uint8_t* p = data + sizeof(Header);
        rules.assign(h.num_symbols, PairRule{0, 0});
        for (uint32_t s = h.num_terminals; s < h.num_symbols; ++s, p += 4)
            rules[s] = PairRule{read_at<uint16_t>(p), read_at<uint16_t>(p + 2)};
        len.assign(p, p + h.num_symbols);
        stored_index = p + h.num_symbols;
    }

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
        if (stored_index && (read_at<uint32_t>(stored_index + 6 * e) != b ||
                             read_at<uint16_t>(stored_index + 6 * e + 4) != want - start))
            return fail("pair section index");
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
            chunk.assign(end_byte - first_byte + 8, 0);  // 8 bytes of room for the last word
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
