#include "engine/server/tablebase_server.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <mutex>
#include <vector>

#include "engine/server/connection_caps.h"
#include "engine/server/http_session.h"

namespace pythia::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

// Files the process opens besides its connections (tables, logs, the listening socket).
constexpr rlim_t OTHER_FILES = 1024;

// The connections the limit of open files allows: it is raised to its hard ceiling if needed,
// and the cap lowered (with a warning) if even that is too low.
int fit_to_file_limit(int wanted) {
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return wanted;
    const rlim_t need = rlim_t(wanted) + ConnectionCaps::MAX_REFUSING + OTHER_FILES;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rlimit raised = rl;
        raised.rlim_cur = rl.rlim_max == RLIM_INFINITY ? need : std::min(need, rl.rlim_max);
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need) return wanted;
    const int fit = int(std::max<rlim_t>(rl.rlim_cur, OTHER_FILES + ConnectionCaps::MAX_REFUSING + 16) - OTHER_FILES -
                        ConnectionCaps::MAX_REFUSING);
    spdlog::warn("tb serve: at most {} connections (not {}): the limit of open files is {} (ulimit -n)", fit, wanted,
                 rl.rlim_cur);
    return fit;
}

std::string address_key_of(const asio::ip::address& a) {
    if (a.is_v4()) {
        const auto bytes = a.to_v4().to_bytes();
        return address_key(bytes.data(), bytes.size());
    }
    const auto bytes = a.to_v6().to_bytes();
    return address_key(bytes.data(), bytes.size());
}

}  // namespace

// One event loop per thread, each run by its own thread alone: a connection lives on one loop
// from accept to close, so its handlers never wait for or wake another thread (with one loop
// shared by all threads, every event handed work across threads through futexes, and a burst
// of a few hundred slow clients timing out at once cost a hundred milliseconds). The listening
// socket is on the first loop, which deals the accepted connections out in turn.
struct TablebaseServer::Impl {
    Impl(const TableSources& t, const ServerLimits& l)
        : tables(t), limits(l), caps(l.max_connections, l.max_per_address) {}

    const TableSources tables;
    const ServerLimits& limits;
    ConnectionCaps caps;
    // The loops are destroyed before the caps: the sessions their pending handlers own give
    // their places back. `first` before `more`: its pending accept holds a socket of one of them.
    std::vector<std::unique_ptr<asio::io_context>> more;  // made by run(), one per further thread
    std::vector<asio::io_context*> loops;                 // first and more, in turn for new connections
    size_t next_loop = 0;
    std::mutex mutex;  // stop() against run() making the loops
    bool stopped = false;
    asio::io_context first{1};
    tcp::acceptor acceptor{first};
    asio::steady_timer retry{first};

    void accept() {
        asio::io_context& loop = *loops[next_loop++ % loops.size()];
        acceptor.async_accept(loop, [this](error_code ec, tcp::socket socket) {
            if (!acceptor.is_open()) return;
            if (ec) {
                // Out of file descriptors or of kernel memory: wait a moment instead of spinning.
                spdlog::warn("tb serve: cannot accept a connection: {}", ec.message());
                retry.expires_after(std::chrono::milliseconds(50));
                retry.async_wait([this](error_code e) {
                    if (!e) accept();
                });
                return;
            }
            admit(std::move(socket));
            accept();
        });
    }

    void admit(tcp::socket socket) {
        error_code ec;
        const tcp::endpoint peer = socket.remote_endpoint(ec);
        if (ec) return;  // gone already
        ConnectionCaps::Slot slot = caps.admit(address_key_of(peer.address()));
        if (slot.verdict() == ConnectionCaps::Verdict::Drop) return;  // closed unanswered: refusals are capped too
        if (slot.verdict() == ConnectionCaps::Verdict::Refuse)
            spdlog::debug("tb serve: {} refused ({} connections open)", peer.address().to_string(), caps.served());
        socket.set_option(tcp::no_delay(true), ec);  // small answers: no Nagle delay
        serve_connection(std::move(socket), std::move(slot), tables, limits);
    }

    // Runs `loop` until stop(). A handler that throws (a bug; route()'s exceptions are answered
    // 500) costs its connection, not the server.
    static void serve(asio::io_context& loop) {
        for (;;) {
            try {
                loop.run();
                return;
            } catch (const std::exception& e) {
                spdlog::error("tb serve: {}", e.what());
            }
        }
    }
};

TablebaseServer::TablebaseServer(const TableSources& tables, const ServerLimits& limits)
    : tables_(tables), limits_(limits) {
    limits_.max_connections = fit_to_file_limit(std::max(limits_.max_connections, 1));
    limits_.max_per_address = std::max(limits_.max_per_address, 1);
    impl_ = std::make_unique<Impl>(tables_, limits_);
}

TablebaseServer::~TablebaseServer() { stop(); }

bool TablebaseServer::bind(const std::string& host, int port, std::string* error) {
    error_code ec;
    tcp::resolver resolver(impl_->first);
    const auto endpoints =
        resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    tcp::acceptor& acceptor = impl_->acceptor;
    for (const auto& entry : endpoints) {
        acceptor.close(ec);
        // SO_REUSEADDR only: with SO_REUSEPORT a second server on the same port would start and
        // silently take part of the connections.
        acceptor.open(entry.endpoint().protocol(), ec);
        if (ec) continue;
        acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
        acceptor.bind(entry.endpoint(), ec);
        if (ec) continue;
        acceptor.listen(asio::socket_base::max_listen_connections, ec);
        if (ec) continue;
        port_ = acceptor.local_endpoint().port();
        return true;
    }
    acceptor.close(ec);
    if (error) *error = "cannot listen on " + host + ":" + std::to_string(port) + " (address in use or not local?)";
    return false;
}

void TablebaseServer::run(int threads) {
    Impl& m = *impl_;
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
    {
        std::lock_guard lock(m.mutex);
        if (m.stopped || !m.acceptor.is_open() || !m.loops.empty()) return;
        m.loops.push_back(&m.first);
        for (int i = 1; i < threads; ++i) {
            m.more.push_back(std::make_unique<asio::io_context>(1));
            m.loops.push_back(m.more.back().get());
            keep_running.push_back(asio::make_work_guard(*m.more.back()));  // no connection yet: wait
        }
    }
    m.accept();
    std::vector<std::thread> more;
    for (auto& loop : m.more) more.emplace_back([&loop] { Impl::serve(*loop); });
    Impl::serve(m.first);
    for (auto& t : more) t.join();
}

void TablebaseServer::start(int threads) {
    thread_ = std::thread([this, threads] { run(threads); });
}

void TablebaseServer::stop() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stopped = true;
        impl_->first.stop();
        for (auto& loop : impl_->more) loop->stop();
    }
    if (thread_.joinable()) thread_.join();
}

}  // namespace pythia::server
