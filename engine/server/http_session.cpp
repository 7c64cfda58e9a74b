#include "engine/server/http_session.h"

#include <spdlog/spdlog.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <optional>

namespace pythia::server {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// Bytes read ahead of the request being answered (pipelined requests wait there, in order).
constexpr size_t MAX_BUFFERED = 64 * 1024;
// After an answer that closes the connection, what the client still sends is read and thrown
// away for a moment: closing with unread bytes would reset the connection, and a reset can
// destroy our answer in the client's kernel before the client reads it.
constexpr auto LINGER = std::chrono::seconds(1);
constexpr size_t MAX_LINGER_BYTES = 64 * 1024;

std::string seconds_text(std::chrono::milliseconds t) {
    const long ms = long(t.count());
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

std::string refusal_message(const ConnectionCaps::Slot& slot, const ServerLimits& limits) {
    if (slot.reason() == ConnectionCaps::Reason::TooManyFromAddress)
        return "too many connections from your address (at most " + std::to_string(limits.max_per_address) +
               "); try again later";
    return "too many connections (at most " + std::to_string(limits.max_connections) + "); try again later";
}

class Session : public std::enable_shared_from_this<Session> {
public:
    Session(tcp::socket socket, ConnectionCaps::Slot slot, const TableSources& tables, const ServerLimits& limits)
        : socket_(std::move(socket)),
          timer_(socket_.get_executor()),
          buffer_(MAX_BUFFERED),
          slot_(std::move(slot)),
          tables_(tables),
          limits_(limits) {}

    asio::any_io_executor executor() { return socket_.get_executor(); }

    void start() {
        if (slot_.verdict() == ConnectionCaps::Verdict::Refuse) {
            // At once, without reading the request: a refused connection must cost next to nothing.
            answer(error_response(503, refusal_message(slot_, limits_)), true, 11, false);
            return;
        }
        wait_for_request();
    }

private:
    enum class Phase { Idle, Request, Write, Linger };

    // One timer per connection, for whatever it waits for now; an older expiry is ignored.
    void arm(Phase phase, std::chrono::steady_clock::duration after) {
        phase_ = phase;
        timer_.expires_after(after);
        timer_.async_wait([self = shared_from_this(), generation = ++generation_](error_code ec) {
            if (!ec && generation == self->generation_) self->on_deadline();
        });
    }

    void on_deadline() {
        if (!socket_.is_open()) return;
        if (phase_ != Phase::Request) return close_now();
        // The request is not whole in time: the pending read ends (operation_aborted) and its
        // handler in parse() answers 408.
        timed_out_ = true;
        error_code ignored;
        socket_.cancel(ignored);
    }

    // Between requests: no deadline yet, only the idle timeout. The deadline starts with the
    // request's first bytes.
    void wait_for_request() {
        if (buffer_.size() > 0) return read_request();  // pipelined: the next request is here already
        if (buffer_.capacity() > 4096) buffer_.shrink_to_fit();
        arm(Phase::Idle, limits_.idle_timeout);
        socket_.async_read_some(buffer_.prepare(2048), [self = shared_from_this()](error_code ec, size_t n) {
            if (!self->socket_.is_open()) return;
            if (ec) return self->close_now();  // the client closed or reset it, or it idled too long
            self->buffer_.commit(n);
            self->read_request();
        });
    }

    void read_request() {
        parser_.emplace();
        parser_->eager(true);  // the body too, not only the header, in one put()
        parser_->header_limit(MAX_HEADER_BYTES);
        parser_->body_limit(MAX_BODY_BYTES);
        header_bytes_ = 0;
        timed_out_ = false;
        arm(Phase::Request, limits_.request_deadline);
        parse();
    }

    // What the buffer holds, through the parser; then more bytes, until the request is whole.
    // (A loop of our own rather than http::async_read: Beast 1.74's parser consumes the request
    // line and each whole header field as it comes and applies header_limit to what is left,
    // so headers sent in pieces would never reach the limit.)
    void parse() {
        while (buffer_.size() > 0) {
            error_code ec;
            const size_t used = parser_->put(buffer_.data(), ec);
            buffer_.consume(used);
            if (!parser_->is_header_done()) header_bytes_ += used;
            if (parser_->is_done()) return answer_request();
            if (ec && ec != http::error::need_more) return refuse_request(ec);
            if (!parser_->is_header_done() && header_bytes_ + buffer_.size() > MAX_HEADER_BYTES)
                return refuse_request(http::error::header_limit);
            if (ec == http::error::need_more || used == 0) break;
        }
        if (buffer_.size() >= MAX_BUFFERED) return refuse_request(http::error::buffer_overflow);
        const size_t room = std::min<size_t>(16384, MAX_BUFFERED - buffer_.size());
        socket_.async_read_some(buffer_.prepare(room), [self = shared_from_this()](error_code ec, size_t n) {
            if (!self->socket_.is_open()) return;
            self->buffer_.commit(n);
            if (!ec) return self->parse();
            if (ec == asio::error::operation_aborted && self->timed_out_)
                return self->fail(408, "request not complete within " + seconds_text(self->limits_.request_deadline));
            if (ec == asio::error::eof) return self->refuse_request(http::error::partial_message);
            self->close_now();  // reset, or another error of the network
        });
    }

    void refuse_request(error_code ec) {
        if (ec == http::error::partial_message) return fail(400, "incomplete request: the client closed its side");
        if (ec == http::error::header_limit) {
            if (header_bytes_ == 0) return fail(target_too_long());  // the request line alone is too long
            return fail(431, "request header fields too long (at most " + std::to_string(MAX_HEADER_BYTES) + " bytes)");
        }
        if (ec == http::error::body_limit)
            return fail(413, "request body too long (at most " + std::to_string(MAX_BODY_BYTES) + " bytes)");
        fail(400, "malformed request: " + ec.message());
    }

    void answer_request() {
        const auto& req = parser_->get();  // HTTP/1.0 or 1.1: the parser refuses other versions
        const bool head = req.method() == http::verb::head;
        const auto method = req.method_string();
        const auto target = req.target();
        bool close = !req.keep_alive();
        HttpResponse r;
        try {
            r = route(tables_, std::string_view(method.data(), method.size()),
                      std::string_view(target.data(), target.size()));
        } catch (const std::exception& e) {
            spdlog::error("tb serve: internal error: {}", e.what());
            r = error_response(500, std::string("internal error: ") + e.what());
            close = true;
        }
        answer(std::move(r), close, req.version(), head);
    }

    // An error of the HTTP layer: answered, then the connection is closed.
    void fail(int status, const std::string& message) { fail(error_response(status, message)); }
    void fail(HttpResponse r) { answer(std::move(r), true, 11, false); }

    void answer(HttpResponse r, bool close, unsigned version, bool head) {
        parser_.reset();
        response_ = {};
        response_.version(version);
        response_.result(unsigned(r.status));
        response_.set(http::field::content_type, r.content_type);
        if (r.allow_any_origin) response_.set(http::field::access_control_allow_origin, "*");
        if (r.status == 503) response_.set(http::field::retry_after, "1");
        response_.keep_alive(!close);
        if (head) {
            response_.content_length(r.body.size());  // what a GET would get, without the body
        } else {
            response_.body() = std::move(r.body);
            response_.prepare_payload();
        }
        closing_ = close;
        arm(Phase::Write, limits_.request_deadline);
        http::async_write(socket_, response_, [self = shared_from_this()](error_code ec, size_t) {
            if (!self->socket_.is_open()) return;
            if (ec) return self->close_now();
            if (self->closing_) return self->linger();
            self->wait_for_request();
        });
    }

    void linger() {
        error_code ignored;
        socket_.shutdown(tcp::socket::shutdown_send, ignored);
        buffer_.consume(buffer_.size());
        arm(Phase::Linger, LINGER);
        drain();
    }

    void drain() {
        socket_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](error_code ec, size_t n) {
            if (!self->socket_.is_open()) return;
            self->lingered_ += n;
            if (ec || self->lingered_ > MAX_LINGER_BYTES) return self->close_now();
            self->drain();
        });
    }

    void close_now() {
        error_code ignored;
        timer_.cancel();
        socket_.close(ignored);
        slot_.release();
    }

    tcp::socket socket_;
    asio::steady_timer timer_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    http::response<http::string_body> response_;
    ConnectionCaps::Slot slot_;
    const TableSources tables_;
    const ServerLimits& limits_;
    Phase phase_ = Phase::Idle;
    unsigned generation_ = 0;
    bool timed_out_ = false, closing_ = false;
    size_t header_bytes_ = 0;  // of the request being read, consumed by the parser
    size_t lingered_ = 0;
};

}  // namespace

void serve_connection(tcp::socket socket, ConnectionCaps::Slot slot, const TableSources& tables,
                      const ServerLimits& limits) {
    auto session = std::make_shared<Session>(std::move(socket), std::move(slot), tables, limits);
    // Started on the connection's event loop, like every later handler of it.
    asio::dispatch(session->executor(), [session] { session->start(); });
}

}  // namespace pythia::server
