// Tables held in memory as plain value arrays, and lookups of any position in them. The
// generator keeps the tables it depends on here; a lookup finds the table by material,
// exchanges colours when the weaker side is White, and applies the index symmetry.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "tablebase/table_index.h"
#include "tablebase/value.h"

namespace pythia::tb {

struct PieceOn {
    Color color;
    PieceType type;
    Square square;
};

// A whole table in memory: DTM and DTZ values for each side to move.
struct TableValues {
    explicit TableValues(const Material& m) : index(m) {}
    TableIndex index;
    std::vector<Value> dtm[COLOR_NB];
    std::vector<Value> dtz[COLOR_NB];
};

class TableSet {
public:
    void add(std::shared_ptr<const TableValues> table);
    const TableValues* find(const Material& normalized) const;

    // DTM and DTZ of the position made of `pieces` with `stm` to move, from stm's view.
    // Two bare kings are a draw. Returns false when the needed table is not loaded.
    bool lookup(const PieceOn* pieces, int n, Color stm, Value& dtm, Value& dtz) const;

private:
    static uint64_t signature(const Material& m);
    std::unordered_map<uint64_t, std::shared_ptr<const TableValues>> tables_;
};

// Builds the placement of `pieces` in the slot order of `index` (pieces must match its
// material exactly, in the same colours).
Placement placement_for(const TableIndex& index, const PieceOn* pieces, int n);

}  // namespace pythia::tb
