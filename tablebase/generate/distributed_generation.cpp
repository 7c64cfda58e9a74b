#include "tablebase/generate/distributed_generation.h"

#include <cstring>
#include <stdexcept>

#include <spdlog/spdlog.h>

namespace pythia::tb {

namespace {

// A table as sent to the other processes: its material's name, then per side to move which of
// DTM, DTZ and the cursed bits follow (a byte), each as a count and its raw elements.
class Writer {
public:
    void u64(uint64_t v) { raw(&v, sizeof v); }
    void text(const std::string& s) {
        u64(s.size());
        raw(s.data(), s.size());
    }
    template <typename Vector>
    void array(const Vector& v) {
        u64(v.size());
        raw(v.data(), v.size() * sizeof(v[0]));
    }
    void raw(const void* p, size_t n) {
        bytes.resize(bytes.size() + n);
        if (n) std::memcpy(bytes.data() + bytes.size() - n, p, n);
    }
    std::vector<uint8_t> bytes;
};

class Reader {
public:
    explicit Reader(const std::vector<uint8_t>& b) : bytes_(b) {}
    uint64_t u64() {
        uint64_t v;
        raw(&v, sizeof v);
        return v;
    }
    std::string text() {
        std::string s(u64(), '\0');
        raw(s.data(), s.size());
        return s;
    }
    template <typename Vector>
    void array(Vector& v) {
        v.resize(u64());
        raw(v.data(), v.size() * sizeof(v[0]));
    }
    void raw(void* p, size_t n) {
        if (at_ + n > bytes_.size()) throw std::runtime_error("a table sent between processes is cut short");
        if (n) std::memcpy(p, bytes_.data() + at_, n);
        at_ += n;
    }

private:
    const std::vector<uint8_t>& bytes_;
    size_t at_ = 0;
};

std::vector<uint8_t> table_bytes(const TableValues& t) {
    Writer w;
    w.text(t.index.material().name());
    for (Color c : {WHITE, BLACK}) {
        w.u64(uint64_t(!t.dtm[c].empty()) | uint64_t(!t.dtz[c].empty()) << 1 | uint64_t(!t.cursed[c].empty()) << 2);
        if (!t.dtm[c].empty()) w.array(t.dtm[c]);
        if (!t.dtz[c].empty()) w.array(t.dtz[c]);
        if (!t.cursed[c].empty()) w.array(t.cursed[c]);
    }
    return std::move(w.bytes);
}

std::shared_ptr<TableValues> table_of_bytes(const std::vector<uint8_t>& bytes) {
    Reader r(bytes);
    const auto m = Material::parse(r.text());
    if (!m) throw std::runtime_error("a table sent between processes names no material");
    auto t = std::make_shared<TableValues>(m->normalized());
    for (Color c : {WHITE, BLACK}) {
        const uint64_t has = r.u64();
        if (has & 1) r.array(t->dtm[c]);
        if (has & 2) r.array(t->dtz[c]);
        if (has & 4) r.array(t->cursed[c]);
    }
    return t;
}

}  // namespace

std::shared_ptr<TableValues> generate_on_group(ProcessGroup& group, const Material& material, const TableSet& subtables,
                                               GenerationOptions options) {
    std::vector<const TableValues*> send;
    for (const auto& [s, sides] : material.normalized().successor_sides())
        if (const TableValues* t = subtables.find(s)) send.push_back(t);
    // The command: the table and how many subtables follow (an empty command releases).
    Writer command;
    command.text(material.normalized().name());
    command.u64(send.size());
    group.broadcast(command.bytes);
    for (const TableValues* t : send) {
        std::vector<uint8_t> bytes = table_bytes(*t);
        group.broadcast(bytes);
    }
    options.group = &group;
    return generate_table(material, subtables, options);
}

void serve_group(ProcessGroup& group, GenerationOptions options) {
    options.group = &group;
    for (;;) {
        std::vector<uint8_t> command;
        group.broadcast(command);
        if (command.empty()) return;
        Reader r(command);
        const auto material = Material::parse(r.text());
        if (!material) throw std::runtime_error("process 0 sent no material to generate");
        const uint64_t count = r.u64();
        TableSet subtables;
        for (uint64_t i = 0; i < count; ++i) {
            std::vector<uint8_t> bytes;
            group.broadcast(bytes);
            subtables.add(table_of_bytes(bytes));
        }
        spdlog::debug("process {}: generating its part of {}", group.rank(), material->name());
        generate_table(*material, subtables, options);
    }
}

void release_group(ProcessGroup& group) {
    std::vector<uint8_t> none;
    group.broadcast(none);
}

}  // namespace pythia::tb
