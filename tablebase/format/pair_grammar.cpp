#include "tablebase/format/pair_grammar.h"

#include <algorithm>
#include <cstring>
#include <queue>

#include "tablebase/format/pair_codec.h"

namespace pythia::tb::pairs {

std::vector<uint8_t> code_lengths(std::vector<uint64_t> freq) {
    const size_t n = freq.size();
    std::vector<uint8_t> len(n, 0);
    for (;;) {
        using Node = std::pair<uint64_t, uint32_t>;
        std::priority_queue<Node, std::vector<Node>, std::greater<Node>> q;
        std::vector<uint32_t> parent(2 * n, UINT32_MAX);
        for (uint32_t i = 0; i < n; ++i)
            if (freq[i]) q.push({freq[i], i});
        if (q.size() == 1) {
            len[q.top().second] = 1;
            return len;
        }
        uint32_t next = uint32_t(n);
        while (q.size() > 1) {
            const Node a = q.top();
            q.pop();
            const Node b = q.top();
            q.pop();
            parent[a.second] = parent[b.second] = next;
            q.push({a.first + b.first, next++});
        }
        int longest = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (!freq[i]) continue;
            int d = 0;
            for (uint32_t k = i; parent[k] != UINT32_MAX; k = parent[k]) ++d;
            len[i] = uint8_t(std::min(d, 255));
            longest = std::max(longest, d);
        }
        if (longest <= MAX_CODE_BITS) return len;
        for (auto& f : freq)
            if (f) f = (f >> 1) | 1;
    }
}

std::vector<uint32_t> canonical_codes(const std::vector<uint8_t>& len) {
    std::vector<uint32_t> count(MAX_CODE_BITS + 1, 0), next(MAX_CODE_BITS + 2, 0);
    for (uint8_t l : len)
        if (l) ++count[l];
    uint32_t code = 0;
    for (int l = 1; l <= MAX_CODE_BITS; ++l) {
        next[l] = code;
        code = (code + count[l]) << 1;
    }
    std::vector<uint32_t> codes(len.size(), 0);
    for (size_t s = 0; s < len.size(); ++s)
        if (len[s]) codes[s] = next[len[s]]++;
    return codes;
}

namespace {

// Bits needed for the numbers below `n`.
uint32_t width_below(uint32_t n) { return n <= 1 ? 0 : 32 - uint32_t(__builtin_clz(n - 1)); }

class BitWriter {
public:
    explicit BitWriter(std::vector<uint8_t>& out) : out_(out) {}
    void put(uint32_t value, uint32_t bits) {  // MSB first
        for (uint32_t k = bits; k-- > 0;) {
            if (used_ % 8 == 0) out_.push_back(0);
            if (value >> k & 1) out_.back() |= uint8_t(0x80 >> (used_ % 8));
            ++used_;
        }
    }
    void gamma(uint32_t v) {  // Elias gamma of v + 1
        const uint32_t n = 32 - uint32_t(__builtin_clz(v + 1));
        put(0, n - 1);
        put(v + 1, n);
    }
    void rice(uint32_t v, uint32_t k) {
        for (uint32_t q = v >> k; q; --q) put(1, 1);
        put(0, 1);
        put(v & ((1u << k) - 1), k);
    }

private:
    std::vector<uint8_t>& out_;
    uint64_t used_ = 0;
};

// Reads MSB first through a 64-bit window; never past `end` (bits there read as zeros, and
// whatever would take them fails).
class BitReader {
public:
    BitReader(const uint8_t* p, const uint8_t* end) : p_(p), bytes_(uint64_t(end - p)) {}
    bool get(uint32_t bits, uint32_t& value) {
        if (bits > 32 || left() < bits) return false;
        value = bits ? uint32_t(window() >> (64 - bits)) : 0;
        at_ += bits;
        return true;
    }
    // Whether the code of `bits` bits at the top of window() is in the stream; if so, consumed.
    bool skip(uint32_t bits) {
        if (left() < bits) return false;
        at_ += bits;
        return true;
    }
    bool gamma(uint32_t& v) {
        uint32_t zeros = 0, rest = 0;
        if (!unary(false, 31, zeros) || !get(zeros, rest)) return false;
        v = ((1u << zeros) | rest) - 1;
        return true;
    }
    bool rice(uint32_t k, uint32_t& v) {
        uint32_t q = 0, low = 0;
        if (!unary(true, MAX_SYMBOLS, q) || !get(k, low)) return false;
        v = (q << k) | low;
        return true;
    }
    // The next 64 bits, zeros past the end; at least 57 of them are the stream's while it lasts.
    uint64_t window() const {
        const uint64_t byte = at_ >> 3;
        uint64_t w = 0;
        if (bytes_ - byte >= 8) {
            std::memcpy(&w, p_ + byte, 8);
            w = __builtin_bswap64(w);
        } else {
            for (uint64_t k = 0; byte + k < bytes_; ++k) w |= uint64_t(p_[byte + k]) << (56 - 8 * k);
        }
        return w << (at_ & 7);
    }

private:
    uint64_t left() const { return bytes_ * 8 - at_; }
    // Counts the bits equal to `one` up to the first other one, which it consumes too; false
    // past the end or past `limit` of them.
    bool unary(bool one, uint32_t limit, uint32_t& count) {
        count = 0;
        for (;;) {
            if (left() == 0) return false;
            const uint64_t valid = std::min<uint64_t>(57, left());
            const uint64_t w = one ? ~window() : window();
            const uint64_t run = w ? uint64_t(__builtin_clzll(w)) : 64;
            if (run < valid) {
                count += uint32_t(run);
                at_ += run + 1;
                return count <= limit;
            }
            count += uint32_t(valid);
            at_ += valid;
            if (count > limit) return false;
        }
    }

