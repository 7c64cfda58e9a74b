#include "tablebase/format/table_set.h"

#include <algorithm>

#include "tablebase/format/parallel.h"

namespace pythia::tb {

uint64_t TableSet::signature(const Material& m) {
    uint64_t s = 0;
    for (Color c : {WHITE, BLACK})
        for (int pt = PAWN; pt <= KING; ++pt) s = s * 16 + m.count(c, PieceType(pt));
    return s;
}

void TableSet::add(std::shared_ptr<const TableValues> table) {
    tables_[signature(table->index.material())] = std::move(table);
}

const TableValues* TableSet::find(const Material& normalized) const {
    auto it = tables_.find(signature(normalized));
    return it == tables_.end() ? nullptr : it->second.get();
}

namespace {

// The slot of each of `pieces` in `index`'s placement: the i-th piece of a colour and type
// takes that colour and type's i-th slot. `exchange`: the pieces' colours are swapped first.
void assign_slots(const TableIndex& index, const PieceOn* pieces, int n, bool exchange, int8_t* slot_of) {
    int8_t taken[16] = {};  // pieces of each colour and type so far
    for (int i = 0; i < n; ++i) {
        const Color c = exchange ? ~pieces[i].color : pieces[i].color;
        const int kind = c * 8 + pieces[i].type;
        slot_of[i] = int8_t(index.first_slot(c, pieces[i].type) + taken[kind]++);
    }
}

}  // namespace

Placement placement_for(const TableIndex& index, const PieceOn* pieces, int n) {
    int8_t slot_of[MAX_PIECES];
    assign_slots(index, pieces, n, false, slot_of);
    Placement p{};
    for (int i = 0; i < n; ++i) p[slot_of[i]] = pieces[i].square;
    return p;
}

TableRoute TableSet::route(const PieceOn* pieces, int n) const {
    TableRoute r;
    if (n == 2) {
        r.bare_kings = true;
        return r;
    }
    Material m;
    for (int i = 0; i < n; ++i)
        m.set_count(pieces[i].color, pieces[i].type, m.count(pieces[i].color, pieces[i].type) + 1);
    r.flip = !m.is_normalized();
    r.table = find(r.flip ? m.flipped() : m);
    if (r.table) assign_slots(r.table->index, pieces, n, r.flip, r.slot_of);
    return r;
}

bool TableSet::lookup(const TableRoute& r, const PieceOn* pieces, int n, Color stm, Value& dtm, Value& dtz) const {
    if (r.bare_kings) {
        dtm = dtz = VALUE_UNKNOWN;  // bare kings: a draw
        return true;
    }
    if (r.flip) stm = ~stm;
    if (!r.table || r.table->dtm[stm].empty()) return false;  // absent, or loaded without this side to move
    Placement p{};
    for (int i = 0; i < n; ++i) p[r.slot_of[i]] = r.flip ? flip_rank(pieces[i].square) : pieces[i].square;
    const uint64_t idx = r.table->index.encode(p);
    dtm = r.table->dtm[stm][idx];
    dtz = r.table->dtz_at(stm, idx);
    return true;
}

PositionBits cursed_positions(const ValueArray& dtz, int threads) {
    if (threads <= 0) threads = default_threads();
    // A word of 64 positions at a time, without a branch (cursed_or_blessed), which the compiler
    // vectorises: with a branch a value this pass over every kept table was 2.4 % of the
    // reference subset's CPU time, 8 times slower.
    auto odd = [](Value v) { return uint64_t(cursed_or_blessed(v)); };
    const uint64_t n = dtz.size(), whole_words = n / 64;
    PositionBits cursed((n + 63) / 64);
    parallel_for(whole_words, threads, 1 << 14, [&](uint64_t begin, uint64_t end, int) {
        for (uint64_t w = begin; w < end; ++w) {
            const Value* v = dtz.data() + w * 64;
            uint64_t word = 0;
            for (int k = 0; k < 64; ++k) word |= odd(v[k]) << k;
            cursed[w] = word;
        }
    });
    for (uint64_t i = whole_words * 64; i < n; ++i) cursed[i / 64] |= odd(dtz[i]) << (i & 63);
    return cursed;
}

void keep_for_conversions(TableValues& t, int threads) {
    for (Color c : {WHITE, BLACK}) {
        if (t.dtz[c].empty()) continue;  // not held, or held so already
        t.cursed[c] = cursed_positions(t.dtz[c], threads);
        release(t.dtz[c]);
    }
}

}  // namespace pythia::tb
