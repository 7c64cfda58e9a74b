// libFuzzer target: what `tb serve` answers a request, route() with any method and target: the
// path's and query's percent-decoding, the `fen` parameter, the FEN parser, the prober and the
// JSON writer. The input is a request line's first two words, "METHOD TARGET" (without a space:
// a GET of the whole input). Beyond "no crash, no exception, no sanitizer report":
//   the status is one route() gives (200, 400, 404, 414), 414 exactly for an over-long target;
//   every JSON body parses, an error is {"error": "..."} and nothing else;
//   a 200 of /standard is the answer for the position of its own `fen`: its moves are exactly
//   that position's legal moves (never another position's); a 200 of /standard/mainline is a
//   line of legal moves from that position; a 200 of /tables names the most pieces loaded;
//   percent-encoding any target and decoding it gives it back.
// PYTHIA_FUZZ_TABLES may name a folder of tables to probe (scripts/fuzz makes KRvK and KPvK);
// without it every answer has null values, which still exercises the rest.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/position.h"
#include "engine/server/routes.h"
#include "tablebase/probe/tablebases.h"

using namespace pythia;
using namespace pythia::server;
using Json = nlohmann::json;

namespace {

[[noreturn]] void fail(const char* what, std::string_view method, std::string_view target, const std::string& body) {
    std::fprintf(stderr, "fuzz-routes: %s\n  method: %.*s\n  target: %.*s\n  body: %.300s\n", what, int(method.size()),
                 method.data(), int(target.size()), target.data(), body.c_str());
    std::abort();
}

const tb::Tablebases& tables() {
    static tb::Tablebases* t = [] {
        spdlog::set_level(spdlog::level::warn);
        auto* tbs = new tb::Tablebases();
        if (const char* dir = std::getenv("PYTHIA_FUZZ_TABLES")) tbs->set_paths(dir);
        return tbs;
    }();
    return *t;
}

std::string percent_encode(std::string_view s) {
    static const char* HEX = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) out += {'%', HEX[c >> 4], HEX[c & 15]};
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t space = input.find(' ');
    const std::string_view method = space == std::string_view::npos ? "GET" : input.substr(0, space);
    const std::string_view target = space == std::string_view::npos ? input : input.substr(space + 1);

    const HttpResponse r = route(tables(), method, target);
    if (r.status != 200 && r.status != 400 && r.status != 404 && r.status != 414)
        fail("status", method, target, r.body);
    if ((r.status == 414) != (target.size() > MAX_TARGET_LENGTH)) fail("414 or not", method, target, r.body);

    if (r.content_type == "application/json") {
        const Json j = Json::parse(r.body, nullptr, false);
        if (j.is_discarded() || !j.is_object()) fail("not a JSON object", method, target, r.body);
        if (r.status != 200) {
            if (j.size() != 1 || !j.contains("error") || !j["error"].is_string())
                fail("error shape", method, target, r.body);
        } else {
            if (!r.allow_any_origin) fail("API answer without Access-Control-Allow-Origin", method, target, r.body);
            std::string path;
            percent_decode(target.substr(0, target.find('?')), &path, false);
            if (path == "/tables") {
                if (!j["max_pieces"].is_number_integer()) fail("/tables shape", method, target, r.body);
                return 0;
            }
            // /standard and /standard/mainline answer for the position of their own `fen`.
            const std::string_view query = target.substr(std::min(target.size(), target.find('?') + 1));
            std::string fen = target.find('?') == std::string_view::npos ? "" : query_value(query, "fen");
            std::replace(fen.begin(), fen.end(), '_', ' ');
            Position pos;
            if (!pos.set_fen(fen)) fail("200 for a FEN that does not parse", method, target, r.body);
            if (path == "/standard/mainline") {
                if (!j["mainline"].is_array()) fail("mainline shape", method, target, r.body);
                for (const Json& step : j["mainline"]) {
                    const Move m = parse_uci_move(pos, step.value("uci", ""));
                    if (m == Move::none()) fail("a mainline move that is not legal", method, target, r.body);
                    pos.do_move(m);
                }
                return 0;
            }
            if (path != "/standard") fail("a 200 in JSON from an unknown path", method, target, r.body);
            if (!j["moves"].is_array() || !j["category"].is_string()) fail("answer shape", method, target, r.body);
            std::vector<std::string> answered, legal;
            for (const Json& m : j["moves"]) answered.push_back(m.value("uci", ""));
            for (Move m : MoveList(pos)) legal.push_back(move_to_uci(m));
            std::sort(answered.begin(), answered.end());
            std::sort(legal.begin(), legal.end());
            if (answered != legal) fail("moves not the position's", method, target, r.body);
        }
    } else if (r.status != 200 || (method != "GET" && method != "HEAD")) {
        fail("a page file for other than a GET", method, target, r.body);
    }

    // Decoding undoes encoding, and a malformed escape is refused rather than half-read.
    std::string decoded;
    if (!percent_decode(percent_encode(target), &decoded, true) || decoded != target)
        fail("percent round trip", method, target, decoded);
    return 0;
}
