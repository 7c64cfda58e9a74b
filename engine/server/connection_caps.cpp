#include "engine/server/connection_caps.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace pythia::server {

ConnectionCaps::Slot& ConnectionCaps::Slot::operator=(Slot&& other) noexcept {
    if (this != &other) {
        release();
        caps_ = std::exchange(other.caps_, nullptr);
        address_ = std::move(other.address_);
        verdict_ = other.verdict_;
        reason_ = other.reason_;
    }
    return *this;
}

void ConnectionCaps::Slot::release() {
    if (caps_) std::exchange(caps_, nullptr)->give_back(*this);
}

ConnectionCaps::Slot ConnectionCaps::admit(std::string_view address) {
    Slot slot;
    slot.address_ = std::string(address);
    std::lock_guard lock(mutex_);
    auto it = per_address_.find(slot.address_);
    const int from_address = it == per_address_.end() ? 0 : it->second;
    if (served_ < max_connections_ && from_address < max_per_address_) {
        ++served_;
        if (it == per_address_.end())
            per_address_.emplace(slot.address_, 1);
        else
            ++it->second;
        slot.verdict_ = Verdict::Serve;
    } else if (refusing_ < MAX_REFUSING) {
        ++refusing_;
        slot.verdict_ = Verdict::Refuse;
        slot.reason_ = served_ >= max_connections_ ? Reason::TooManyInAll : Reason::TooManyFromAddress;
    } else {
        slot.reason_ = Reason::TooManyRefusals;
        return slot;  // Drop: nothing held
    }
    slot.caps_ = this;
    return slot;
}

void ConnectionCaps::give_back(const Slot& slot) {
    std::lock_guard lock(mutex_);
    if (slot.verdict_ == Verdict::Refuse) {
        --refusing_;
        return;
    }
    --served_;
    auto it = per_address_.find(slot.address_);
    if (it != per_address_.end() && --it->second == 0) per_address_.erase(it);
}

int ConnectionCaps::served() const {
    std::lock_guard lock(mutex_);
    return served_;
}

int ConnectionCaps::refusing() const {
    std::lock_guard lock(mutex_);
    return refusing_;
}

std::string address_key(const unsigned char* bytes, size_t size) {
    static constexpr unsigned char V4_MAPPED[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (size == 16 && std::memcmp(bytes, V4_MAPPED, 12) == 0) return address_key(bytes + 12, 4);
    if (size == 16) return std::string(reinterpret_cast<const char*>(bytes), 8);  // the /64
    return std::string(reinterpret_cast<const char*>(bytes), std::min<size_t>(size, 4));
}

}  // namespace pythia::server
