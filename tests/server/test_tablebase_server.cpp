// `tb serve`'s HTTP endpoints, in process on a free loopback port: the JSON of /standard, the
// explorer's files, the errors (400, 404, 414), many clients at once, a table file corrupted
// while the server runs, the request deadline. (Attacks on the transport:
// test_server_attacks.py.)
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/server/lichess_json.h"
#include "engine/server/tablebase_server.h"
#include "tablebase/tb_test_tables.h"

using namespace pythia;
using namespace pythia::server;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A server over the tables of `dir` on a free port, stopped at the end of the test.
struct RunningServer {
    tb::Tablebases tables;
    std::unique_ptr<TablebaseServer> server;
    explicit RunningServer(const fs::path& dir, int threads = 8) {
        tables.set_paths(dir.string());
        server = std::make_unique<TablebaseServer>(tables);
        std::string error;
        REQUIRE(server->bind("127.0.0.1", 0, &error));
        server->start(threads);
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", server->port());
        c.set_tcp_nodelay(true);
        c.set_connection_timeout(5);
        c.set_read_timeout(10);
        return c;
    }
};

std::string url_fen(std::string fen) {
    std::replace(fen.begin(), fen.end(), ' ', '_');
    return fen;
}

void check_error(const httplib::Result& res, int status) {
    REQUIRE(res);
    INFO(res->body);
    CHECK(res->status == status);
    CHECK(res->get_header_value("Content-Type") == "application/json");
    const Json j = Json::parse(res->body, nullptr, false);
    REQUIRE(j.is_object());
    CHECK(j["error"].is_string());
}

// Overwrites `length` bytes of `file` from `fraction` of its size on, in place: the file keeps
// its size, as a disk error would leave it (truncating a file that a server has mapped would
// be another fault, one no reader of mapped files survives).
void corrupt_in_place(const fs::path& file, double fraction, size_t length) {
    const size_t size = fs::file_size(file);
    const size_t from = size_t(double(size) * fraction);
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(from));
    const std::string junk(std::min(length, size - from), '\xa5');
    f.write(junk.data(), std::streamsize(junk.size()));
}

}  // namespace

TEST_CASE("tb serve answers /standard with the lichess JSON of tb probe", "[server][http]") {
    RunningServer s(test::test_tables_dir());
    auto c = s.client();
    for (const std::string fen : {"8/8/8/8/8/8/1k6/R6K w - - 0 1", "8/8/8/8/8/2k5/8/K6Q b - - 0 1",
                                  "8/8/4k3/8/8/4K3/4P3/8 w - - 37 80", "R5k1/8/6K1/8/8/8/8/8 b - - 1 1"}) {
        INFO(fen);
        const std::string expected = to_json(lichess_response(s.tables, test::position(fen)));
        // Underscores for spaces, as lichess takes them, or the spaces encoded.
        auto res = c.Get("/standard?fen=" + url_fen(fen));
        REQUIRE(res);
        CHECK(res->status == 200);
        CHECK(res->get_header_value("Content-Type") == "application/json");
        CHECK(res->body == expected);
        res = c.Get("/standard", httplib::Params{{"fen", fen}}, httplib::Headers{});
        REQUIRE(res);
        CHECK(res->body == expected);
    }
    // Too many pieces for the tables: 200 with nulls, as lichess.
    auto res = c.Get("/standard?fen=" + url_fen(std::string(START_FEN)));
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(Json::parse(res->body)["category"] == "unknown");
}

TEST_CASE("tb serve answers bad requests with JSON errors and serves only the page's files", "[server][http]") {
    RunningServer s(test::test_tables_dir());
    auto c = s.client();
    check_error(c.Get("/standard"), 400);                                   // no FEN
    check_error(c.Get("/standard?fen="), 400);                              // empty
    check_error(c.Get("/standard?fen=not_a_fen"), 400);                     // malformed
    check_error(c.Get("/standard?fen=8/8/8/8/8/8/8/8_w_-_-_0_1"), 400);     // no kings
    check_error(c.Get("/standard?fen=k7/8/8/8/8/8/8/RK6_w_-_-_0_1"), 400);  // the side not to move in check
    check_error(c.Get("/standard?fen=" + std::string(600, 'k')), 414);      // over-long
    check_error(c.Get("/" + std::string(20000, 'a')), 414);                 // beyond httplib's own limit
    check_error(c.Get("/nothing"), 404);
    check_error(c.Get("/../etc/passwd"), 404);
    check_error(c.Get("/%2e%2e/%2e%2e/etc/passwd"), 404);
    check_error(c.Get("/explorer/index.html"), 404);
    check_error(c.Post("/standard", "x", "text/plain"), 404);

    auto page = c.Get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK_THAT(page->get_header_value("Content-Type"), Catch::StartsWith("text/html"));
    CHECK_THAT(page->body, Catch::Contains("/explorer.js"));
    for (const char* file : {"/explorer.js", "/explorer.css"}) {
        auto res = c.Get(file);
        REQUIRE(res);
        CHECK(res->status == 200);
        CHECK(res->body.size() > 1000);
    }
    // Still serving after all that.
    auto res = c.Get("/standard?fen=8/8/8/8/8/8/1k6/R6K_w_-_-_0_1");
    REQUIRE(res);
    CHECK(res->status == 200);
}

