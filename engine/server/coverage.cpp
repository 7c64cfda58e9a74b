#include "engine/server/coverage.h"

#include <algorithm>
#include <map>

#include "tablebase/format/material.h"

namespace pythia::server {

namespace {

// Piece sets of one side beyond its king: multisets of k pieces of 5 kinds, C(k+4, 4).
long sets_of(int k) { return long(k + 4) * (k + 3) * (k + 2) * (k + 1) / 24; }

// How many tables of exactly n pieces there are: unordered pairs of the two sides' sets (the
// table of a material and of its colours exchanged is one), KvK left out. 5, 30, 110, 365, 1001.
long tables_of(int pieces) {
    long n = 0;
    for (int strong = pieces - 2, weak = 0; strong >= weak; --strong, ++weak)
        n += strong > weak ? sets_of(strong) * sets_of(weak) : sets_of(strong) * (sets_of(strong) + 1) / 2;
    return pieces >= 3 ? n : 0;
}

// A table name's pieces: its letters but the 'v' ("KRPvKR": 5).
int pieces_of(const std::string& name) {
    return int(std::count_if(name.begin(), name.end(), [](char c) { return c != 'v'; }));
}

std::string source_json(const std::map<int, int>& found) {
    std::string out = "[";
    for (const auto& [pieces, n] : found) {
        if (out.size() > 1) out += ',';
        out += "{\"pieces\":" + std::to_string(pieces) + ",\"tables\":" + std::to_string(n) +
               ",\"of\":" + std::to_string(tables_of(pieces)) + "}";
    }
    return out + "]";
}

}  // namespace

std::string coverage_json(const TableSources& tables) {
    std::map<int, int> own, syzygy;
    for (const tb::Material& m : tables.own.materials()) ++own[m.total()];
    if (tables.syzygy)
        for (const std::string& name : tables.syzygy->table_names()) ++syzygy[pieces_of(name)];
    int max_pieces = 0;
    for (const auto* found : {&own, &syzygy})
        if (!found->empty()) max_pieces = std::max(max_pieces, found->rbegin()->first);
    return "{\"max_pieces\":" + std::to_string(max_pieces) + ",\"pythia\":" + source_json(own) +
           ",\"syzygy\":" + source_json(syzygy) + "}";
}

}  // namespace pythia::server
