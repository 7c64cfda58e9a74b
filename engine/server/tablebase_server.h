// `pythia tb serve`: the tables over HTTP. This is the transport; what each request gets is
// routes.h's route(): the lichess tablebase API's JSON, the explorer page, JSON errors. See
// README.md in this folder.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "engine/server/routes.h"

namespace httplib {
class Server;
}

namespace pythia::server {

class TablebaseServer {
public:
    explicit TablebaseServer(const TableSources& tables);
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
    const TableSources tables_;
    std::unique_ptr<httplib::Server> http_;
    int port_ = 0;
    int listen_fd_ = -1;  // the listening socket, seen when httplib creates it
    std::thread thread_;
    std::atomic<bool> finished_{false};
};

}  // namespace pythia::server
