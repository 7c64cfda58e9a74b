#include "engine/server/tablebase_client.h"

#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace pythia::server {

namespace {

// What the request thread hands back; shared, since the thread may outlive the caller's wait.
struct Exchange {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    int status = 0;
    std::string body, error;
};

}  // namespace

RemoteAnswer ask_tablebase_server(const std::string& url, const Position& pos, std::chrono::milliseconds budget) {
    const auto start = std::chrono::steady_clock::now();
    RemoteAnswer answer;
    // http://host:port/prefix -> "http://host:port" and "/prefix".
    const size_t scheme_end = url.find("://");
    const size_t path_start = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
    const std::string origin = url.substr(0, path_start);
    std::string prefix = path_start == std::string::npos ? "" : url.substr(path_start);
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    std::string fen = pos.fen();
    std::replace(fen.begin(), fen.end(), ' ', '_');
    const std::string target = prefix + "/standard?fen=" + fen;

    auto exchange = std::make_shared<Exchange>();
    std::thread([exchange, origin, target, budget] {
        std::string body, error;
        int status = 0;
        try {
            httplib::Client client(origin);
            if (!client.is_valid()) {
                error = "not a server URL";
            } else {
                const auto us = std::chrono::duration_cast<std::chrono::microseconds>(budget).count();
                client.set_tcp_nodelay(true);
                client.set_connection_timeout(0, us);
                client.set_read_timeout(0, us);
                client.set_write_timeout(0, us);
                if (auto res = client.Get(target)) {
                    status = res->status;
                    body = std::move(res->body);
                } else {
                    error = "no connection or no answer (" + httplib::to_string(res.error()) + ")";
                }
            }
        } catch (const std::exception& e) {
            error = e.what();
        }
        std::lock_guard lock(exchange->mutex);
        exchange->done = true;
        exchange->status = status;
        exchange->body = std::move(body);
        exchange->error = std::move(error);
        exchange->done_cv.notify_all();
    }).detach();

    std::unique_lock lock(exchange->mutex);
    const bool in_time = exchange->done_cv.wait_for(lock, budget, [&] { return exchange->done; });
    answer.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (!in_time) {
        answer.error = "no answer within " + std::to_string(budget.count()) + " ms";
    } else if (!exchange->error.empty()) {
        answer.error = exchange->error;
    } else if (exchange->status != 200) {
        answer.error = "HTTP status " + std::to_string(exchange->status);
    } else {
        std::string why;
        answer.response = parse_lichess_json(exchange->body, pos, &why);
        if (!answer.response) answer.error = "unreadable answer: " + why;
    }
    return answer;
}

}  // namespace pythia::server
