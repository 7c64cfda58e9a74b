// The per-thread cache of decoded LZ4 blocks (the DTM and DTZ sections whose codes are wider than
// 8 bits, which the pair codec cannot hold): whatever the order of the probes (first visits that
// decode only a block's prefix, revisits beyond it, evictions by other blocks, blocks of many
// sections, with a dictionary), the bytes it hands out up to the probed one equal
// those of a full decode of the block.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <random>

#include "tablebase/format/block_cache.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_writer.h"
#include "tb_test_tables.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

struct Probe {
    const TableFile* file;
    uint32_t section;
    uint64_t block, local;
};

// Checks `probes` through the cache against full decodes; returns the number that differ.
int mismatches(const std::vector<Probe>& probes) {
    BlockCache& cache = BlockCache::local();
    int wrong = 0;
    std::vector<uint8_t> reference;
    for (const Probe& p : probes) {
        const Section& s = p.file->sections()[p.section];
        const uint32_t full = p.file->block_size(s, p.block);
        reference.assign(full + 1, 0);
        REQUIRE(p.file->decode_block(s, p.block, reference.data(), full) == int(full));
        const uint32_t need = bytes_needed(p.local, s.bits());
        const uint8_t* data = cache.get(*p.file, p.section, p.block, need);
        REQUIRE(data != nullptr);
        // Every byte up to the probed one, not only the probed code: a block decoded against
        // the wrong dictionary differs only where it copies from the dictionary.
        wrong += std::memcmp(data, reference.data(), need) != 0;
    }
    return wrong;
}

// Probes of every section of `f`: walks forward through a block (a prefix, then beyond it),
// walks backward, and probes of other blocks in between that may evict it.
void add_probes(const TableFile& f, std::mt19937_64& rng, std::vector<Probe>& probes) {
    for (uint32_t no = 0; no < f.sections().size(); ++no) {
        const Section& s = f.sections()[no];
        if (s.bits() == 0 || s.pairs) continue;  // the cache holds LZ4 blocks only
        auto positions_in = [&](uint64_t b) {
            return std::min<uint64_t>(s.h.block_positions, f.positions() - b * s.h.block_positions);
        };
        for (int round = 0; round < 50; ++round) {
            const uint64_t b = rng() % s.h.num_blocks, n = positions_in(b);
            for (uint64_t local = rng() % n; local < n; local += 1 + rng() % (n / 4 + 1))
                probes.push_back({&f, no, b, local});
            for (uint64_t local = n - 1 - rng() % n;; local -= std::min(local, 1 + rng() % (n / 4 + 1))) {
                probes.push_back({&f, no, b, local});
                if (local == 0) break;
            }
            const uint64_t other = rng() % s.h.num_blocks;
            probes.push_back({&f, no, other, rng() % positions_in(other)});
            probes.push_back({&f, no, b, n - 1});
        }
    }
}

}  // namespace

TEST_CASE("the block cache returns the bytes of a full decode, in any order of probes", "[tb][files][cache]") {
    // DTM/DTZ files of tables small and large, written with 16-bit codes.
    const std::vector<std::pair<const char*, FileKind>> files = {
        {"KQvK", FileKind::DISTANCE},  {"KRvK", FileKind::DISTANCE},  {"KPvK", FileKind::DISTANCE},
        {"KQvKR", FileKind::DISTANCE}, {"KRvKP", FileKind::DISTANCE}, {"KPvKP", FileKind::DISTANCE},
        {"KBPvK", FileKind::DISTANCE}, {"KPPvK", FileKind::DISTANCE}};
    const std::filesystem::path dir = test::scratch_dir("block-cache");
    std::vector<std::unique_ptr<TableIndex>> indexes;
    std::vector<std::unique_ptr<TableFile>> opened;
    std::mt19937_64 rng(7);
    std::vector<Probe> probes;
    int lz4_sections = 0, with_dictionary = 0;
    for (auto [name, kind] : files) {
        INFO(name);
        indexes.push_back(std::make_unique<TableIndex>(*Material::parse(name)));
        // Written again with each distance spread over 16 values, so that a section holds more
        // than 256 symbols, as 5-piece DTM sections do: 16-bit codes, in LZ4 blocks.
        std::string error;
        auto values = load_table_values(test::test_tables_dir(), *Material::parse(name), &error, 2);
        REQUIRE(values);
        for (Color c : {WHITE, BLACK})
            for (ValueArray* metric : {&values->dtm[c], &values->dtz[c]})
                for (uint64_t i = 0; i < metric->size(); ++i) {
                    Value& v = (*metric)[i];
                    const int spread = distance_of(v) * 16 + int(i % 16);
                    if (is_win(v))
                        v = win_in(spread | 1);
                    else if (is_loss(v))
                        v = loss_in(spread & ~1);
                }
        GenerationInfo info;
        info.threads = 2;
        REQUIRE(write_table_files(*values, dir, info, &error));
        const auto path = dir / (std::string(name) + (kind == FileKind::WDL ? ".pytw" : ".pytd"));
        opened.push_back(TableFile::open(path, *indexes.back(), kind, &error));
        REQUIRE(opened.back());
        for (const Section& s : opened.back()->sections()) {
            // A constant section, or a DTZ read through the DTM's sign that still fits 8 bits.
            if (s.pairs || s.bits() == 0) continue;
            CHECK(s.bits() == 16);
            ++lz4_sections;
            with_dictionary += s.h.dict_size != 0;
        }
        add_probes(*opened.back(), rng, probes);
    }
    CHECK(lz4_sections >= 4);
    CHECK(with_dictionary > 0);
    REQUIRE(probes.size() > 1000);
    std::shuffle(probes.begin() + probes.size() / 2, probes.end(), rng);  // and half of them in random order
    CHECK(mismatches(probes) == 0);
}
