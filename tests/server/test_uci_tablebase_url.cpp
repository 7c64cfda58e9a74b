// The engine as a tablebase server's client (UCI option TablebaseURL): through a pipe to the
// real binary, against a server in this process on a free loopback port, a dead port and a
// server that does not answer in time. The engine has no local tables here.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <tuple>

#include "engine/core/notation.h"
#include "engine/server/lichess_json.h"
#include "engine/server/tablebase_server.h"
#include "tablebase/tb_test_tables.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

// An engine without local tables, asking `url` with `timeout_ms` for the answer. The tests
// that expect an answer give it seconds (the default 50 ms is for games, and a loaded test
// machine may miss it); those that expect none give it the default.
void start_engine(EngineProcess& e, const std::string& url, int timeout_ms = 50) {
    e.send("uci");
    REQUIRE(e.read_line_starting("uciok", 10000));
    e.send("setoption name OwnBook value false");
    e.send("setoption name TablebasePath value " + test::scratch_dir("no-tables").string());
    e.send("setoption name TablebaseURL value " + url);
    e.send("setoption name TablebaseURLTimeout value " + std::to_string(timeout_ms));
    e.send("isready");
    REQUIRE(e.read_line_starting("readyok", 10000));
}

// `go depth 6` on `fen`: the bestmove line, every line seen before it in `seen`.
std::string best_move(EngineProcess& e, const std::string& fen, std::vector<std::string>& seen) {
    e.send("position fen " + fen);
    e.send("go depth 6");
    const auto line = e.read_line_starting("bestmove", 60000, &seen);
    REQUIRE(line);
    return line->substr(9, line->find(' ', 9) == std::string::npos ? std::string::npos : line->find(' ', 9) - 9);
}

bool saw(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& l : lines)
        if (l.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("TablebaseURL: the engine plays the server's move at a root its tables miss", "[server][uci]") {
    tb::Tablebases tables;
    tables.set_paths(test::test_tables_dir().string());
    server::TablebaseServer s(tables);
    std::string error;
    REQUIRE(s.bind("127.0.0.1", 0, &error));
    s.start(4);
    EngineProcess e;
    start_engine(e, "http://127.0.0.1:" + std::to_string(s.port()), 5000);
    for (const std::string fen :
         {"8/8/8/8/8/2k5/8/K6Q w - - 0 1", "8/8/8/8/8/8/1k6/R6K w - - 0 1", "8/8/8/8/8/2k5/8/K6Q b - - 0 1"}) {
        INFO(fen);
        std::vector<std::string> seen;
        const std::string move = best_move(e, fen, seen);
        INFO(move);
        CHECK(saw(seen, "info string tablebase server:"));
        // The server's best move (best first): the shortest mate, or the longest resistance.
        const auto answer = server::lichess_response(tables, test::position(fen));
        REQUIRE(!answer.moves.empty());
        CHECK(move == answer.moves.front().uci);
        CHECK(saw(seen, answer.pos.category == server::Category::WIN ? "score mate " : "score mate -"));
    }
}

TEST_CASE("TablebaseURL: a dead or silent server costs an info string, then the search plays", "[server][uci]") {
    // A port nobody listens on: bound by a socket that never listens, then closed.
    int dead_port = 0;
    {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
        dead_port = ntohs(a.sin_port);
        close(fd);
    }
    REQUIRE(dead_port > 0);
    // A server that answers only when the test lets it (long after the engine's budget).
    httplib::Server silent;
    std::atomic<bool> release{false}, answered{false};
    silent.Get("/standard", [&](const httplib::Request&, httplib::Response& res) {
        for (int i = 0; i < 1000 && !release; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        answered = true;
        res.set_content("{}", "application/json");
    });
    const int silent_port = silent.bind_to_any_port("127.0.0.1");
    REQUIRE(silent_port > 0);
    std::thread silent_thread([&] { silent.listen_after_bind(); });

    // The dead port with time enough to see the refusal, the silent server and a URL that is
    // none with the default 50 ms: each costs an info string saying why.
    const std::string dead = "http://127.0.0.1:" + std::to_string(dead_port),
                      silent_url = "http://127.0.0.1:" + std::to_string(silent_port);
    for (const auto& [url, timeout, why] : {std::tuple(dead, 2000, std::string("no connection or no answer")),
                                            std::tuple(silent_url, 50, std::string("no answer")),
                                            std::tuple(std::string("not a url"), 50, std::string(": "))}) {
        INFO(url << " " << timeout);
        EngineProcess e;
        start_engine(e, url, timeout);
        std::vector<std::string> seen;
        const std::string move = best_move(e, "8/8/8/8/8/2k5/8/K6Q w - - 0 1", seen);
        CHECK(move != "0000");
        CHECK(saw(seen, "info string tablebase server " + url + ": "));
        CHECK(saw(seen, ", searching"));
        CHECK(saw(seen, why));
    }
    CHECK(!answered);  // the engine played without waiting for the silent server
    release = true;
    silent.stop();
    silent_thread.join();
}
