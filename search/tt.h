// The transposition table: buckets of four entries in one cache line, shared by all search
// threads without locks. Each entry is two 64-bit atomics, the data and the data xor the key
// ("lockless hashing"): a torn write between threads never matches a key, so a probe sees
// either a whole entry or none.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/core/types.h"
#include "eval/score.h"

namespace pythia {

enum Bound : uint8_t { BOUND_NONE = 0, BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

constexpr int DEPTH_QS = 0;      // depth stored by quiescence search
constexpr int DEPTH_OFFSET = 2;  // stored depth = depth + offset, so that 0 marks an empty slot

struct TTData {
    Move move;
    Value value = VALUE_NONE;  // adjusted to the probing ply (mate scores)
    Value eval = VALUE_NONE;   // static evaluation
    int depth = 0;
    Bound bound = BOUND_NONE;
};

class TranspositionTable {
public:
    TranspositionTable() { resize(16); }

    // Allocates `megabytes` and clears; on failure keeps the old table and returns false.
    bool resize(size_t megabytes);
    void clear();
    // Called once per `go`: entries of older searches become the first to be replaced.
    void new_search() { generation_ = uint8_t((generation_ + 1) & 63); }

    bool probe(Key key, int ply, TTData& out) const;
    void store(Key key, int ply, Move move, Value value, Value eval, int depth, Bound bound);
    void prefetch(Key key) const { __builtin_prefetch(&buckets_[index(key)]); }
    // Permille of sampled entries written during the current search.
    int hashfull() const;
    size_t megabytes() const { return megabytes_; }

private:
    struct Entry {
        std::atomic<uint64_t> check{0};  // key ^ data
        std::atomic<uint64_t> data{0};
    };
    struct alignas(64) Bucket {
        Entry entries[4];
    };

    size_t index(Key key) const { return size_t((unsigned __int128)key * bucket_count_ >> 64); }

    std::unique_ptr<Bucket[]> buckets_;
    size_t bucket_count_ = 0;
    size_t megabytes_ = 0;
    uint8_t generation_ = 0;
};

// Mate and tablebase scores are stored relative to the node, read back relative to the root.
inline Value value_to_tt(Value v, int ply) {
    return v >= VALUE_TB_WIN_IN_MAX_PLY ? v + ply : v <= VALUE_TB_LOSS_IN_MAX_PLY ? v - ply : v;
}
inline Value value_from_tt(Value v, int ply) {
    if (v == VALUE_NONE) return v;
    return v >= VALUE_TB_WIN_IN_MAX_PLY ? v - ply : v <= VALUE_TB_LOSS_IN_MAX_PLY ? v + ply : v;
}

}  // namespace pythia
