// `GET /standard/mainline?fen=...` (lila-tablebase's): the line both sides play by DTZ from a
// position, until a mate, a draw or a halfmove clock of 100 (where the 50-move draw is claimed).
// The same tables as the builder of /standard (lichess_json.h): Pythia's, then Syzygy's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/server/lichess_json.h"

namespace pythia::server {

struct MainlineStep {
    std::string uci, san;
    int dtz = 0;          // the position after the move, from its side to move
    bool precise = true;  // not from Syzygy (whose DTZ may be rounded)
};

struct Mainline {
    int dtz = 0;  // the position's own
    bool precise = true;
    std::vector<MainlineStep> steps;  // empty for a draw
    std::optional<Color> winner;      // the side that mates at the end of the line
};

// The line from `pos`; nothing, with `error` set, when the tables do not value the position or
// one on its line.
std::optional<Mainline> mainline(const TableSources& tables, const Position& pos, std::string* error);

// {"mainline":[{"uci","san","dtz","precise_dtz"}...],"winner":"w"|"b"|null,"dtz","precise_dtz"},
// lila-tablebase's field order.
std::string to_json(const Mainline& m);

}  // namespace pythia::server
