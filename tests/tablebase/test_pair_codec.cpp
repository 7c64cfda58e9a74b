// The PAIRS codec on its own: every stream decodes to what was encoded, whole and position by
// position (one read at a time or in batches), streams with structure come out small, and
// payloads that lie are refused by the parser or answered with "corrupt", never read outside
// their bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include "tablebase/format/pair_codec.h"
#include "test_mode.h"

using namespace pythia::tb;

namespace {

struct Stream {
    std::string name;
    std::vector<uint8_t> codes;  // one per position
    uint32_t terminals;
};

std::vector<uint8_t> pack(const std::vector<uint8_t>& codes, int bits) {
    std::vector<uint8_t> out((codes.size() * bits + 7) / 8, 0);
    for (size_t i = 0; i < codes.size(); ++i) {
        if (bits == 8)
            out[i] = codes[i];
        else
            out[(i * bits) >> 3] |= uint8_t(codes[i] << ((i * bits) & 7));
    }
    return out;
}

std::vector<Stream> streams(int bits) {
    std::mt19937_64 rng(bits);
    const uint32_t terminals = bits == 8 ? 200 : (1u << bits);
    std::vector<Stream> out;
    {
        Stream s{"uniform random", {}, terminals};
        for (int i = 0; i < 100003; ++i) s.codes.push_back(uint8_t(rng() % terminals));
        out.push_back(s);
    }
    {
        // Runs from 1 to 300000 positions: symbols and blocks reach their position limits.
        Stream s{"runs", {}, terminals};
        while (s.codes.size() < 1500000) {
            const uint64_t len = rng() % 4 == 0 ? rng() % 300000 + 1 : rng() % 40 + 1;
            s.codes.insert(s.codes.end(), len, uint8_t(rng() % terminals));
        }
        out.push_back(s);
    }
    {
        // A pattern repeating every 64 positions, with noise: what a table's index order makes.
        Stream s{"periodic", {}, terminals};
        std::vector<uint8_t> row(64);
        for (auto& c : row) c = uint8_t(rng() % std::min<uint32_t>(terminals, 3));
        for (int i = 0; i < 400000; ++i) s.codes.push_back(rng() % 50 ? row[i % 64] : uint8_t(rng() % terminals));
        out.push_back(s);
    }
    {
        Stream s{"one value and one exception", std::vector<uint8_t>(77777, 0), terminals};
        s.codes[12345] = uint8_t(terminals - 1);
        out.push_back(s);
    }
    out.push_back({"one value only", std::vector<uint8_t>(4099, uint8_t(terminals - 1)), terminals});
    out.push_back({"one position", {uint8_t(terminals - 1)}, terminals});
    return out;
}

// 6000 random words of 8 codes, each used 10 times in random order: a grammar of more than 4096
// symbols, many of them with short codes.
std::vector<uint8_t> many_words(uint32_t terminals) {
    std::mt19937_64 rng(terminals);
    std::vector<std::vector<uint8_t>> words(6000, std::vector<uint8_t>(8));
    for (auto& w : words)
        for (auto& c : w) c = uint8_t(rng() % terminals);
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < 10 * words.size(); ++k) order.push_back(k % words.size());
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<uint8_t> codes;
    for (uint32_t k : order) codes.insert(codes.end(), words[k].begin(), words[k].end());
    return codes;
}

}  // namespace

