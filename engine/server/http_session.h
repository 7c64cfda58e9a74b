// One connection of `tb serve`, from accept to close: requests read under a deadline, answered
// in order by route(), errors of the HTTP layer answered as JSON and the connection then closed.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include "engine/server/connection_caps.h"
#include "engine/server/tablebase_server.h"

namespace pythia::server {

// The most a request may hold: its line and header fields, and a body (none is expected).
constexpr size_t MAX_HEADER_BYTES = 8192;
constexpr size_t MAX_BODY_BYTES = 4096;

// Serves `socket` until it closes (a session that owns itself through its pending operations;
// every handler of one connection runs on the socket's event loop, which one thread runs). A
// refused slot gets 503 at once.
void serve_connection(boost::asio::ip::tcp::socket socket, ConnectionCaps::Slot slot, const TableSources& tables,
                      const ServerLimits& limits);

}  // namespace pythia::server
