#include "tablebase/table_set.h"

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

Placement placement_for(const TableIndex& index, const PieceOn* pieces, int n) {
    Placement p{};
    int next[COLOR_NB][PIECE_TYPE_NB];
    for (int c = 0; c < 2; ++c)
        for (int pt = 0; pt < PIECE_TYPE_NB; ++pt) next[c][pt] = -1;
    for (int i = index.num_slots() - 1; i >= 0; --i) next[index.slot(i).color][index.slot(i).type] = i;
    for (int i = 0; i < n; ++i) p[next[pieces[i].color][pieces[i].type]++] = pieces[i].square;
    return p;
}

bool TableSet::lookup(const PieceOn* pieces, int n, Color stm, Value& dtm, Value& dtz) const {
    if (n == 2) {
        dtm = dtz = VALUE_UNKNOWN;  // bare kings: a draw
        return true;
    }
    Material m;
    for (int i = 0; i < n; ++i) m.set_count(pieces[i].color, pieces[i].type, m.count(pieces[i].color, pieces[i].type) + 1);
    PieceOn flipped[MAX_PIECES];
    const PieceOn* use = pieces;
    if (!m.is_normalized()) {
        for (int i = 0; i < n; ++i) flipped[i] = {~pieces[i].color, pieces[i].type, flip_rank(pieces[i].square)};
        use = flipped;
        m = m.flipped();
        stm = ~stm;
    }
    const TableValues* t = find(m);
    if (!t || t->dtm[stm].empty()) return false;  // absent, or loaded without this side to move
    uint64_t idx = t->index.encode(placement_for(t->index, use, n));
    dtm = t->dtm[stm][idx];
    dtz = t->dtz[stm][idx];
    return true;
}

}  // namespace pythia::tb
