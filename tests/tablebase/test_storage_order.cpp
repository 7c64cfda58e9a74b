// Storage orders (storage_order.h): every order of a table's index digits is a bijection of the
// index, its cursor walks it as to_index does, and its header field reads back; a field that is
// no order of the table's digits is refused.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <random>

#include "tablebase/format/storage_order.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

const TableIndex& index_of(const char* name) {
    static std::map<std::string, std::unique_ptr<TableIndex>> cache;
    auto& p = cache[name];
    if (!p) p = std::make_unique<TableIndex>(Material::parse(name)->normalized());
    return *p;
}

}  // namespace

TEST_CASE("the index digits multiply to the index size and have names", "[tb][order]") {
    for (const char* name : {"KQvK", "KRvKP", "KRRvK", "KBNvKN", "KRPvKR", "KPPvKP", "KNNNvK"}) {
        INFO(name);
        const TableIndex& ix = index_of(name);
        const auto radix = ix.digit_radices();
        uint64_t product = 1;
        for (uint64_t r : radix) product *= r;
        CHECK(product == ix.size());
        CHECK(ix.digit_names().size() == radix.size());
    }
    CHECK(index_of("KBNvKN").digit_names() == std::vector<std::string>{"KK", "B", "N", "n"});
    CHECK(index_of("KRRvKP").digit_names() == std::vector<std::string>{"P", "K", "k", "R2"});
}

TEST_CASE("every storage order is a bijection of the index, and its cursor walks it", "[tb][order]") {
    std::mt19937_64 rng(7);
    for (const char* name : {"KRvK", "KQvKR", "KRRvK", "KPvK", "KRvKP", "KBNvKN", "KRPvKR"}) {
        const TableIndex& ix = index_of(name);
        const uint64_t n = ix.size();
        const auto perms = all_digit_permutations(ix);
        CHECK(perms.size() > 1);
        for (const auto& perm : perms) {
            const auto order = StorageOrder::from_permutation(ix, perm);
            REQUIRE(order);
            INFO(name << ": " << order->describe(ix));
            CHECK(order->natural() == (perm == perms[0]));
            // The header field reads back as the same order.
            const auto back = StorageOrder::from_field(ix, order->field());
            REQUIRE(back);
            CHECK(back->field() == order->field());
            if (n <= 2'000'000) {  // every index of the small tables: a bijection of [0, n)
                std::vector<uint8_t> seen(n, 0);
                for (uint64_t i = 0; i < n; ++i) {
                    const uint64_t j = order->to_storage(i);
                    REQUIRE(j < n);
                    REQUIRE_FALSE(seen[j]);
                    seen[j] = 1;
                    REQUIRE(order->to_index(j) == i);
                }
            } else {
                for (int k = 0; k < 100000; ++k) {
                    const uint64_t i = rng() % n;
                    const uint64_t j = order->to_storage(i);
                    REQUIRE(j < n);
                    REQUIRE(order->to_index(j) == i);
                }
            }
            // A cursor from a few places, across several carries.
            for (uint64_t start : {uint64_t(0), n / 3, n - 5000, rng() % (n - 5000)}) {
                StorageOrder::Cursor at(*order, start);
                for (uint64_t j = start; j < start + 5000; ++j, at.next()) REQUIRE(at.index() == order->to_index(j));
            }
        }
    }
}

TEST_CASE("a storage order field that is no order of the table's digits is refused", "[tb][order]") {
    const TableIndex& ix = index_of("KBNvKN");  // four digits: KK B N n
    CHECK(StorageOrder::from_field(ix, 0)->natural());
    CHECK(StorageOrder::from_field(ix, 0x0123));  // n N B KK
    CHECK(StorageOrder::from_field(ix, 0x0123)->describe(ix) == "n N B KK");
    CHECK_FALSE(StorageOrder::from_field(ix, 0x3210));   // the identity is written as 0
    CHECK_FALSE(StorageOrder::from_field(ix, 0x0113));   // a digit twice
    CHECK_FALSE(StorageOrder::from_field(ix, 0x0124));   // a digit the table does not have
    CHECK_FALSE(StorageOrder::from_field(ix, 0x10123));  // a fifth digit
    CHECK_FALSE(StorageOrder::from_permutation(ix, {0, 1, 2}));
    CHECK_FALSE(StorageOrder::from_permutation(ix, {0, 1, 2, 2}));
}
