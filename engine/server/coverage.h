// `GET /tables`: which positions the loaded tables answer, for the explorer page and for tools:
// per source (Pythia's tables, Syzygy files) and number of pieces, how many tables were found of
// how many there are. Computed from what was loaded, never a fixed text.
#pragma once

#include <string>

#include "engine/server/lichess_json.h"

namespace pythia::server {

// {"max_pieces":N,"pythia":[{"pieces":3,"tables":5,"of":5},...],"syzygy":[...]}: max_pieces is
// the most pieces any loaded table holds (0: none); a source without tables has an empty list.
std::string coverage_json(const TableSources& tables);

}  // namespace pythia::server
