// What `tb serve` answers, apart from how the bytes travel: a request's method and target in,
// a status, a content type and a body out. The transport (tablebase_server.*) parses HTTP and
// calls route(); tests and the fuzz target may call it directly.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/server/lichess_json.h"

namespace pythia::server {

// The longest request target (path and query) answered; longer ones get 414. A FEN is at most
// about 90 characters.
constexpr size_t MAX_TARGET_LENGTH = 512;

struct HttpResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    bool allow_any_origin = false;  // Access-Control-Allow-Origin: * (the API, as lichess)
};

// The body of GET /standard for the query's `fen` (underscores for spaces), and its status.
HttpResponse standard_reply(const TableSources& tables, const std::string& fen_param);
// The same for GET /standard/mainline: 404 where the tables do not value the line.
HttpResponse mainline_reply(const TableSources& tables, const std::string& fen_param);

// A JSON error of the one shape every status shares: {"error": "..."}.
HttpResponse error_response(int status, std::string_view message);

// `value` with its %XX escapes decoded, and '+' as a space if `plus_is_space` (a query string);
// false if an escape is malformed.
bool percent_decode(std::string_view value, std::string* out, bool plus_is_space);

// The decoded value of `key` in the query string `query` (without '?'); empty if it is absent.
std::string query_value(std::string_view query, std::string_view key);

// The answer to a request target longer than MAX_TARGET_LENGTH (route()'s, and the transport's
// for one longer than it reads at all).
HttpResponse target_too_long();

// The answer to `method` `target` (the request line's second word: path and query).
HttpResponse route(const TableSources& tables, std::string_view method, std::string_view target);

}  // namespace pythia::server
