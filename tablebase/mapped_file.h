// A whole file mapped read-only into memory, released when the object dies. Table files are
// probed at random places, so the kernel is told not to read ahead (MADV_RANDOM). Files are
// replaced by rename, never rewritten in place: a file shortened under a live mapping would
// make reads beyond its new end fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pythia::tb {

class MappedFile {
public:
    MappedFile() = default;
    ~MappedFile() { close(); }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    // Maps `path`; on failure returns false with the reason (without the path) in `error`.
    bool open(const std::string& path, std::string* error);
    void close();

    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }

private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace pythia::tb
