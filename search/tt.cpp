#include "search/tt.h"

#include <algorithm>
#include <new>

#include "search/params.h"

namespace pythia {

namespace {

// data: move (16) | value (16) | eval (16) | stored depth (8) | generation (6) | bound (2)
uint64_t pack(Move m, Value v, Value e, int depth, uint8_t gen, Bound b) {
    return uint64_t(m.raw()) | uint64_t(uint16_t(int16_t(v))) << 16 | uint64_t(uint16_t(int16_t(e))) << 32 |
           uint64_t(uint8_t(depth + DEPTH_OFFSET)) << 48 | uint64_t(gen) << 58 | uint64_t(b) << 56;
}
Move move_of(uint64_t d) { return Move(uint16_t(d)); }
Value value_of(uint64_t d) { return int16_t(uint16_t(d >> 16)); }
Value eval_of(uint64_t d) { return int16_t(uint16_t(d >> 32)); }
int stored_depth(uint64_t d) { return int((d >> 48) & 0xFF); }
Bound bound_of(uint64_t d) { return Bound((d >> 56) & 3); }
uint8_t generation_of(uint64_t d) { return uint8_t(d >> 58); }

}  // namespace

bool TranspositionTable::resize(size_t megabytes) {
    megabytes = std::max<size_t>(megabytes, 1);
    const size_t count = megabytes * 1024 * 1024 / sizeof(Bucket);
    Bucket* fresh = new (std::nothrow) Bucket[count];
    if (!fresh) return false;
    buckets_.reset(fresh);
    bucket_count_ = count;
    megabytes_ = megabytes;
    generation_ = 0;
    return true;
}

void TranspositionTable::clear() {
    for (size_t i = 0; i < bucket_count_; ++i)
        for (Entry& e : buckets_[i].entries) {
            e.check.store(0, std::memory_order_relaxed);
            e.data.store(0, std::memory_order_relaxed);
        }
    generation_ = 0;
}

bool TranspositionTable::probe(Key key, int ply, TTData& out) const {
    const Bucket& b = buckets_[index(key)];
    for (const Entry& e : b.entries) {
        const uint64_t data = e.data.load(std::memory_order_relaxed);
        if (!data || (e.check.load(std::memory_order_relaxed) ^ data) != key) continue;
        out.move = move_of(data);
        out.value = value_from_tt(value_of(data), ply);
        out.eval = eval_of(data);
        out.depth = stored_depth(data) - DEPTH_OFFSET;
        out.bound = bound_of(data);
        return true;
    }
    return false;
}

void TranspositionTable::store(Key key, int ply, Move move, Value value, Value eval, int depth, Bound bound) {
    Bucket& b = buckets_[index(key)];
    Entry* target = nullptr;
    int worst = 1 << 30;
    for (Entry& e : b.entries) {
        const uint64_t data = e.data.load(std::memory_order_relaxed);
        if (!data || (e.check.load(std::memory_order_relaxed) ^ data) == key) {
            // Same position: keep its move when the new result has none, and keep a deeper
            // result of this search unless the new one is exact.
            if (data) {
                if (!move) move = move_of(data);
                if (bound != BOUND_EXACT && generation_of(data) == generation_ &&
                    stored_depth(data) - DEPTH_OFFSET > depth + search_params::TT_KEEP_DEPTH_MARGIN)
                    return;
            }
            target = &e;
            break;
        }
        // Otherwise replace the shallowest entry, counting older searches as shallower.
        const int age = (generation_ - generation_of(data)) & 63;
        const int worth = stored_depth(data) - search_params::TT_AGE_PLIES * age;
        if (worth < worst) {
            worst = worth;
            target = &e;
        }
    }
    const uint64_t data = pack(move, value == VALUE_NONE ? value : value_to_tt(value, ply), eval,
                               std::clamp(depth, -1, 250), generation_, bound);
    target->data.store(data, std::memory_order_relaxed);
    target->check.store(key ^ data, std::memory_order_relaxed);
}

int TranspositionTable::hashfull() const {
    int used = 0;
    const size_t sample = std::min<size_t>(250, bucket_count_);
    for (size_t i = 0; i < sample; ++i)
        for (const Entry& e : buckets_[i].entries) {
            const uint64_t data = e.data.load(std::memory_order_relaxed);
            used += data && generation_of(data) == generation_;
        }
    return int(used * 1000 / (sample * 4));
}

}  // namespace pythia
