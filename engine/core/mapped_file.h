// A whole file mapped read-only into memory (POSIX mmap), released when the object dies. Used
// for opening books and tablebase files. The mapping reflects the file: a file shortened by
// another program while mapped makes reads beyond its new end fault (SIGBUS), so books and
// tables are replaced by rename, never rewritten in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pythia {

class MappedFile {
public:
    MappedFile() = default;
    ~MappedFile() { close(); }
    MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    // How the file will be read: RANDOM tells the kernel not to read ahead (tablebases are
    // probed at scattered places).
    enum class Access { SEQUENTIAL, RANDOM };

    // Maps `path`. On failure returns false, leaves the object closed and, when `error` is
    // given, stores the reason (without the path). An empty file cannot be mapped and is
    // reported as such.
    bool open(const std::string& path, std::string* error = nullptr, Access access = Access::SEQUENTIAL);
    void close();

    // Copies the file's bytes to `memory` (room for size() bytes, owned by the caller, which
    // keeps it alive as long as this object) and reads them there from now on: the mapping is
    // released and the bytes no longer follow the file. For memory in huge pages
    // (HugePageArena), which a mapping of the page cache does not get.
    void copy_into(uint8_t* memory);
    bool is_copy() const { return data_ && !mapped_; }

    bool is_open() const { return data_ != nullptr; }
    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    // The part of the file that is in memory (the page cache) now, 0 to 1 (mincore); 1 for a copy.
    double resident_fraction() const;
    // Changes how the mapping will be read. A RANDOM mapping reads one page from disk per
    // fault: a caller about to read the whole file once (a checksum) switches to SEQUENTIAL
    // for that, which reads a large table from disk about 10 times faster, and back after.
    // Nothing for a copy.
    void advise(Access access) const;

private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    bool mapped_ = false;  // data_ is this object's mapping (else a copy in the caller's memory)
};

}  // namespace pythia
