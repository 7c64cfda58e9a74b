// `pythia tb serve`: the tables over HTTP. This is the transport (Boost.Beast on Boost.Asio):
// connections, deadlines, caps, HTTP errors; what each request gets is routes.h's route(): the
// lichess tablebase API's JSON, the explorer page, JSON errors. See README.md in this folder.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "engine/server/routes.h"

namespace pythia::server {

// What one client may hold, and for how long. The defaults are for a public address.
struct ServerLimits {
    // A request must arrive whole (line, headers, body) within this time of its first byte, or
    // it gets 408 and the connection is closed: a client that trickles bytes holds nothing long.
    std::chrono::milliseconds request_deadline{10000};
    // A kept-alive connection with no request begun is closed after this time (silently).
    std::chrono::milliseconds idle_timeout{30000};
    // Connections open at once, in all and from one client address (an IPv6 client: its /64);
    // one beyond either gets 503 and is closed.
    int max_connections = 4096;
    int max_per_address = 128;
};

class TablebaseServer {
public:
    explicit TablebaseServer(const TableSources& tables, const ServerLimits& limits = {});
    ~TablebaseServer();  // stops the server
    TablebaseServer(const TablebaseServer&) = delete;
    TablebaseServer& operator=(const TablebaseServer&) = delete;

    // Binds the listening socket (port 0: a free port); false with `error` if it cannot.
    bool bind(const std::string& host, int port, std::string* error);
    int port() const { return port_; }
    // Serves until stop() on `threads` threads, which both carry the connections (any number,
    // idle ones costing no thread) and answer the requests.
    void run(int threads);
    // run() on a thread of its own (tests); returns at once, the socket listening.
    void start(int threads);
    // Thread-safe; returns once run() has returned if the server was start()ed. Every open
    // connection is closed.
    void stop();

    // The limits in force: max_connections may be lowered at run() to what the process's
    // limit of open files allows.
    const ServerLimits& limits() const { return limits_; }

private:
    struct Impl;
    const TableSources tables_;
    ServerLimits limits_;
    std::unique_ptr<Impl> impl_;
    int port_ = 0;
    std::thread thread_;
};

}  // namespace pythia::server
