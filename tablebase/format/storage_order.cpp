#include "tablebase/format/storage_order.h"

#include <algorithm>
#include <numeric>

namespace pythia::tb {

std::optional<StorageOrder> StorageOrder::from_permutation(const TableIndex& index, const std::vector<int>& perm) {
    const std::vector<uint64_t> radix = index.digit_radices();
    const int n = int(radix.size());
    if (n > MAX_DIGITS || int(perm.size()) != n) return std::nullopt;
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (int k = 0; k < n; ++k)
        if (sorted[k] != k) return std::nullopt;
    StorageOrder o;
    o.num_digits_ = n;
    o.perm_ = perm;
    bool identity = true;
    for (int k = 0; k < n; ++k) {
        identity &= perm[k] == k;
        o.field_ |= uint32_t(perm[k]) << (4 * k);
    }
    if (identity) return StorageOrder{};
    // Weights: the index's own (its digits in order), and the stored number's.
    std::vector<uint64_t> index_weight(n, 1), stored_weight(n, 1);
    for (int k = n - 2; k >= 0; --k) index_weight[k] = index_weight[k + 1] * radix[k + 1];
    for (int k = n - 2; k >= 0; --k) stored_weight[k] = stored_weight[k + 1] * radix[perm[k + 1]];
    for (int k = 0; k < n; ++k) {
        auto digit = [&](uint64_t r, uint64_t weight) {
            Digit d;
            d.radix = r;
            d.shift = (r & (r - 1)) == 0 ? __builtin_ctzll(r) : -1;
            d.other_weight = weight;
            return d;
        };
        o.by_storage_[k] = digit(radix[perm[k]], index_weight[perm[k]]);
        o.by_index_[perm[k]] = digit(radix[perm[k]], stored_weight[k]);
    }
    return o;
}

std::optional<StorageOrder> StorageOrder::from_field(const TableIndex& index, uint32_t field) {
    if (field == 0) return StorageOrder{};
    const int n = int(index.digit_radices().size());
    if (n > MAX_DIGITS || (n < 8 && (field >> (4 * n)) != 0)) return std::nullopt;
    std::vector<int> perm(n);
    for (int k = 0; k < n; ++k) perm[k] = int((field >> (4 * k)) & 15);
    auto o = from_permutation(index, perm);
    if (!o || o->natural()) return std::nullopt;  // the identity is written as 0
    return o;
}

std::string StorageOrder::describe(const TableIndex& index) const {
    const std::vector<std::string> names = index.digit_names();
    std::vector<int> perm = perm_;
    if (perm.empty()) {
        perm.resize(names.size());
        std::iota(perm.begin(), perm.end(), 0);
    }
    std::string out;
    for (int k : perm) out += (out.empty() ? "" : " ") + names[k];
    return out;
}

StorageOrder::Cursor::Cursor(const StorageOrder& order, uint64_t stored) : order_(&order) {
    index_ = order.to_index(stored);
    for (int k = order.num_digits_ - 1; k >= 0; --k) {
        count_[k] = order.by_storage_[k].mod(stored);
        stored = order.by_storage_[k].div(stored);
    }
}

std::vector<std::vector<int>> all_digit_permutations(const TableIndex& index) {
    std::vector<int> perm(index.digit_radices().size());
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<std::vector<int>> out;
    do out.push_back(perm);
    while (std::next_permutation(perm.begin(), perm.end()));
    return out;
}

}  // namespace pythia::tb
