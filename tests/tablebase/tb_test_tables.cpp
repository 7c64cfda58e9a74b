#include "tb_test_tables.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tablebase/format/file_format.h"
#include "tablebase/generate/generator.h"
#include "tablebase/generate/table_cache.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_writer.h"
#include "test_mode.h"

namespace pythia::test {

namespace fs = std::filesystem;
using namespace pythia::tb;

namespace {

// Removes the scratch folders at exit.
struct Scratch {
    std::vector<fs::path> dirs;
    ~Scratch() {
        std::error_code ec;
        for (const auto& d : dirs) fs::remove_all(d, ec);
    }
};
Scratch& scratch() {
    static Scratch s;
    return s;
}

// Generates every table, keeping all of them in memory as subtables (about 0.5 GB), and writes
// those that are not already there.
void generate_missing(const fs::path& dir) {
    bool all_there = true;
    for (const Material& m : all_materials(4)) all_there &= table_files_valid(dir, m);
    if (all_there) return;
    std::cerr << "generating the 3- and 4-piece test tables into " << dir << std::endl;
    TableSet set;
    GenerationOptions options;
    options.threads = 2;
    for (const Material& m : all_materials(4)) {
        std::shared_ptr<TableValues> t;
        if (table_files_valid(dir, m)) {
            std::string error;
            t = load_table_values(dir, m, &error);
            if (!t) throw std::runtime_error(error);
        } else {
            const auto start = std::chrono::steady_clock::now();
            t = generate_table(m, set, options);
            GenerationInfo info{std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2,
                                &set};
            std::string error;
            if (!write_table_files(*t, dir, info, &error)) throw std::runtime_error(error);
        }
        set.add(t);
    }
}

}  // namespace

const fs::path& test_tables_dir() {
    static const fs::path dir = [] {
        // PYTHIA_TEST_TABLES: a folder with every valid 3- and 4-piece table made by another
        // build (the sanitize preset points at the release build's), used when complete, as
        // generating them under sanitizers takes minutes.
        if (const char* other = std::getenv("PYTHIA_TEST_TABLES")) {
            bool all_there = fs::is_directory(other);
            for (const Material& m : all_materials(4))
                if (all_there) all_there = table_files_valid(other, m);
            if (all_there) return fs::path(other);
            std::cerr << "PYTHIA_TEST_TABLES=" << other << " lacks valid tables: generating them here" << std::endl;
        }
        fs::path d = PYTHIA_TEST_TABLES_DIR;
        fs::create_directories(d);
        // One process generates; the others wait on the lock, then find the tables valid.
        int fd = ::open((d / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + d.string());
        try {
            generate_missing(d);
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
        return d;
    }();
    return dir;
}

const tb::Tablebases& test_tablebases() {
    static tb::Tablebases tables;
    static const bool opened = [] {
        tables.set_paths(test_tables_dir().string());
        return true;
    }();
    (void)opened;
    return tables;
}

fs::path scratch_dir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("pythia-" + name + "-" + std::to_string(getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    scratch().dirs.push_back(d);
    return d;
}

fs::path copy_table_file(const std::string& file, const fs::path& dir, const std::string& as) {
    fs::path to = dir / (as.empty() ? file : as);
    fs::copy_file(test_tables_dir() / file, to, fs::copy_options::overwrite_existing);
    return to;
}

TableSet generate_and_write(const std::vector<const char*>& names, const fs::path& dir, GenerationInfo info) {
    std::vector<Material> wanted;
    for (const char* n : names) wanted.push_back(*Material::parse(n));
    TableSet set;
    GenerationOptions options;
    options.threads = 2;
    for (const Material& m : with_dependencies(wanted)) {
        auto t = generate_table(m, set, options);
        info.subtables = &set;
        std::string error;
        if (!write_table_files(*t, dir, info, &error)) throw std::runtime_error(m.name() + ": " + error);
        set.add(t);
    }
    return set;
}

std::shared_ptr<TableValues> load_with_subtables(const fs::path& dir, const char* name, TableSet& subtables) {
    const Material m = *Material::parse(name);
    std::string error;
    if (!load_subtables(dir, m, subtables, &error, 2)) throw std::runtime_error(error);
    auto t = load_table_values(dir, m, &error, 2, 3, LoadFor::EVERY_POSITION, &subtables);
    if (!t) throw std::runtime_error(error);
    return t;
}

void write_again(const fs::path& dir, const char* name, GenerationInfo info) {
    const Material m = *Material::parse(name);
    std::string error;
    TableSet subtables;
    auto t = load_with_subtables(dir, name, subtables);
    info.threads = 2;
    info.subtables = &subtables;
    if (!write_table_files(*t, dir, info, &error)) throw std::runtime_error(m.name() + ": " + error);
}

std::vector<uint8_t> with_version(std::vector<uint8_t> bytes, uint32_t version) {
    std::memcpy(bytes.data() + offsetof(FileHeader, version), &version, 4);
    fix_checksums(bytes);
    return bytes;
}

std::string refusal(const fs::path& file, const std::vector<uint8_t>& bytes, const char* name, FileKind kind) {
    write_bytes(file, bytes);
    std::string why;
    return TableFile::open(file, TableIndex(*Material::parse(name)), kind, &why) ? "opened" : why;
}

int clear_section_flag(std::vector<uint8_t>& bytes, uint8_t where, uint8_t clear) {
    FileHeader h;
    std::memcpy(&h, bytes.data(), sizeof h);
    int changed = 0;
    for (size_t k = 0; k < h.num_sections; ++k) {
        uint8_t& flags = bytes[sizeof(FileHeader) + k * sizeof(SectionHeader) + offsetof(SectionHeader, flags)];
        if (flags & where) flags &= uint8_t(~clear), ++changed;
    }
    fix_checksums(bytes);
    return changed;
}

Position position(const std::string& fen) {
    Position pos;
    std::string error;
    if (!pos.set_fen(fen, &error)) throw std::invalid_argument("bad test FEN " + fen + ": " + error);
    return pos;
}

void copy_test_tables_into(const std::filesystem::path& d) {
    for (const auto& e : std::filesystem::directory_iterator(test_tables_dir()))
        if (e.path().extension() == tb::WDL_EXTENSION || e.path().extension() == tb::DISTANCE_EXTENSION)
            std::filesystem::copy_file(e.path(), d / e.path().filename(), fs::copy_options::overwrite_existing);
}

std::filesystem::path copy_of_test_tables(const std::string& name) {
    const std::filesystem::path d = scratch_dir(name);
    copy_test_tables_into(d);
    return d;
}

namespace {

// What a shared written folder was made from: this test executable (the writer is linked into
// it), the test tables (name, size and time of each file) and light mode.
std::string shared_written_key() {
    std::ostringstream key;
    struct stat st {};
    if (::stat("/proc/self/exe", &st) != 0) throw std::runtime_error("cannot stat /proc/self/exe");
    key << "exe " << fs::read_symlink("/proc/self/exe").string() << ' ' << st.st_dev << ' ' << st.st_ino << ' '
        << st.st_size << ' ' << st.st_mtim.tv_sec << '.' << st.st_mtim.tv_nsec << '\n';
    key << "light " << light_mode() << '\n';
    key << "tables " << test_tables_dir().string() << '\n';
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(test_tables_dir())) {
        const auto ext = e.path().extension();
        if (ext != WDL_EXTENSION && ext != DISTANCE_EXTENSION) continue;
        if (::stat(e.path().c_str(), &st) != 0) throw std::runtime_error("cannot stat " + e.path().string());
        std::ostringstream line;
        line << e.path().filename().string() << ' ' << st.st_size << ' ' << st.st_mtim.tv_sec << '.'
             << st.st_mtim.tv_nsec;
        files.push_back(line.str());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) key << f << '\n';
    return key.str();
}

}  // namespace

fs::path shared_written_dir(const std::string& name, const std::function<void(const fs::path&)>& write) {
    const fs::path base = fs::path(PYTHIA_TEST_TABLES_DIR).parent_path() / "tb-test-written";
    fs::create_directories(base);
    const fs::path dir = base / name, stamp = base / (name + ".stamp"), part = base / (name + ".part");
    const std::string key = shared_written_key();
    int fd = ::open((base / (name + ".lock")).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + (base / name).string());
    try {
        std::ifstream in(stamp);
        const std::string stamped((std::istreambuf_iterator<char>(in)), {});
        if (stamped != key || !fs::is_directory(dir)) {
            std::cerr << "writing the shared test files " << dir << std::endl;
            fs::remove(stamp);
            fs::remove_all(dir);
            fs::remove_all(part);
            fs::create_directories(part);
            write(part);
            fs::rename(part, dir);
            std::ofstream(stamp) << key;
        }
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return dir;
}

const std::vector<const char*>& compact_tables() {
    static const std::vector<const char*> names =
        light_mode() ? std::vector<const char*>{"KQvKP", "KPvKP"} : std::vector<const char*>{"KQvKP", "KPvKP", "KRvKP"};
    return names;
}

const fs::path& compact_dir() {
    static const fs::path dir = shared_written_dir("compact", [](const fs::path& d) {
        copy_test_tables_into(d);
        GenerationInfo info;
        info.compact = true;
        for (const char* name : compact_tables()) write_again(d, name, info);
        write_again(d, "KPvK", info);
    });
    return dir;
}

std::unique_ptr<tb::TableFile> open_table_file(const std::filesystem::path& dir, const char* name, tb::FileKind kind) {
    const tb::Material m = *tb::Material::parse(name);
    std::string error;
    auto f = tb::TableFile::open(tb::table_file_path(dir, m, kind), tb::TableIndex(m), kind, &error);
    if (!f) throw std::runtime_error(error);
    return f;
}

uint64_t differing_entries(const tb::TableValues& got, const tb::TableValues& expected, Color c, bool legal_only) {
    // A side held for conversions (no DTZ array) is compared by its DTZ's WDL.
    const bool wdl_only = got.dtz[c].empty() || expected.dtz[c].empty();
    if (got.dtm[c].size() != expected.dtm[c].size() || (!wdl_only && got.dtz[c].size() != expected.dtz[c].size()))
        throw std::runtime_error("the two tables have different sizes");
    uint64_t differ = 0;
    for (uint64_t i = 0; i < expected.index.size(); ++i)
        if (!legal_only || !tb::is_illegal(expected.dtm[c][i]))
            differ += got.dtm[c][i] != expected.dtm[c][i] ||
                      (wdl_only ? tb::wdl_of_dtz(got.dtz_at(c, i)) != tb::wdl_of_dtz(expected.dtz_at(c, i))
                                : got.dtz[c][i] != expected.dtz[c][i]);
    return differ;
}

}  // namespace pythia::test
