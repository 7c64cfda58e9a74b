// The processes one table's generation is shared among: the ranks of an MPI job (pythia-mpi,
// engine/mpi_main.cpp), or in the tests threads that stand in for them. The generator
// (generator.cpp) splits every slice by its king-pair digit: process p owns a contiguous run of
// king pairs, initialises and solves those positions, and sends the un-moves of a king that
// land in another process's run to their owner. Every call is collective: each process of the
// group makes the same calls in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pythia::tb {

class ProcessGroup {
public:
    virtual ~ProcessGroup() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;

    // Sends to_each[p] to process p; `received` becomes what every process sent this one, in
    // rank order.
    virtual void all_to_all(const std::vector<std::vector<uint8_t>>& to_each, std::vector<uint8_t>& received) = 0;
    // Element by element, the largest of every process's `count` values, on every process.
    virtual void max(uint64_t* values, size_t count) = 0;
    uint64_t max(uint64_t value) {
        max(&value, 1);
        return value;
    }
    // Elements [offsets[p], offsets[p + 1]) of `data` (element_bytes each) are process p's:
    // afterwards every process (root_only: process 0 alone) holds all of them.
    virtual void gather(void* data, size_t element_bytes, const std::vector<uint64_t>& offsets, bool root_only) = 0;
    // The bitwise or of every process's `count` words, left in place on every process
    // (root_only: on process 0 alone).
    virtual void or_words(uint64_t* words, size_t count, bool root_only) = 0;
    // Process 0's bytes, on every process (resized to them).
    virtual void broadcast(std::vector<uint8_t>& bytes) = 0;
};

}  // namespace pythia::tb