TEST_CASE("the pair codec decodes every stream to what was encoded", "[tb][pairs]") {
    for (int bits : {1, 2, 4, 8}) {
        for (const Stream& s : streams(bits)) {
            INFO(s.name << ", " << bits << " bits");
            const uint64_t n = s.codes.size();
            const std::vector<uint8_t> packed = pack(s.codes, bits);
            for (const auto& candidates : {pairs::DEFAULT_BLOCK_BYTES, std::vector<uint32_t>{8},
                                           std::vector<uint32_t>{256}, std::vector<uint32_t>{4096}}) {
                const std::vector<uint8_t> payload = encode_pairs(packed.data(), bits, n, s.terminals, 2, candidates);
                std::string why;
                const auto r = PairsReader::parse(payload.data(), payload.size(), n, s.terminals, &why);
                INFO(why);
                REQUIRE(r);
                std::vector<uint8_t> whole(packed.size(), 0);
                REQUIRE(r->decode_all(whole.data(), bits));
                CHECK(whole == packed);
                // In parallel, in chunks of one block or a few: chunks that share a byte at their ends.
                for (uint64_t chunk : {uint64_t(1), uint64_t(777)}) {
                    std::vector<uint8_t> parts(packed.size(), 0);
                    REQUIRE(r->decode_all(parts.data(), bits, 2, chunk));
                    CHECK(parts == packed);
                }
                // Every position one at a time, or every 16th under the sanitizers (light mode):
                // from checkpoints (below). Without checkpoints, where a read walks from the
                // start of its block (up to 4096 bytes: most of the test's time when every
                // position was read so), every 16th position of those and the last one.
                const uint64_t stride = pythia::test::light_mode() ? 16 : 1;
                const uint64_t walk_stride = 16 * stride;
                uint64_t wrong = 0;
                for (uint64_t i = 0; i < n; i = (i == n - 1 || i + walk_stride < n) ? i + walk_stride : n - 1) {
                    uint32_t code = 999;
                    wrong += !r->code_at(i, code) || code != s.codes[i];
                }
                CHECK(wrong == 0);
                // Walks from checkpoints inside the blocks: every 256 bits (as in DTM
                // sections: blocks of 64 bytes and more), and every 512 (DTZ; the reader
                // batches read below).
                PairsReader fine = *r;
                fine.build_checkpoints(nullptr, 256);
                for (uint64_t i = 0; i < n; i += stride) {
                    uint32_t code = 999;
                    wrong += !fine.code_at(i, code) || code != s.codes[i];
                }
                CHECK(wrong == 0);
                PairsReader with = *r;
                with.build_checkpoints();
                for (uint64_t i = 0; i < n; i += stride) {
                    uint32_t code = 999;
                    wrong += !with.code_at(i, code) || code != s.codes[i];
                }
                CHECK(wrong == 0);
                // Read in batches of 1 to 40 (PairsReader::read_codes), with and without
                // checkpoints in one batch (one read in 16 without, the long walks above),
                // one position past the end among them.
                std::vector<PairsReader::BatchRead> batch;
                std::mt19937_64 rng(n);
                bool past_end = false;
                for (uint64_t i = 0; i < n || !past_end;) {
                    batch.assign(1 + rng() % 40, {});
                    for (auto& x : batch) {
                        x.reader = rng() % 16 ? &with : &*r;
                        if (!past_end && rng() % 8 == 0) {
                            x.position = n;
                            past_end = true;
                        } else if (i < n && rng() % 4) {
                            x.position = i;
                            i += stride;
                        } else {
                            x.position = rng() % n;
                        }
                    }
                    PairsReader::read_codes(batch.data(), int(batch.size()));
                    for (const auto& x : batch) {
                        if (x.position == n)
                            wrong += x.ok;
                        else
                            wrong += !x.ok || x.code != s.codes[x.position];
                    }
                }
                CHECK(wrong == 0);
                uint32_t code;
                CHECK_FALSE(r->code_at(n, code));
                if ((s.name == "runs" || s.name == "one value and one exception") && candidates.size() > 1)
                    CHECK(payload.size() * 20 < packed.size());  // runs cost next to nothing
            }
        }
    }
}

TEST_CASE("the pair codec finds repeated patterns, not only runs", "[tb][pairs]") {
    // The periodic stream has runs of a few positions only; its pattern of 64 is what pays.
    const Stream s = streams(2)[2];
    const std::vector<uint8_t> packed = pack(s.codes, 2);
    const auto payload = encode_pairs(packed.data(), 2, s.codes.size(), s.terminals, 1);
    INFO(payload.size() << " bytes for " << packed.size() << " packed");
    CHECK(payload.size() * 3 < packed.size());
}

