// Tables held in memory as plain value arrays, and lookups of any position in them. The
// generator keeps the tables it depends on here; a lookup finds the table by material,
// exchanges colours when the weaker side is White, and applies the index symmetry.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tablebase/format/table_index.h"
#include "tablebase/format/value.h"

namespace pythia::tb {

struct PieceOn {
    Color color;
    PieceType type;
    Square square;
};

// An allocator whose resize() leaves trivial elements uninitialised. The generator and the
// loader write every element of their arrays of hundreds of megabytes themselves, on all
// threads; value-initialising them first would fault in and zero every page on one thread
// before any work starts, and keep the whole array resident from that moment on.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <typename U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// One metric of a whole table for one side to move, by TableIndex index.
using ValueArray = std::vector<Value, UninitialisedAllocator<Value>>;

// Empties a vector and gives its memory back. (`v = {}` assigns an empty initializer list, which
// keeps the capacity: a loader that dropped a side so held on to 1.6 GB per 5-piece pawn table.)
template <typename Vector>
void release(Vector& v) {
    Vector().swap(v);
}

// One bit per position, 64 to a word.
using PositionBits = std::vector<uint64_t>;
inline bool test_bit(const PositionBits& bits, uint64_t i) { return bits[i >> 6] >> (i & 63) & 1; }
inline void set_bit(uint64_t* words, uint64_t i) { words[i >> 6] |= uint64_t(1) << (i & 63); }
inline bool test_bit(const uint64_t* words, uint64_t i) { return words[i >> 6] >> (i & 63) & 1; }

// A whole table in memory: DTM and DTZ values for each side to move.
struct TableValues {
    explicit TableValues(const Material& m) : index(m) {}
    TableIndex index;
    ValueArray dtm[COLOR_NB];
    ValueArray dtz[COLOR_NB];
    // Positions where a resolving capture (captures.h) already achieves the WDL value: what
    // the WDL file leaves "don't care". The generator records it from its own move scan; empty
    // for a table loaded from files (the writer then searches the captures itself).
    PositionBits capture_resolved[COLOR_NB];
    // The same for quiet promotions to a queen (FLAG_PROMOTIONS_RESOLVED): recorded by the
    // generator for tables with pawns, empty otherwise.
    PositionBits promotion_resolved[COLOR_NB];
    // Positions whose DTM a capture or promotion achieves (captures.h, best_leaving_move_dtm):
    // what a DTM section with FLAG_MOVES_RESOLVED leaves low. Recorded by the generator; empty
    // for a table loaded from files (the writer then searches those moves itself).
    PositionBits moves_resolved_dtm[COLOR_NB];
    // A side held for conversions only (keep_for_conversions) has no DTZ array; instead the
    // positions whose DTZ is a cursed win or a blessed loss (WDL +-1) are marked here.
    PositionBits cursed[COLOR_NB];

    bool has_side(Color c) const { return !dtm[c].empty(); }
    // The DTZ of entry i of side c; for a side held for conversions, a DTZ with the same WDL
    // (wdl_of_dtz), which is all a move into the table uses of it.
    Value dtz_at(Color c, uint64_t i) const {
        if (!dtz[c].empty()) return dtz[c][i];
        const Value v = dtm[c][i];
        const bool odd = test_bit(cursed[c], i);
        if (is_win(v)) return win_in(odd ? 101 : 1);
        if (is_loss(v)) return loss_in(odd ? 101 : 1);
        return is_illegal(v) ? VALUE_ILLEGAL : VALUE_UNKNOWN;
    }
};

// Holds each side of `t` for conversions only: its DTZ array goes, its DTM stays, and the
// positions whose DTZ is a cursed win or a blessed loss are marked in `cursed`. A table is only
// ever entered from another one by a capture or a promotion, which zeroes the 50-move counter,
// so its DTZ counts only by its WDL (dtz_of_zeroing_move), and the DTM's sign and this bit give
// that: two bytes and a bit per position and side instead of four. The tables a 5-piece pawn
// table converts into are held so while it is generated: KBPvKP's fourteen took 11.4 GiB with
// their DTZ. `threads` 0: all cores.
void keep_for_conversions(TableValues& t, int threads = 0);
// The positions whose DTZ in `dtz` is a cursed win or a blessed loss (TableValues::cursed).
PositionBits cursed_positions(const ValueArray& dtz, int threads = 0);

// How a list of pieces (their colours, types and order; not their squares) is looked up:
// the table, whether colours are exchanged, and the slot of each piece in that table's
// placement. The same for every position with that list, so a caller that meets one list
// many times (the verifier: the pieces left by one kind of capture) works it out once.
struct TableRoute {
    bool bare_kings = false;             // two kings: a draw, no table
    const TableValues* table = nullptr;  // nullptr: not loaded
    bool flip = false;                   // colours exchanged (the weaker side is White)
    int8_t slot_of[MAX_PIECES] = {};
};

class TableSet {
public:
    void add(std::shared_ptr<const TableValues> table);
    const TableValues* find(const Material& normalized) const;
    size_t size() const { return tables_.size(); }

    // DTM and DTZ of the position made of `pieces` with `stm` to move, from stm's view (from a
    // table held for conversions, a DTZ with the right WDL: TableValues::dtz_at). Two bare
    // kings are a draw. Returns false when the needed table is not loaded.
    bool lookup(const PieceOn* pieces, int n, Color stm, Value& dtm, Value& dtz) const {
        return lookup(route(pieces, n), pieces, n, stm, dtm, dtz);
    }
    // The WDL of that position from stm's view, nullopt when its table is not loaded: what the
    // writer's and the verifier's searches of the resolving moves look up.
    std::optional<int> lookup_wdl(const PieceOn* pieces, int n, Color stm) const {
        Value dtm, dtz;
        if (!lookup(pieces, n, stm, dtm, dtz)) return std::nullopt;
        return wdl_of_dtz(dtz);
    }
    TableRoute route(const PieceOn* pieces, int n) const;
    // The same, along a route worked out for this list of pieces.
    bool lookup(const TableRoute& route, const PieceOn* pieces, int n, Color stm, Value& dtm, Value& dtz) const;

private:
    static uint64_t signature(const Material& m);
    std::unordered_map<uint64_t, std::shared_ptr<const TableValues>> tables_;
};

// Builds the placement of `pieces` in the slot order of `index` (pieces must match its
// material exactly, in the same colours).
Placement placement_for(const TableIndex& index, const PieceOn* pieces, int n);

}  // namespace pythia::tb