    const uint8_t* p_;
    uint64_t bytes_, at_ = 0;
};

constexpr uint32_t RICE_PARAMETER_BITS = 5;
constexpr uint32_t LENGTH_VALUES = MAX_CODE_BITS + 1;  // a code length is 0 (not coded) to MAX_CODE_BITS

// A generation's rules: its count, then the Rice parameter that codes its left children's gaps
// best, then each rule's gap and right child.
void write_generation(BitWriter& w, const std::vector<PairRule>& rules, uint32_t first, uint32_t end) {
    uint64_t best_bits = UINT64_MAX;
    uint32_t best_k = 0;
    for (uint32_t k = 0; k < 17; ++k) {
        uint64_t bits = 0;
        for (uint32_t s = first, prev = 0; s < end; prev = rules[s++].left)
            bits += ((rules[s].left - prev) >> k) + 1 + k;
        if (bits < best_bits) best_bits = bits, best_k = k;
    }
    w.gamma(end - first);
    w.put(best_k, RICE_PARAMETER_BITS);
    for (uint32_t s = first, prev = 0; s < end; prev = rules[s++].left) {
        w.rice(rules[s].left - prev, best_k);
        w.put(rules[s].right, width_below(first));
    }
}

}  // namespace

std::vector<uint16_t> generation_order(uint32_t num_terminals, const std::vector<PairRule>& rules) {
    const uint32_t n = uint32_t(rules.size());
    std::vector<uint32_t> generation(n, 0);
    for (uint32_t s = num_terminals; s < n; ++s)
        generation[s] = 1 + std::max(generation[rules[s].left], generation[rules[s].right]);
    std::vector<uint32_t> pending;  // pair symbols of the current generation
    std::vector<uint16_t> renumbered(n);
    for (uint32_t s = 0; s < num_terminals; ++s) renumbered[s] = uint16_t(s);
    uint32_t next = num_terminals;
    std::vector<std::vector<uint32_t>> by_generation;
    for (uint32_t s = num_terminals; s < n; ++s) {
        if (generation[s] >= by_generation.size()) by_generation.resize(generation[s] + 1);
        by_generation[generation[s]].push_back(s);
    }
    for (auto& g : by_generation) {  // a generation's children are all numbered already
        std::sort(g.begin(), g.end(), [&](uint32_t a, uint32_t b) {
            const uint32_t la = renumbered[rules[a].left], lb = renumbered[rules[b].left];
            return la != lb ? la < lb : renumbered[rules[a].right] < renumbered[rules[b].right];
        });
        for (uint32_t s : g) renumbered[s] = uint16_t(next++);
    }
    return renumbered;
}

