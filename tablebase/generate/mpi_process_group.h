// The ranks of an MPI communicator as a ProcessGroup (process_group.h): what pythia-mpi shares a
// table's generation among. Built only where Open MPI's development files are installed
// (libopenmpi-dev); every call runs on the thread that initialised MPI.
#pragma once

#include <mpi.h>

#include "tablebase/generate/process_group.h"

namespace pythia::tb {

class MpiProcessGroup : public ProcessGroup {
public:
    explicit MpiProcessGroup(MPI_Comm comm);
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void all_to_all(const std::vector<std::vector<uint8_t>>& to_each, std::vector<uint8_t>& received) override;
    using ProcessGroup::max;
    void max(uint64_t* values, size_t count) override;
    void gather(void* data, size_t element_bytes, const std::vector<uint64_t>& offsets, bool root_only) override;
    void or_words(uint64_t* words, size_t count, bool root_only) override;
    void broadcast(std::vector<uint8_t>& bytes) override;

private:
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
};

}  // namespace pythia::tb
