// The explorer page's files (engine/server/explorer/), built into the binary by
// embed_assets.cmake, so that one binary serves the page offline.
#pragma once

#include <cstddef>
#include <string_view>

namespace pythia::server {

struct Asset {
    std::string_view path;          // "/", "/explorer.js", ...
    std::string_view content_type;  // "text/html; charset=utf-8", ...
    std::string_view data;
};

// The asset served at `path`, or nullptr.
const Asset* find_asset(std::string_view path);

}  // namespace pythia::server