TEST_CASE("the pair codec's grammar grows past 4096 symbols where pairs keep paying", "[tb][pairs]") {
    const uint32_t terminals = 200;
    const std::vector<uint8_t> codes = many_words(terminals);
    const uint64_t n = codes.size();
    const std::vector<uint8_t> packed = pack(codes, 8);
    const auto payload = encode_pairs(packed.data(), 8, n, terminals, 2);
    pairs::Header h;
    std::memcpy(&h, payload.data(), sizeof h);
    INFO(h.num_symbols << " symbols, " << payload.size() << " bytes for " << packed.size() << " packed");
    CHECK(h.num_symbols > 4096);
    CHECK(h.num_symbols <= pairs::MAX_SYMBOLS);
    CHECK(payload.size() * 4 < packed.size() * 3);  // the repeated words pay for their rules
    std::string why;
    const auto r = PairsReader::parse(payload.data(), payload.size(), n, terminals, &why);
    INFO(why);
    REQUIRE(r);
    std::vector<uint8_t> whole(packed.size(), 0);
    REQUIRE(r->decode_all(whole.data(), 8, 2, 777));
    CHECK(whole == packed);
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t code = 999;
        wrong += !r->code_at(i, code) || code != codes[i];
    }
    CHECK(wrong == 0);
}

TEST_CASE("the pair codec's second stage takes runs of long symbols left to right", "[tb][pairs]") {
    // 600 words of 6 codes, each placed 8 times, each time repeated 1 to 9 times in a row: once
    // a word is one symbol, its repeats are runs of that symbol, whose pairs overlap ("WWW").
    const uint32_t terminals = 200;
    std::mt19937_64 rng(7);
    std::vector<std::vector<uint8_t>> words(600, std::vector<uint8_t>(6));
    for (auto& w : words)
        for (auto& c : w) c = uint8_t(rng() % terminals);
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < 8 * words.size(); ++k) order.push_back(k % words.size());
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<uint8_t> codes;
    for (uint32_t k : order)
        for (uint64_t r = rng() % 9 + 1; r > 0; --r) codes.insert(codes.end(), words[k].begin(), words[k].end());
    const uint64_t n = codes.size();
    const std::vector<uint8_t> packed = pack(codes, 8);
    const auto payload = encode_pairs(packed.data(), 8, n, terminals, 2);
    INFO(payload.size() << " bytes for " << packed.size() << " packed");
    CHECK(payload.size() * 3 < packed.size());  // a word's repeats cost about one code each
    std::string why;
    const auto r = PairsReader::parse(payload.data(), payload.size(), n, terminals, &why);
    INFO(why);
    REQUIRE(r);
    std::vector<uint8_t> whole(packed.size(), 0);
    REQUIRE(r->decode_all(whole.data(), 8));
    CHECK(whole == packed);
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t code = 999;
        wrong += !r->code_at(i, code) || code != codes[i];
    }
    CHECK(wrong == 0);
}

TEST_CASE("the pair codec's estimate ranks streams as their encodings do", "[tb][pairs]") {
    // The writer picks storage orders by estimate_pairs alone: a stream that encodes smaller
    // must estimate smaller, with the grammar cut short (256 pairs) as the writer cuts it.
    for (int bits : {2, 8}) {
        std::vector<std::pair<uint64_t, uint64_t>> sizes;  // (estimate, payload) per stream
        for (const Stream& s : streams(bits)) {
            if (s.codes.size() < 100000) continue;  // uniform random, runs, periodic
            const std::vector<uint8_t> packed = pack(s.codes, bits);
            const uint64_t payload = encode_pairs(packed.data(), bits, s.codes.size(), s.terminals, 2).size();
            const uint64_t estimate = estimate_pairs(packed.data(), bits, s.codes.size(), s.terminals, 2, 256);
            const uint64_t whole =
                estimate_pairs(packed.data(), bits, s.codes.size(), s.terminals, 2, pairs::MAX_SYMBOLS);
            INFO(bits << " bits, " << s.name << ": payload " << payload << ", estimates " << estimate << " and "
                      << whole);
            // Without a cap the estimate is near the payload (it does not count the bits a block
            // leaves unused, nor the grammar's exact bits); cut short it is no smaller, but where
            // rules do not pay for themselves (uniform random codes).
            CHECK(whole * 10 >= payload * 7);
            CHECK(whole * 10 <= payload * 12);
            CHECK(estimate * 10 >= whole * 9);
            sizes.push_back({estimate, payload});
        }
        REQUIRE(sizes.size() == 3);
        std::sort(sizes.begin(), sizes.end());
        for (size_t k = 1; k < sizes.size(); ++k) CHECK(sizes[k - 1].second < sizes[k].second);
    }
}

