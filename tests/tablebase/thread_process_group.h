// A ProcessGroup of threads in one process: each thread stands for a process (an MPI rank), so
// that the tests can share a generation among "processes" without an MPI job. Collective calls
// meet at a barrier; every thread of the hub must make the same calls in the same order.
#pragma once

#include <algorithm>
#include <barrier>
#include <cstring>
#include <vector>

#include "tablebase/generate/process_group.h"

namespace pythia::tb {

class ThreadHub {
public:
    explicit ThreadHub(int n) : n_(n), barrier_(n), sent_(n), pointers_(n) {}

private:
    friend class ThreadProcessGroup;
    int n_;
    std::barrier<> barrier_;
    std::vector<const std::vector<std::vector<uint8_t>>*> sent_;
    std::vector<void*> pointers_;
    const std::vector<uint8_t>* root_bytes_ = nullptr;
};

class ThreadProcessGroup : public ProcessGroup {
public:
    ThreadProcessGroup(ThreadHub& hub, int rank) : hub_(hub), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return hub_.n_; }

    void all_to_all(const std::vector<std::vector<uint8_t>>& to_each, std::vector<uint8_t>& received) override {
        hub_.sent_[rank_] = &to_each;
        hub_.barrier_.arrive_and_wait();
        received.clear();
        for (int p = 0; p < hub_.n_; ++p) {
            const auto& part = (*hub_.sent_[p])[rank_];
            received.insert(received.end(), part.begin(), part.end());
        }
        hub_.barrier_.arrive_and_wait();
    }
    using ProcessGroup::max;
    void max(uint64_t* values, size_t count) override {
        hub_.pointers_[rank_] = values;
        hub_.barrier_.arrive_and_wait();
        std::vector<uint64_t> m(values, values + count);
        for (int p = 0; p < hub_.n_; ++p)
            for (size_t i = 0; i < count; ++i)
                m[i] = std::max(m[i], static_cast<const uint64_t*>(hub_.pointers_[p])[i]);
        hub_.barrier_.arrive_and_wait();  // every thread has read the others' values
        std::copy(m.begin(), m.end(), values);
        hub_.barrier_.arrive_and_wait();
    }
    void gather(void* data, size_t element_bytes, const std::vector<uint64_t>& offsets, bool root_only) override {
        hub_.pointers_[rank_] = data;
        hub_.barrier_.arrive_and_wait();
        if (!root_only || rank_ == 0)
            for (int p = 0; p < hub_.n_; ++p)
                if (p != rank_)
                    std::memcpy(static_cast<uint8_t*>(data) + offsets[p] * element_bytes,
                                static_cast<const uint8_t*>(hub_.pointers_[p]) + offsets[p] * element_bytes,
                                (offsets[p + 1] - offsets[p]) * element_bytes);
        hub_.barrier_.arrive_and_wait();
    }
    void or_words(uint64_t* words, size_t count, bool root_only) override {
        hub_.pointers_[rank_] = words;
        hub_.barrier_.arrive_and_wait();
        std::vector<uint64_t> all(words, words + count);
        for (int p = 0; p < hub_.n_; ++p)
            for (size_t i = 0; i < count; ++i) all[i] |= static_cast<const uint64_t*>(hub_.pointers_[p])[i];
        hub_.barrier_.arrive_and_wait();  // every thread has read the others' words
        if (!root_only || rank_ == 0) std::copy(all.begin(), all.end(), words);
        hub_.barrier_.arrive_and_wait();
    }
    void broadcast(std::vector<uint8_t>& bytes) override {
        if (rank_ == 0) hub_.root_bytes_ = &bytes;
        hub_.barrier_.arrive_and_wait();
        if (rank_ != 0) bytes = *hub_.root_bytes_;
        hub_.barrier_.arrive_and_wait();
    }

private:
    ThreadHub& hub_;
    int rank_;
};

}  // namespace pythia::tb
