#include "engine/core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace pythia {

namespace {

bool fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
}

}  // namespace

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        close();
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        mapped_ = std::exchange(other.mapped_, false);
    }
    return *this;
}

bool MappedFile::open(const std::string& path, std::string* error, Access access) {
    close();
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(error, std::string("cannot open: ") + std::strerror(errno));
    struct stat st;
    const char* problem = nullptr;
    if (fstat(fd, &st) != 0)
        problem = "cannot read its size";
    else if (!S_ISREG(st.st_mode))
        problem = "not a regular file";
    else if (st.st_size == 0)
        problem = "empty file";
    if (problem) {
        ::close(fd);
        return fail(error, problem);
    }
    void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    int e = errno;
    ::close(fd);  // the mapping keeps the file alive
    if (p == MAP_FAILED) return fail(error, std::string("cannot map into memory: ") + std::strerror(e));
    data_ = static_cast<const uint8_t*>(p);
    size_ = size_t(st.st_size);
    mapped_ = true;
    if (access == Access::RANDOM) advise(access);
    return true;
}

void MappedFile::copy_into(uint8_t* memory) {
    advise(Access::SEQUENTIAL);  // read ahead from disk while copying
    std::memcpy(memory, data_, size_);
    if (mapped_) munmap(const_cast<uint8_t*>(data_), size_);
    data_ = memory;
    mapped_ = false;
}

void MappedFile::advise(Access access) const {
    if (mapped_) madvise(const_cast<uint8_t*>(data_), size_, access == Access::RANDOM ? MADV_RANDOM : MADV_SEQUENTIAL);
}

double MappedFile::resident_fraction() const {
    if (!data_) return 0;
    if (!mapped_) return 1;
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t pages = (size_ + page - 1) / page;
    std::vector<unsigned char> resident(pages);
    if (mincore(const_cast<uint8_t*>(data_), size_, resident.data()) != 0) return 0;
    size_t n = 0;
    for (unsigned char r : resident) n += r & 1;
    return double(n) / double(pages);
}

void MappedFile::close() {
    if (mapped_) munmap(const_cast<uint8_t*>(data_), size_);
    data_ = nullptr;
    size_ = 0;
    mapped_ = false;
}

}  // namespace pythia