TEST_CASE("tb serve answers many clients at once", "[server][http]") {
    RunningServer s(test::test_tables_dir(), 16);
    const std::string expected = to_json(lichess_response(s.tables, test::position("8/8/8/8/8/2k5/8/K6Q b - - 0 1")));
    std::atomic<int> good{0}, bad{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < 12; ++t)
        clients.emplace_back([&] {
            auto c = s.client();
            c.set_keep_alive(true);
            for (int i = 0; i < 40; ++i) {
                auto res = c.Get("/standard?fen=8/8/8/8/8/2k5/8/K6Q_b_-_-_0_1");
                (res && res->status == 200 && res->body == expected ? good : bad)++;
            }
        });
    for (auto& t : clients) t.join();
    CHECK(good == 480);
    CHECK(bad == 0);
}

TEST_CASE("tb serve keeps serving the other tables when a table file is corrupted under it",
          "[server][http][badfiles]") {
    const fs::path dir = test::copy_of_test_tables("server-corrupt");
    RunningServer s(dir);
    auto c = s.client();
    const std::string krk = "/standard?fen=8/8/8/8/8/8/1k6/R6K_w_-_-_0_1";
    const std::string kqk = "/standard?fen=8/8/8/8/8/2k5/8/K6Q_b_-_-_0_1";
    auto before = c.Get(kqk);
    REQUIRE(before);
    REQUIRE(before->status == 200);
    // Corrupt KRvK's files while the server runs, before it has opened them: the middle of each
    // file overwritten, so their checksums fail when they open.
    for (const char* f : {"KRvK.pytw", "KRvK.pytd"}) corrupt_in_place(dir / f, 0.4, 64);
    auto res = c.Get(krk);
    REQUIRE(res);
    INFO(res->body);
    CHECK(res->status == 200);
    const Json j = Json::parse(res->body);
    CHECK(j["category"] == "unknown");  // no answer for that table: nulls, as lichess
    CHECK(j["dtz"].is_null());
    CHECK(j["dtm"].is_null());
    // The refusal is on record, and the rest is served as before.
    bool named = false;
    for (const std::string& r : s.tables.refused_files()) named |= r.find("KRvK") != std::string::npos;
    CHECK(named);
    auto after = c.Get(kqk);
    REQUIRE(after);
    CHECK(after->status == 200);
    CHECK(after->body == before->body);
    // A table already open and then corrupted on disk: the server answers (from its copy in
    // memory, or null where a block fails its check) and does not fall over.
    corrupt_in_place(dir / "KQvK.pytd", 0.3, size_t(1) << 30);
    for (const char* fen : {"8/8/8/8/8/2k5/8/K6Q_b_-_-_0_1", "8/8/8/2k5/8/8/8/K6Q_w_-_-_0_1"}) {
        auto r = c.Get(std::string("/standard?fen=") + fen);
        REQUIRE(r);
        INFO(r->status << " " << r->body);
        CHECK((r->status == 200 || r->status == 500));
    }
    auto last = c.Get("/standard?fen=8/8/4k3/8/8/4K3/4P3/8_w_-_-_0_1");
    REQUIRE(last);
    CHECK(last->status == 200);
    CHECK(Json::parse(last->body)["category"] == "win");
}

TEST_CASE("tb serve closes a request that is not whole by its deadline with 408", "[server][http][limits]") {
    tb::Tablebases tables;
    tables.set_paths(test::test_tables_dir().string());
    ServerLimits limits;
    limits.request_deadline = std::chrono::milliseconds(300);
    TablebaseServer server(tables, limits);
    REQUIRE(server.bind("127.0.0.1", 0, nullptr));
    server.start(2);
    // A raw connection that sends half a request and then nothing.
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(uint16_t(server.port()));
    REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    const std::string half = "GET /standard?fen=8/8/8/8/8/8/1k6/R6K_w_-_-_0_1 HTTP/1.1\r\nHost: x\r\n";
    REQUIRE(send(fd, half.data(), half.size(), 0) == ssize_t(half.size()));
    const auto t0 = std::chrono::steady_clock::now();
    std::string answer;
    char buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, size_t(n));  // until closed
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    close(fd);
    INFO(answer);
    CHECK_THAT(answer, Catch::StartsWith("HTTP/1.1 408 "));
    CHECK_THAT(answer, Catch::Contains("Connection: close"));
    CHECK_THAT(answer, Catch::EndsWith("{\"error\":\"request not complete within 300 ms\"}"));
    CHECK(seconds >= 0.25);
    CHECK(seconds < 3);
    // Others are served as before.
    httplib::Client c("127.0.0.1", server.port());
    auto res = c.Get("/standard?fen=8/8/8/8/8/8/1k6/R6K_w_-_-_0_1");
    REQUIRE(res);
    CHECK(res->status == 200);
}