void write_grammar(std::vector<uint8_t>& out, uint32_t num_terminals, const std::vector<PairRule>& rules,
                   const std::vector<uint8_t>& len) {
    BitWriter w(out);
    const uint32_t n = uint32_t(rules.size());
    // Generations as the reader sees them: a new one starts where a rule's child is not below
    // the current generation's first symbol.
    std::vector<uint32_t> starts;
    uint32_t first = num_terminals;
    for (uint32_t s = num_terminals; s < n; ++s)
        if (starts.empty() || rules[s].left >= first || rules[s].right >= first ||
            (s > first && rules[s].left < rules[s - 1].left))
            starts.push_back(first = s);
    w.gamma(uint32_t(starts.size()));
    for (size_t g = 0; g < starts.size(); ++g)
        write_generation(w, rules, starts[g], g + 1 < starts.size() ? starts[g + 1] : n);
    // The code lengths: a canonical Huffman code of their values, its lengths first.
    std::vector<uint64_t> freq(LENGTH_VALUES, 0);
    for (uint8_t l : len) ++freq[l];
    const std::vector<uint8_t> value_len = code_lengths(freq);
    const std::vector<uint32_t> value_code = canonical_codes(value_len);
    for (uint8_t l : value_len) w.put(l, RICE_PARAMETER_BITS);
    for (uint8_t l : len) w.put(value_code[l], value_len[l]);
}

bool read_grammar(const uint8_t* p, const uint8_t* end, uint32_t num_terminals, uint32_t num_symbols,
                  std::vector<PairRule>& rules, std::vector<uint8_t>& len, std::string* why) {
    auto fail = [&](const char* what) {
        if (why) *why = what;
        return false;
    };
    BitReader r(p, end);
    rules.assign(num_symbols, PairRule{0, 0});
    uint32_t generations = 0;
    if (!r.gamma(generations) || generations > num_symbols - num_terminals) return fail("pair section grammar");
    uint32_t s = num_terminals;
    for (uint32_t g = 0; g < generations; ++g) {
        const uint32_t first = s;
        uint32_t count = 0, k = 0;
        if (!r.gamma(count) || count == 0 || count > num_symbols - s || !r.get(RICE_PARAMETER_BITS, k) || k > 16)
            return fail("pair section grammar");
        for (uint32_t left = 0; s < first + count; ++s) {
            uint32_t gap = 0, right = 0;
            if (!r.rice(k, gap) || !r.get(width_below(first), right)) return fail("pair section grammar");
            left += gap;
            if (left >= first || right >= first) return fail("pair section rule");
            rules[s] = PairRule{uint16_t(left), uint16_t(right)};
        }
    }
    if (s != num_symbols) return fail("pair section grammar");
    // The code lengths' own canonical code (at load only: no lookup table).
    uint32_t value_len[LENGTH_VALUES], count[MAX_CODE_BITS + 1] = {};
    for (uint32_t v = 0; v < LENGTH_VALUES; ++v) {
        if (!r.get(RICE_PARAMETER_BITS, value_len[v]) || value_len[v] > MAX_CODE_BITS)
            return fail("pair section code lengths");
        ++count[value_len[v]];
    }
    std::vector<uint32_t> by_code;  // the values in canonical order
    for (uint32_t l = 1; l <= MAX_CODE_BITS; ++l)
        for (uint32_t v = 0; v < LENGTH_VALUES; ++v)
            if (value_len[v] == l) by_code.push_back(v);
    len.assign(num_symbols, 0);
    for (uint32_t sym = 0; sym < num_symbols; ++sym) {
        const uint64_t w = r.window();
        uint32_t first = 0, index = 0, l = 1;
        for (; l <= MAX_CODE_BITS; ++l) {  // the top l bits are a code of length l
            const uint32_t code = uint32_t(w >> (64 - l));
            if (code - first < count[l]) {
                len[sym] = uint8_t(by_code[index + code - first]);
                break;
            }
            index += count[l];
            first = (first + count[l]) << 1;
        }
        if (l > MAX_CODE_BITS || !r.skip(l)) return fail("pair section code lengths");
    }
    return true;
}

}  // namespace pythia::tb::pairs
