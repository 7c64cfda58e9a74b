// The order in which a section stores the positions of a table (FORMAT.md, "Storage order"). A table
// index is a mixed-radix number (TableIndex::digit_radices: the king pair or the slice and
// kings, then each piece group); a section may store its positions with those digits in
// another order, most significant first. Which pieces vary fastest decides which positions end
// up next to each other in the stream, and so how long its runs and repeated patterns are: on
// KBNvKN the orders chosen on samples make the WDL sections 46 % smaller than the index's own
// order, and the DTM sections smaller too (FORMAT.md, "Storage order"). The writer picks the
// order per section; a probe maps its index to the stored position with a few divisions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tablebase/format/table_index.h"

namespace pythia::tb {

class StorageOrder {
public:
    static constexpr int MAX_DIGITS = 8;

    StorageOrder() = default;  // the index's own order
    // `perm[k]` is the index digit stored k-th (k = 0 most significant). nullopt if `perm` is not
    // a permutation of the digits of `index`.
    static std::optional<StorageOrder> from_permutation(const TableIndex& index, const std::vector<int>& perm);
    // From a section header's `storage_order` field: 0 is the index's own order, else 4 bits per
    // stored digit, most significant first in the lowest bits, each the index digit stored there.
    static std::optional<StorageOrder> from_field(const TableIndex& index, uint32_t field);
    uint32_t field() const { return field_; }
    bool natural() const { return field_ == 0; }
    // "n KK B N": the digit names (TableIndex::digit_names) from most to least significant.
    std::string describe(const TableIndex& index) const;

    uint64_t to_storage(uint64_t index) const { return natural() ? index : renumber(index, by_index_); }
    uint64_t to_index(uint64_t stored) const { return natural() ? stored : renumber(stored, by_storage_); }

    // Walks stored positions one after another, keeping the index of each (an odometer over the
    // stored digits: no division per step).
    class Cursor {
    public:
        Cursor(const StorageOrder& order, uint64_t stored);
        uint64_t index() const { return index_; }
        void next() {
            if (order_->natural()) {
                ++index_;
                return;
            }
            for (int k = order_->num_digits_ - 1; k >= 0; --k) {
                const Digit& d = order_->by_storage_[k];
                index_ += d.other_weight;
                if (++count_[k] < d.radix) return;
                count_[k] = 0;
                index_ -= d.radix * d.other_weight;
            }
        }

    private:
        const StorageOrder* order_;
        uint64_t index_ = 0;
        uint64_t count_[MAX_DIGITS] = {};
    };

private:
    struct Digit {
        uint64_t radix = 1;
        int shift = -1;             // log2(radix) when a power of two (64: a king or a piece)
        uint64_t other_weight = 0;  // its weight in the other numbering
        uint64_t mod(uint64_t x) const { return shift >= 0 ? x & (radix - 1) : x % radix; }
        uint64_t div(uint64_t x) const { return shift >= 0 ? x >> shift : x / radix; }
    };
    // The digits of x in one numbering (least significant first), each times its weight in the other.
    uint64_t renumber(uint64_t x, const Digit* digits) const {
        uint64_t out = 0;
        for (int k = num_digits_ - 1; k >= 0; --k) {
            out += digits[k].mod(x) * digits[k].other_weight;
            x = digits[k].div(x);
        }
        return out;
    }

    uint32_t field_ = 0;
    int num_digits_ = 0;
    std::vector<int> perm_;
    Digit by_index_[MAX_DIGITS];    // index digits, most significant first; weight in the stored number
    Digit by_storage_[MAX_DIGITS];  // stored digits, most significant first; weight in the index
};

// Every order of the digits of `index`, the index's own first.
std::vector<std::vector<int>> all_digit_permutations(const TableIndex& index);

}  // namespace pythia::tb
