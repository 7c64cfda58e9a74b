#include "engine/server/tablebase_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>

#include "engine/server/explorer_assets.h"
#include "engine/server/lichess_json.h"

namespace pythia::server {

namespace {

constexpr const char* JSON_TYPE = "application/json";

void send_json(httplib::Response& res, int status, const std::string& body) {
    res.status = status;
    res.set_content(body, JSON_TYPE);
}

}  // namespace

Reply standard_reply(const tb::Tablebases& tables, const std::string& fen_param) {
    if (fen_param.empty()) return {400, error_json("missing parameter: fen")};
    std::string fen = fen_param;
    std::replace(fen.begin(), fen.end(), '_', ' ');  // as lichess: underscores for spaces
    Position pos;
    std::string error;
    if (!pos.set_fen(fen, &error)) return {400, error_json("bad FEN: " + error)};
    return {200, to_json(lichess_response(tables, pos))};
}

TablebaseServer::TablebaseServer(const tb::Tablebases& tables)
    : tables_(tables), http_(std::make_unique<httplib::Server>()) {
    httplib::Server& s = *http_;
    // Before routing: a request target longer than any FEN query is refused whole.
    s.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
        if (req.target.size() <= MAX_TARGET_LENGTH) return httplib::Server::HandlerResponse::Unhandled;
        send_json(res, 414, error_json("request too long (at most " + std::to_string(MAX_TARGET_LENGTH) + " bytes)"));
        return httplib::Server::HandlerResponse::Handled;
    });
    s.Get("/standard", [this](const httplib::Request& req, httplib::Response& res) {
        const Reply r = standard_reply(tables_, req.get_param_value("fen"));
        send_json(res, r.status, r.body);
        res.set_header("Access-Control-Allow-Origin", "*");  // as lichess: tools in browsers may ask
    });
    // The explorer's own files and nothing else: the path is looked up, never opened.
    s.Get(R"(/[A-Za-z0-9._-]*)", [](const httplib::Request& req, httplib::Response& res) {
        const Asset* a = find_asset(req.path);
        if (!a) {
            send_json(res, 404, error_json("not found: " + req.path));
            return;
        }
        res.set_content(std::string(a->data), std::string(a->content_type).c_str());
    });
    // Every other error (no route, httplib's own 400 and 414) as JSON too.
    s.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const std::string what = res.status == 404   ? "not found: " + req.path
                                 : res.status == 414 ? std::string("request too long")
                                                     : "HTTP status " + std::to_string(res.status);
        send_json(res, res.status, error_json(what));
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
        send_json(res, 500, error_json(what));
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
