#include "engine/server/routes.h"

#include <algorithm>
#include <optional>

#include "engine/server/coverage.h"
#include "engine/server/explorer_assets.h"
#include "engine/server/mainline.h"

namespace pythia::server {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The explorer's own files: a path is looked up among the compiled-in assets, never opened.
bool is_asset_path(std::string_view path) {
    if (path.empty() || path[0] != '/') return false;
    return std::all_of(path.begin() + 1, path.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
    });
}

}  // namespace

HttpResponse error_response(int status, std::string_view message) {
    HttpResponse r;
    r.status = status;
    r.body = error_json(message);
    return r;
}

HttpResponse target_too_long() {
    return error_response(414, "request too long (at most " + std::to_string(MAX_TARGET_LENGTH) + " bytes)");
}

namespace {

// The query's position, or the 400 that says why there is none.
std::optional<Position> position_of(const std::string& fen_param, HttpResponse* error) {
    if (fen_param.empty()) {
        *error = error_response(400, "missing parameter: fen");
        return std::nullopt;
    }
    std::string fen = fen_param;
    std::replace(fen.begin(), fen.end(), '_', ' ');  // as lichess: underscores for spaces
    Position pos;
    std::string why;
    if (!pos.set_fen(fen, &why)) {
        *error = error_response(400, "bad FEN: " + why);
        return std::nullopt;
    }
    return pos;
}

}  // namespace

HttpResponse standard_reply(const TableSources& tables, const std::string& fen_param) {
    HttpResponse r;
    if (const std::optional<Position> pos = position_of(fen_param, &r))
        r.body = to_json(lichess_response(tables, *pos));
    return r;
}

HttpResponse mainline_reply(const TableSources& tables, const std::string& fen_param) {
    HttpResponse r;
    const std::optional<Position> pos = position_of(fen_param, &r);
    if (!pos) return r;
    std::string why;
    const std::optional<Mainline> line = mainline(tables, *pos, &why);
    if (!line) return error_response(404, why);  // as lila-tablebase: not a tablebase position
    r.body = to_json(*line);
    return r;
}

bool percent_decode(std::string_view value, std::string* out, bool plus_is_space) {
    out->clear();
    out->reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i) {
        const char c = value[i];
        if (c == '+' && plus_is_space) {
            out->push_back(' ');
        } else if (c != '%') {
            out->push_back(c);
        } else {
            if (i + 2 >= value.size()) return false;
            const int hi = hex_digit(value[i + 1]), lo = hex_digit(value[i + 2]);
            if (hi < 0 || lo < 0) return false;
            out->push_back(char(hi * 16 + lo));
            i += 2;
        }
    }
    return true;
}

std::string query_value(std::string_view query, std::string_view key) {
    while (!query.empty()) {
        const size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const size_t eq = pair.find('=');
        std::string name, value;
        if (!percent_decode(pair.substr(0, eq), &name, true) || name != key) continue;
        if (eq == std::string_view::npos || !percent_decode(pair.substr(eq + 1), &value, true)) return {};
        return value;
    }
    return {};
}

HttpResponse route(const TableSources& tables, std::string_view method, std::string_view target) {
    if (target.size() > MAX_TARGET_LENGTH) return target_too_long();
    const size_t question = target.find('?');
    const std::string_view path = target.substr(0, question);
    const std::string_view query =
        question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
    std::string decoded_path;
    if (!percent_decode(path, &decoded_path, false)) return error_response(400, "malformed escape in the path");
    const bool get = method == "GET" || method == "HEAD";
    if (get && (decoded_path == "/standard" || decoded_path == "/standard/mainline")) {
        const std::string fen = query_value(query, "fen");
        HttpResponse r = decoded_path == "/standard" ? standard_reply(tables, fen) : mainline_reply(tables, fen);
        r.allow_any_origin = true;  // as lichess: tools in browsers may ask
        return r;
    }
    if (get && decoded_path == "/tables") {
        HttpResponse r;
        r.body = coverage_json(tables);
        r.allow_any_origin = true;
        return r;
    }
    if (get && is_asset_path(decoded_path)) {
        if (const Asset* a = find_asset(decoded_path)) {
            HttpResponse r;
            r.content_type = std::string(a->content_type);
            r.body = std::string(a->data);
            return r;
        }
    }
    return error_response(404, "not found: " + decoded_path);
}

}  // namespace pythia::server
