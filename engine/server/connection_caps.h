// How many connections `tb serve` holds, in all and per client address, so that no one client
// (nor a crowd) can take every socket: a connection beyond either cap is refused, and the
// refusals themselves are capped (each gets a short 503, then is closed).
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pythia::server {

class ConnectionCaps {
public:
    // At most this many refused connections are being answered at once; beyond, a new one is
    // closed without an answer.
    static constexpr int MAX_REFUSING = 256;

    enum class Verdict { Serve, Refuse, Drop };
    enum class Reason { None, TooManyInAll, TooManyFromAddress, TooManyRefusals };

    // A place held by one connection; its destructor gives it back.
    class Slot {
    public:
        Slot() = default;
        Slot(Slot&& other) noexcept { *this = std::move(other); }
        Slot& operator=(Slot&& other) noexcept;
        ~Slot() { release(); }
        Verdict verdict() const { return verdict_; }
        Reason reason() const { return reason_; }
        void release();

    private:
        friend class ConnectionCaps;
        ConnectionCaps* caps_ = nullptr;
        std::string address_;
        Verdict verdict_ = Verdict::Drop;
        Reason reason_ = Reason::None;
    };

    ConnectionCaps(int max_connections, int max_per_address)
        : max_connections_(max_connections), max_per_address_(max_per_address) {}
    ConnectionCaps(const ConnectionCaps&) = delete;
    ConnectionCaps& operator=(const ConnectionCaps&) = delete;

    // A new connection from `address` (a key: address_key()): served, refused with an answer,
    // or dropped.
    Slot admit(std::string_view address);

    int served() const;
    int refusing() const;
    int max_connections() const { return max_connections_; }
    int max_per_address() const { return max_per_address_; }

private:
    void give_back(const Slot& slot);

    const int max_connections_, max_per_address_;
    mutable std::mutex mutex_;
    int served_ = 0, refusing_ = 0;
    std::unordered_map<std::string, int> per_address_;  // only addresses with a connection open
};

// The key a client is counted under: its IPv4 address (also when it comes as an IPv4-mapped
// IPv6 one), or the /64 prefix of its IPv6 address (what one subscriber is usually given, so
// that a client cannot escape the cap by changing addresses inside it). `bytes`: 4 or 16.
std::string address_key(const unsigned char* bytes, size_t size);

}  // namespace pythia::server
