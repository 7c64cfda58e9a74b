// The engine as a client of a tablebase server (UCI option TablebaseURL): Pythia's own
// `tb serve` or any server of the lichess API (http://tablebase.lichess.ovh). One request, under
// a hard time budget: the answer is dropped if it comes later, so a slow or dead server (or a
// slow name lookup) costs the engine at most the budget.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "engine/core/position.h"
#include "engine/server/lichess_json.h"

namespace pythia::server {

struct RemoteAnswer {
    std::optional<LichessResponse> response;  // nothing on any failure
    std::string error;                        // why, for an `info string`
    std::chrono::milliseconds elapsed{0};
};

// GET <url>/standard?fen=<pos's FEN> within `budget`. `url`: http://host[:port][/prefix].
RemoteAnswer ask_tablebase_server(const std::string& url, const Position& pos, std::chrono::milliseconds budget);

}  // namespace pythia::server