TEST_CASE("pair payloads that lie are refused or answered as corrupt, never read outside", "[tb][pairs][badfiles]") {
    const Stream s = streams(2)[2];
    const uint64_t n = s.codes.size();
    const std::vector<uint8_t> packed = pack(s.codes, 2);
    const std::vector<uint8_t> good = encode_pairs(packed.data(), 2, n, s.terminals, 2);
    pairs::Header h;
    std::memcpy(&h, good.data(), sizeof h);
    REQUIRE(h.num_symbols > h.num_terminals);
    const size_t blocks_at = good.size() - h.num_blocks * h.block_bytes;
    REQUIRE(blocks_at % 64 == 0);
    std::string why;
    auto parse = [&](const std::vector<uint8_t>& bytes) {
        return PairsReader::parse(bytes.data(), bytes.size(), n, s.terminals, &why);
    };
    REQUIRE(parse(good));
    CHECK_FALSE(parse(std::vector<uint8_t>(good.begin(), good.end() - 1)));   // truncated
    CHECK_FALSE(parse(std::vector<uint8_t>(good.begin(), good.end() - 64)));  // a block short
    CHECK_FALSE(parse(std::vector<uint8_t>(good.begin(), good.begin() + 10)));
    {
        auto bad = good;  // the grammar cut short: zeros where its last bytes were
        std::fill(bad.begin() + sizeof h + 4, bad.begin() + blocks_at, 0);
        CHECK_FALSE(parse(bad));
    }
    {
        auto bad = good;  // a block of one position more: the sizes no longer add up
        bad[blocks_at] ^= 1;
        CHECK_FALSE(parse(bad));
    }
    // Any bit of the grammar changed: refused, or a grammar whose probes answer a code the
    // section has (or "corrupt"), every read inside the payload.
    std::mt19937_64 rng(5);
    int refused = 0;
    for (size_t bit = 8 * sizeof h; bit < 8 * blocks_at; bit += 1 + rng() % 7) {
        auto bad = good;
        bad[bit >> 3] ^= uint8_t(0x80 >> (bit & 7));
        auto r = parse(bad);
        if (!r) {
            ++refused;
            continue;
        }
        for (int p = 0; p < 50; ++p) {
            uint32_t code = 0;
            if (r->code_at(rng() % n, code)) REQUIRE(code < s.terminals);
        }
        std::vector<uint8_t> whole(packed.size(), 0);
        (void)r->decode_all(whole.data(), 2);
    }
    CHECK(refused > 0);

    // Any bit of the codes changed in 256-byte blocks, with checkpoints built over them: codes
    // the section has, or "corrupt", every read inside the payload.
    const std::vector<uint8_t> big = encode_pairs(packed.data(), 2, n, s.terminals, 2, {256});
    std::memcpy(&h, big.data(), sizeof h);
    REQUIRE(h.block_bytes == 256);
    const size_t big_blocks_at = big.size() - h.num_blocks * h.block_bytes;
    int answered = 0;
    for (int k = 0; k < 200; ++k) {
        auto bad = big;
        const size_t at = big_blocks_at + rng() % (h.num_blocks * h.block_bytes);
        if ((at - big_blocks_at) % h.block_bytes < 2) continue;  // a block's size: refused by parse
        bad[at] ^= uint8_t(1 << (rng() % 8));
        auto r = PairsReader::parse(bad.data(), bad.size(), n, s.terminals, &why);
        REQUIRE(r);
        r->build_checkpoints();
        PairsReader::BatchRead batch[50];
        for (auto& x : batch) {
            x.reader = &*r;
            x.position = rng() % n;
        }
        PairsReader::read_codes(batch, 50);
        for (const auto& x : batch) {
            uint32_t code = 0;
            const bool ok = r->code_at(x.position, code);
            REQUIRE(x.ok == ok);  // a batch reads what one read does, corrupt or not
            if (ok) {
                REQUIRE(code < s.terminals);
                REQUIRE(x.code == code);
                ++answered;
            }
        }
    }
    CHECK(answered > 0);
}
