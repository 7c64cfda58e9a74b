// The writer's half of the pair codec (pair_codec.h): Re-Pair over a section's codes, the
// Huffman code of the final symbols, and the blocks they are packed into.
#include "tablebase/format/pair_codec.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <queue>
#include <stdexcept>

#include "tablebase/format/pair_grammar.h"
#include "tablebase/format/parallel.h"
#include "tablebase/format/table_file.h"  // code_at

namespace pythia::tb {

namespace {

using pairs::Header;

constexpr uint32_t MIN_PAIR_COUNT = 4;  // a new symbol costs a rule and a code length (about 2.4 bytes)
constexpr uint32_t PAIRS_PER_ROUND = 64;
constexpr uint32_t ROUND_SPREAD = 64;  // a round takes pairs at least 1/64 as frequent as its best
// The first stage (rounds that recount every pair, in parallel) hands over to the second (one
// pair at a time, see PairOccurrences) once there are STAGE_TWO_SYMBOLS symbols and the stream is
// short enough for the second stage's 20 bytes a symbol, or at the latest at FULL_RECOUNT_SYMBOLS
// symbols. Recounting every round is the cheaper way only while a round replaces much of the stream.
constexpr uint32_t STAGE_TWO_SYMBOLS = 256;
constexpr uint64_t STAGE_TWO_MAX_LENGTH = uint64_t(1) << 26;  // 1.3 GB of stage-two state
constexpr uint32_t FULL_RECOUNT_SYMBOLS = 4096;
// A round over a stream of at least twice COUNT_SAMPLE_SYMBOLS counts the pairs of every k-th
// chunk of COUNT_CHUNK symbols only, about COUNT_SAMPLE_SYMBOLS in all, and replaces its pairs in
// the whole stream. The first rounds, over the long streams, choose among pairs counted in the
// millions, which a sample of tens of millions ranks as the whole stream does; counting was most
// of the first stage (which scans a 402 M stream of KRPvKR about seven times over).
constexpr uint64_t COUNT_SAMPLE_SYMBOLS = uint64_t(1) << 25;
constexpr uint64_t COUNT_CHUNK = uint64_t(1) << 16;

// The pair counts of one worker, keyed by pair_key(left, right): a dense array for the pairs of
// the first DENSE symbols, which the long streams of the first rounds are made of, and an
// open-addressing hash table for the others (a dense array of every pair would take 16 GiB for
// 65535 symbols). Each part lists what it filled, so a round
// clears only that.
constexpr uint32_t pair_key(uint32_t left, uint32_t right) { return left << 16 | right; }
class PairCounts {
public:
    void add(uint32_t left, uint32_t right, uint32_t n = 1) {
        if ((left | right) < DENSE) {
            const uint32_t k = left * DENSE + right;
            if (dense_[k] == 0) dense_touched_.push_back(k);
            dense_[k] += n;
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
        slots_[at].count += n;
    }
    // Adds the counts of `other` (another part of the stream) to these.
    void merge(const PairCounts& other) {
        other.for_each([&](uint32_t a, uint32_t b, uint32_t n) { add(a, b, n); });
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
// when it chooses storage orders, and faulting in fresh zero pages of counts for each took a
// fifth of its CPU time (on KBNvKN); a grown hash table is kept the same way.
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

// Counts the pairs of x[begin, end) that a left-to-right replacement could take: in a run "aaa"
// the pair aa is counted once per two symbols. Each worker counts a part of the stream and the
// parts' counts are merged: when every worker read the whole stream and counted the pairs a hash
// gave it, that hash's unpredictable branch made counting twice as slow (on KRPvKR's DTM).
void count_pairs(const uint16_t* x, uint64_t begin, uint64_t end, PairCounts& c) {
    for (uint64_t i = begin; i + 1 < end;) {
        const uint32_t a = x[i], b = x[i + 1];
        c.add(a, b);
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
// replacements, not the stream's length times the rounds (rounds of up to 64 pairs with a scan
// of the whole stream each took 3-5 times as long on a DTM section, and compressed no better).
// Occurrence lists stay in stream order, so a run "aaaa" becomes "cc", as a left-to-right pass
// would make it.
class PairOccurrences {
public:
    static constexpr uint32_t NIL = UINT32_MAX;

    explicit PairOccurrences(const std::vector<uint16_t>& x) : at_(x.size()) {
        const uint32_t m = uint32_t(x.size());
        for (uint32_t i = 0; i < m; ++i) at_[i] = Position{i + 1 < m ? i + 1 : NIL, i ? i - 1 : NIL, NIL, NIL, x[i]};
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
            const uint32_t i = s->head, j = at_[i].next, h = at_[i].prev, k = at_[j].next;
            if (h != NIL) unlink(h);
            unlink(i);
            if (k != NIL) unlink(j);
            at_[i].sym = c;
            at_[i].next = k;
            if (k != NIL) at_[k].prev = i;
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
        for (uint32_t i = at_.empty() ? NIL : 0; i != NIL; i = at_[i].next) x.push_back(at_[i].sym);
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
        const uint32_t key = pair_key(at_[i].sym, at_[at_[i].next].sym);
        Slot& s = find_or_add(key);
        at_[i].occ_prev = s.tail;
        at_[i].occ_next = NIL;
        if (s.tail != NIL)
            at_[s.tail].occ_next = i;
        else
            s.head = i;
        s.tail = i;
        ++s.count;
        if (count_changed && !s.raised) {
            s.raised = true;
            raised_.push_back(key);
        }
    }
    // Position i leaves its pair's list.
    void unlink(uint32_t i) {
        Position& p = at_[i];
        const uint32_t key = pair_key(p.sym, at_[p.next].sym);
        Slot& s = *find(key);
        if (p.occ_prev != NIL)
            at_[p.occ_prev].occ_next = p.occ_next;
        else
            s.head = p.occ_next;
        if (p.occ_next != NIL)
            at_[p.occ_next].occ_prev = p.occ_prev;
        else
            s.tail = p.occ_prev;
        --s.count;  // its entry in the heap stays, too high: best_pair() corrects it when it comes up
    }

    // A position of the stream: its neighbours, its neighbours in its pair's list, its symbol.
    // Together, so that a replacement's visit to a position is one cache miss, not five (it
    // was five arrays; the second stage spent most of its time waiting on them).
    struct Position {
        uint32_t next, prev, occ_next, occ_prev;
        uint16_t sym;
    };
    std::vector<Position> at_;
    std::vector<Slot> slots_;
    size_t used_ = 0;
    std::vector<uint32_t> raised_;                             // pairs whose count rose during a replace()
    std::priority_queue<std::pair<uint32_t, uint32_t>> heap_;  // (count, pair key), stale entries skipped
};

void extend_one_pair_at_a_time(std::vector<uint16_t>& x, std::vector<PairRule>& rules, std::vector<uint32_t>& length,
                               uint32_t max_symbols) {
    if (rules.size() >= max_symbols || x.size() < 2 || x.size() >= PairOccurrences::NIL) return;
    PairOccurrences occurrences(x);
    auto allowed = [&](uint32_t a, uint32_t b) { return length[a] + length[b] <= pairs::MAX_SYMBOL_POSITIONS; };
    uint32_t a, b;
    while (rules.size() < max_symbols && occurrences.best_pair(MIN_PAIR_COUNT, allowed, a, b)) {
        const uint16_t c = uint16_t(rules.size());
        rules.push_back({uint16_t(a), uint16_t(b)});
        length.push_back(length[a] + length[b]);
        occurrences.replace(a, b, c);
    }
    occurrences.write(x);
}

// The codes of a packed stream, one u16 each (the alphabet Re-Pair works on).
std::vector<uint16_t> unpack(const uint8_t* packed, int bits, uint64_t n, int threads) {
    std::vector<uint16_t> x(n);
    parallel_for(n, threads, 1 << 16, [&](uint64_t begin, uint64_t end, int) {
        for (uint64_t i = begin; i < end; ++i) x[i] = uint16_t(code_at(packed, i, bits));
    });
    return x;
}

// Re-Pair over x (codes below num_terminals) until it has `max_symbols` symbols or no pair
// pays: x becomes the final symbols, `rules` and `length` (positions per symbol) describe them.
// `rounds_only`: the first stage alone (rounds that recount the whole stream), however short
// the stream.
void build_grammar(std::vector<uint16_t>& x, uint32_t num_terminals, int threads, uint32_t max_symbols,
                   bool rounds_only, std::vector<PairRule>& rules, std::vector<uint32_t>& length) {
    // Re-Pair in rounds: each round replaces several frequent pairs with no symbol in common,
    // so one left-to-right pass replaces them all without ambiguity. Then
    // extend_one_pair_at_a_time goes on.
    rules.assign(num_terminals, PairRule{0, 0});
    length.assign(num_terminals, 1);
    const uint32_t recount_symbols = rounds_only ? max_symbols : std::min(FULL_RECOUNT_SYMBOLS, max_symbols);
    const int workers = std::max(1, std::min(threads, int(x.size() >> 20) + 1));
    std::vector<std::unique_ptr<PairCounts>> counts;  // worker w's
    for (int w = 0; w < workers; ++w) counts.push_back(counts_pool().take());
    std::vector<uint64_t> part(workers + 1);
    while (rules.size() < recount_symbols &&
           (rounds_only || rules.size() < STAGE_TWO_SYMBOLS || x.size() > STAGE_TWO_MAX_LENGTH)) {
        const uint64_t m = x.size();
        for (int w = 0; w <= workers; ++w) part[w] = m * w / workers;
        // Chunks counted: every stride-th (every symbol when stride is 1), the same ones
        // whatever the number of workers.
        const uint64_t stride = m >= 2 * COUNT_SAMPLE_SYMBOLS ? m / COUNT_SAMPLE_SYMBOLS : 1;
        parallel_for(workers, workers, 1, [&](uint64_t w, uint64_t, int) {
            counts[w]->clear();
            if (stride == 1) {
                count_pairs(x.data(), part[w], std::min(m, part[w + 1] + 1),
                            *counts[w]);  // and the pair across its end
                return;
            }
            const uint64_t sampled = (m + stride * COUNT_CHUNK - 1) / (stride * COUNT_CHUNK);
            for (uint64_t j = sampled * w / workers; j < sampled * (w + 1) / workers; ++j) {
                const uint64_t begin = j * stride * COUNT_CHUNK;
                count_pairs(x.data(), begin, std::min(m, begin + COUNT_CHUNK + 1), *counts[w]);
            }
        });
        for (int w = 1; w < workers; ++w) counts[0]->merge(*counts[w]);
        // The round's candidates: pairs at least MIN_PAIR_COUNT (in the whole stream, as the
        // sample scales) and 1/ROUND_SPREAD of the best.
        uint32_t best = 0;
        counts[0]->for_each([&](uint32_t, uint32_t, uint32_t n) { best = std::max(best, n); });
        const uint32_t floor = std::max<uint32_t>(uint32_t((MIN_PAIR_COUNT + stride - 1) / stride),
                                                  (best + ROUND_SPREAD - 1) / ROUND_SPREAD);
        std::vector<std::pair<uint32_t, uint32_t>> candidates;  // (count, pair key)
        counts[0]->for_each([&](uint32_t a, uint32_t b, uint32_t n) {
            if (n >= floor) candidates.push_back({n, pair_key(a, b)});
        });
        std::sort(candidates.rbegin(), candidates.rend());
        std::vector<int32_t> right_of(rules.size(), -1), new_of(rules.size(), -1);  // by left symbol
        std::vector<uint8_t> used(rules.size(), 0);
        uint32_t added = 0;
        for (const auto& [c, key] : candidates) {
            if (added == PAIRS_PER_ROUND || rules.size() == recount_symbols) break;
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
    if (!rounds_only) extend_one_pair_at_a_time(x, rules, length, max_symbols);
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
    // A code goes in whole: its bits, MSB first, shifted to the block's next bit and ORed into
    // the four bytes it can touch; the block has four bytes of slack for that, never copied out.
    // (Bit by bit, with a branch a bit, packing was 3 % of the reference subset's CPU time.)
    static_assert(pairs::MAX_CODE_BITS + 7 <= 32);
    std::vector<uint8_t> block(block_bytes + 4, 0);
    uint32_t bit = pairs::BLOCK_HEADER_BITS, positions = 0;
    auto close_block = [&] {
        const uint16_t size = uint16_t(positions - 1);
        std::memcpy(block.data(), &size, 2);
        out.bytes.insert(out.bytes.end(), block.begin(), block.begin() + block_bytes);
        out.sizes.push_back(size);
        std::fill(block.begin(), block.end(), 0);
        bit = pairs::BLOCK_HEADER_BITS;
        positions = 0;
    };
    for (uint16_t s : x) {
        if (positions && (bit + len[s] > block_bytes * 8 || positions + length[s] > pairs::MAX_BLOCK_POSITIONS))
            close_block();
        const uint32_t v = code[s] << (32 - len[s]) >> (bit & 7);  // a symbol that occurs has a code
        uint8_t* at = block.data() + (bit >> 3);
        at[0] |= uint8_t(v >> 24);
        at[1] |= uint8_t(v >> 16);
        at[2] |= uint8_t(v >> 8);
        at[3] |= uint8_t(v);
        bit += len[s];
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

std::vector<uint8_t> encode_pairs(const uint8_t* packed, int bits, uint64_t n, uint32_t num_terminals, int threads,
                                  const std::vector<uint32_t>& block_candidates) {
    if (n == 0 || num_terminals == 0 || num_terminals > 256 || block_candidates.empty())
        throw std::invalid_argument("encode_pairs: bad arguments");
    for (uint32_t b : block_candidates)
        if (b < pairs::MIN_BLOCK_BYTES || b > pairs::MAX_BLOCK_BYTES)
            throw std::invalid_argument("encode_pairs: block size");
    std::vector<uint16_t> x = unpack(packed, bits, n, threads);
    std::vector<PairRule> rules;
    std::vector<uint32_t> length;
    build_grammar(x, num_terminals, threads, pairs::MAX_SYMBOLS, false, rules, length);

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
    // The payloads differ by their blocks only (the grammar is the same).
    auto bytes_of = [&](const Header& x) { return x.num_blocks * x.block_bytes; };
    // Each candidate packed on its own thread: a pass over the whole stream each.
    std::vector<Blocks> candidates(block_candidates.size());
    parallel_for(candidates.size(), threads, 1, [&](uint64_t begin, uint64_t end, int) {
        for (uint64_t k = begin; k < end; ++k) candidates[k] = pack_blocks(x, len, code, length, block_candidates[k]);
    });
    Blocks packed_blocks;
    for (size_t k = 0; k < candidates.size(); ++k) {
        const uint32_t bytes = block_candidates[k];
        Blocks& c = candidates[k];
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

    std::vector<uint8_t> out;
    append(out, h);
    pairs::write_grammar(out, num_terminals, rules, len);
    out.resize((out.size() + 63) / 64 * 64, 0);  // blocks start on a cache line (the writer aligns the payload)
    out.insert(out.end(), blocks.begin(), blocks.end());
    return out;
}

uint64_t estimate_pairs(const uint8_t* packed, int bits, uint64_t n, uint32_t num_terminals, int threads,
                        uint32_t max_rules) {
    if (n == 0 || num_terminals == 0 || num_terminals > 256)
        throw std::invalid_argument("estimate_pairs: bad arguments");
    std::vector<uint16_t> x = unpack(packed, bits, n, threads);
    std::vector<pairs::PairRule> rules;
    std::vector<uint32_t> length;
    const uint32_t max_symbols = uint32_t(std::min<uint64_t>(uint64_t(num_terminals) + max_rules, pairs::MAX_SYMBOLS));
    build_grammar(x, num_terminals, threads, max_symbols, max_rules < FULL_RECOUNT_SYMBOLS, rules, length);
    std::vector<uint64_t> freq(rules.size(), 0);
    for (uint16_t s : x) ++freq[s];
    const std::vector<uint8_t> len = pairs::code_lengths(freq);
    uint64_t code_bits = 0;
    for (size_t s = 0; s < freq.size(); ++s) code_bits += freq[s] * len[s];
    // A 64-byte block spends 16 of its 512 bits on its size, and covers at most
    // MAX_BLOCK_POSITIONS positions (the smallest candidate block is 16 bytes); a rule costs
    // about 2.4 bytes; the header and its alignment 64.
    const uint64_t blocks =
        std::max(code_bits / 8 * 512 / 496, (n + pairs::MAX_BLOCK_POSITIONS - 1) / pairs::MAX_BLOCK_POSITIONS * 16);
    return 64 + blocks + (rules.size() - num_terminals) * 12 / 5;
}

}  // namespace pythia::tb
