// The connection caps of `tb serve` (engine/server/connection_caps.h): counting in all and per
// client address, the places given back, the refusals capped too, and the keys addresses are
// counted under.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/server/connection_caps.h"

using namespace pythia::server;
using Verdict = ConnectionCaps::Verdict;
using Reason = ConnectionCaps::Reason;

TEST_CASE("connection caps count per address and in all, and take places back", "[server][caps]") {
    ConnectionCaps caps(5, 2);
    std::vector<ConnectionCaps::Slot> held;
    held.push_back(caps.admit("a"));
    held.push_back(caps.admit("a"));
    CHECK(held[0].verdict() == Verdict::Serve);
    CHECK(held[1].verdict() == Verdict::Serve);
    {
        const ConnectionCaps::Slot third = caps.admit("a");
        CHECK(third.verdict() == Verdict::Refuse);
        CHECK(third.reason() == Reason::TooManyFromAddress);
        CHECK(caps.refusing() == 1);
    }
    CHECK(caps.refusing() == 0);  // a refusal's place is given back too
    held.push_back(caps.admit("b"));
    held.push_back(caps.admit("b"));
    held.push_back(caps.admit("c"));
    for (const auto& s : held) CHECK(s.verdict() == Verdict::Serve);
    CHECK(caps.served() == 5);
    const ConnectionCaps::Slot over = caps.admit("d");  // a fresh address, but none left in all
    CHECK(over.verdict() == Verdict::Refuse);
    CHECK(over.reason() == Reason::TooManyInAll);

    held[0].release();  // one of "a" closes: "a" may open one again, once
    CHECK(caps.served() == 4);
    ConnectionCaps::Slot again = caps.admit("a");
    CHECK(again.verdict() == Verdict::Serve);
    ConnectionCaps::Slot moved = std::move(again);  // a move keeps the one place
    CHECK(caps.served() == 5);
    moved.release();
    moved.release();  // twice: given back once
    CHECK(caps.served() == 4);
    held.clear();
    CHECK(caps.served() == 0);
}

TEST_CASE("connection caps drop what they cannot even refuse", "[server][caps]") {
    ConnectionCaps caps(1, 1);
    const ConnectionCaps::Slot served = caps.admit("a");
    std::vector<ConnectionCaps::Slot> refused;
    for (int i = 0; i < ConnectionCaps::MAX_REFUSING; ++i) refused.push_back(caps.admit("a"));
    for (const auto& s : refused) CHECK(s.verdict() == Verdict::Refuse);
    const ConnectionCaps::Slot dropped = caps.admit("b");
    CHECK(dropped.verdict() == Verdict::Drop);
    CHECK(dropped.reason() == Reason::TooManyRefusals);
    refused.pop_back();
    CHECK(caps.admit("b").verdict() == Verdict::Refuse);
}

TEST_CASE("clients are counted by IPv4 address, or by the /64 of an IPv6 one", "[server][caps]") {
    const unsigned char v4[4] = {192, 0, 2, 7};
    const unsigned char mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
    unsigned char v6a[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1};
    unsigned char v6b[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 9};
    unsigned char v6c[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1};
    CHECK(address_key(v4, 4) == address_key(mapped, 16));
    CHECK(address_key(v6a, 16) == address_key(v6b, 16));  // the same /64
    CHECK(address_key(v6a, 16) != address_key(v6c, 16));
    CHECK(address_key(v4, 4) != address_key(v6a, 16));
}
