// libFuzzer target: the Polyglot book reader. The input is written as a book file and opened:
// it is refused with a reason (empty, truncated, unsorted) or probed in the start position
// and the positions one and two plies later, where every move offered must be legal.
// Most mutations break the key order, so an input of 16n+1 bytes is read as a control byte
// (bit 0: sort the entries by key before writing) and n entries, to reach the probing code.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "book/opening_book.h"
#include "engine/core/movegen.h"

using namespace pythia;
namespace fs = std::filesystem;

namespace {

fs::path book_path() {
    static const fs::path path = [] {
        const fs::path dir = fs::temp_directory_path() / ("pythia-fuzz-polyglot-" + std::to_string(getpid()));
        fs::create_directories(dir);
        static fs::path to_remove = dir;
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(to_remove, ec);
        });
        return dir / "book.bin";
    }();
    return path;
}

void probe(const OpeningBook& book, const Position& pos, std::mt19937_64& rng) {
    const BookProbe probe = book.probe(pos);
    for (const BookMove& m : probe.moves)
        if (!is_legal(pos, m.move)) std::abort();
    (void)book.entries(pos.key());
    for (BookVariety v : {BookVariety::WEIGHTED, BookVariety::BEST}) {
        const BookChoice choice = book.choose(pos, v, rng);
        if (choice && !is_legal(pos, choice.move)) std::abort();
        if (choice.weight > choice.total_weight) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<uint8_t> bytes(data, data + size);
    if (size % 16 == 1) {
        const bool sort = data[0] & 1;
        bytes.erase(bytes.begin());
        if (sort) {
            std::vector<std::array<uint8_t, 16>> entries(bytes.size() / 16);
            for (size_t i = 0; i < entries.size(); ++i) std::copy_n(&bytes[i * 16], 16, entries[i].begin());
            // Big-endian keys: byte order is key order.
            std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
                return std::lexicographical_compare(a.begin(), a.begin() + 8, b.begin(), b.begin() + 8);
            });
            for (size_t i = 0; i < entries.size(); ++i) std::copy_n(entries[i].begin(), 16, &bytes[i * 16]);
        }
    }
    {
        std::ofstream out(book_path(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    OpeningBook book;
    std::string error;
    if (!book.open(book_path().string(), &error)) {
        if (error.empty() || book.is_open()) std::abort();
        return 0;
    }
    if (book.size() != bytes.size() / 16) std::abort();
    std::mt19937_64 rng(size);
    Position pos;
    probe(book, pos, rng);
    for (Move m1 : MoveList(pos)) {
        pos.do_move(m1);
        probe(book, pos, rng);
        for (Move m2 : MoveList(pos)) {
            pos.do_move(m2);
            probe(book, pos, rng);
            pos.undo_move();
        }
        pos.undo_move();
    }
    return 0;
}
