#include "engine/server/tablebase_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>

#include "engine/server/routes.h"

namespace pythia::server {

namespace {

void send(httplib::Response& res, const HttpResponse& r) {
    res.status = r.status;
    res.set_content(r.body, r.content_type.c_str());
    if (r.allow_any_origin) res.set_header("Access-Control-Allow-Origin", "*");
}

}  // namespace

TablebaseServer::TablebaseServer(const TableSources& tables)
    : tables_(tables), http_(std::make_unique<httplib::Server>()) {
    httplib::Server& s = *http_;
    // Every request that httplib parses is answered by route(), whatever its method and path.
    s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        send(res, route(tables_, req.method, req.target));
        return httplib::Server::HandlerResponse::Handled;
    });
    // httplib's own errors (a request it cannot parse, its 414) as JSON too.
    s.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const std::string what =
            res.status == 414 ? std::string("request too long") : "HTTP status " + std::to_string(res.status);
        send(res, error_response(res.status, what));
        return httplib::Server::HandlerResponse::Handled;
    }));
    s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
            std::rethrow_exception(ep);
        } catch (const std::exception& e) {
            what += std::string(": ") + e.what();
        } catch (...) {
        }
        spdlog::error("tb serve: {}", what);
        send(res, error_response(500, what));
    });
    // The listening socket: SO_REUSEADDR only (httplib's default adds SO_REUSEPORT, with which a
    // second server on the same port would start and silently take part of the connections),
    // and kept so that bind() can lengthen its backlog.
    s.set_socket_options([this](int fd) {
        int yes = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        listen_fd_ = fd;
    });
    s.set_tcp_nodelay(true);              // small answers: no Nagle delay on kept-alive connections
    s.set_payload_max_length(4096);       // GET only: no request body worth reading
    s.set_keep_alive_max_count(1000000);  // a client may keep its connection
    s.set_read_timeout(5, 0);             // an idle or slow client lets its thread go
    s.set_write_timeout(5, 0);
}
TablebaseServer::~TablebaseServer() { stop(); }

bool TablebaseServer::bind(const std::string& host, int port, std::string* error) {
    listen_fd_ = -1;
    bool bound = false;
    if (port == 0) {
        port_ = http_->bind_to_any_port(host);
        bound = port_ > 0;
    } else if (http_->bind_to_port(host, port)) {
        port_ = port;
        bound = true;
    }
    if (bound) {
        // The Debian build of cpp-httplib listens with a backlog of 5: 64 clients connecting at
        // once lost SYNs and waited a second for the retry. Listening again sets the backlog.
        if (listen_fd_ >= 0) ::listen(listen_fd_, SOMAXCONN);
        return true;
    }
    if (error) *error = "cannot listen on " + host + ":" + std::to_string(port) + " (address in use or not local?)";
    return false;
}

void TablebaseServer::run(int threads) {
    const size_t n = size_t(std::max(threads, 1));
    http_->new_task_queue = [n] { return new httplib::ThreadPool(n); };
    http_->listen_after_bind();
}

void TablebaseServer::start(int threads) {
    finished_ = false;
    thread_ = std::thread([this, threads] {
        run(threads);
        finished_ = true;
    });
    // The socket listens already; stop() must not come before the accept loop has started.
    while (!http_->is_running() && !finished_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void TablebaseServer::stop() {
    if (http_) http_->stop();
    if (thread_.joinable()) thread_.join();
}

}  // namespace pythia::server
