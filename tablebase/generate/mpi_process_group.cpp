#include "tablebase/generate/mpi_process_group.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <stdexcept>
#include <string>
#include <thread>

namespace pythia::tb {

namespace {

// MPI counts are ints: whatever may pass 2^31 bytes (a 6-piece table's values) goes in pieces
// of at most this many.
constexpr uint64_t PIECE_BYTES = uint64_t(1) << 30;

void check(int status, const char* what) {
    if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

MpiProcessGroup::MpiProcessGroup(MPI_Comm comm) : comm_(comm) {
    check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
}

void MpiProcessGroup::all_to_all(const std::vector<std::vector<uint8_t>>& to_each, std::vector<uint8_t>& received) {
    // The generator's rounds keep each message far below 2 GB (EXCHANGE_ROUND, generator.h).
    std::vector<int> send_counts(size_), recv_counts(size_), send_at(size_), recv_at(size_);
    uint64_t sent = 0;
    for (int p = 0; p < size_; ++p) {
        send_at[p] = int(sent);
        send_counts[p] = int(to_each[p].size());
        sent += to_each[p].size();
    }
    if (sent > INT_MAX) throw std::runtime_error("MPI: an exchange of more than 2 GB");
    std::vector<uint8_t> send(sent);
    for (int p = 0; p < size_; ++p) std::copy(to_each[p].begin(), to_each[p].end(), send.begin() + send_at[p]);
    check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_), "MPI_Alltoall");
    uint64_t total = 0;
    for (int p = 0; p < size_; ++p) {
        recv_at[p] = int(total);
        total += uint64_t(recv_counts[p]);
    }
    if (total > INT_MAX) throw std::runtime_error("MPI: an exchange of more than 2 GB");
    received.resize(total);
    check(MPI_Alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, received.data(), recv_counts.data(),
                        recv_at.data(), MPI_BYTE, comm_),
          "MPI_Alltoallv");
}

void MpiProcessGroup::max(uint64_t* values, size_t count) {
    check(MPI_Allreduce(MPI_IN_PLACE, values, int(count), MPI_UINT64_T, MPI_MAX, comm_), "MPI_Allreduce");
}

void MpiProcessGroup::gather(void* data, size_t element_bytes, const std::vector<uint64_t>& offsets, bool root_only) {
    // Each process's part in turn, in pieces: broadcast from its owner, or sent to process 0.
    auto* base = static_cast<uint8_t*>(data);
    for (int p = 0; p < size_; ++p) {
        if (root_only && p == 0) continue;
        uint8_t* part = base + offsets[p] * element_bytes;
        const uint64_t bytes = (offsets[p + 1] - offsets[p]) * element_bytes;
        for (uint64_t at = 0; at < bytes; at += PIECE_BYTES) {
            const int n = int(std::min(PIECE_BYTES, bytes - at));
            if (!root_only)
                check(MPI_Bcast(part + at, n, MPI_BYTE, p, comm_), "MPI_Bcast");
            else if (rank_ == p)
                check(MPI_Send(part + at, n, MPI_BYTE, 0, 0, comm_), "MPI_Send");
            else if (rank_ == 0)
                check(MPI_Recv(part + at, n, MPI_BYTE, p, 0, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
        }
    }
}

void MpiProcessGroup::or_words(uint64_t* words, size_t count, bool root_only) {
    for (size_t at = 0; at < count; at += PIECE_BYTES / 8) {
        const int n = int(std::min<uint64_t>(PIECE_BYTES / 8, count - at));
        if (!root_only)
            check(MPI_Allreduce(MPI_IN_PLACE, words + at, n, MPI_UINT64_T, MPI_BOR, comm_), "MPI_Allreduce");
        else
            check(MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : words + at, words + at, n, MPI_UINT64_T, MPI_BOR, 0, comm_),
                  "MPI_Reduce");
    }
}

void MpiProcessGroup::broadcast(std::vector<uint8_t>& bytes) {
    // The other ranks wait here while rank 0 loads and writes tables, minutes at a time: they
    // poll every millisecond instead of spinning in MPI_Bcast, which took a core from rank 0's
    // writer (KQRvKR written in 46 instead of 25 s with two ranks on two cores).
    uint64_t size = bytes.size();
    MPI_Request request;
    check(MPI_Ibcast(&size, 1, MPI_UINT64_T, 0, comm_, &request), "MPI_Ibcast");
    for (int done = 0;;) {
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (rank_ != 0) bytes.resize(size);
    for (uint64_t at = 0; at < size; at += PIECE_BYTES)
        check(MPI_Bcast(bytes.data() + at, int(std::min(PIECE_BYTES, size - at)), MPI_BYTE, 0, comm_), "MPI_Bcast");
}

}  // namespace pythia::tb
