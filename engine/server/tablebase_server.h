// `pythia tb serve`: the tables over HTTP. GET /standard?fen=... answers the lichess tablebase
// API's JSON (lichess_json.h); GET / serves the explorer page, built into the binary
// (explorer_assets.h). Everything else is a JSON error: 400 a bad FEN or position, 404 an
// unknown path, 414 an over-long request. See README.md in this folder.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "tablebase/probe/tablebases.h"

namespace httplib {
class Server;
}

namespace pythia::server {

// The longest request target (path and query) answered; longer ones get 414. A FEN is at most
// about 90 characters.
constexpr size_t MAX_TARGET_LENGTH = 512;

class TablebaseServer {
public:
    explicit TablebaseServer(const tb::Tablebases& tables);
    ~TablebaseServer();  // stops the server
    TablebaseServer(const TablebaseServer&) = delete;
    TablebaseServer& operator=(const TablebaseServer&) = delete;

    // Binds the listening socket (port 0: a free port); false with `error` if it cannot.
    bool bind(const std::string& host, int port, std::string* error);
    int port() const { return port_; }
    // Serves until stop(), with `threads` connections at a time (cpp-httplib gives each open
    // connection a thread from its pool while it is kept alive).
    void run(int threads);
    // run() on a thread of its own (tests); returns once the server accepts connections.
    void start(int threads);
    void stop();

private:
    const tb::Tablebases& tables_;
    std::unique_ptr<httplib::Server> http_;
    int port_ = 0;
    int listen_fd_ = -1;  // the listening socket, seen when httplib creates it
    std::thread thread_;
    std::atomic<bool> finished_{false};
};

// The body of GET /standard for the query's `fen` (underscores for spaces), and its status.
struct Reply {
    int status = 200;
    std::string body;
};
Reply standard_reply(const tb::Tablebases& tables, const std::string& fen_param);

}  // namespace pythia::server
