// tb-load: a load test of `pythia tb serve` on loopback. Starts the server (the given binary,
// over the given tables, on a free port), then C clients, each a thread with one kept-alive
// connection, send N requests of random legal positions of the tables' materials between them.
// Prints requests/s, latency percentiles, errors, and the server's memory (RSS) after start,
// after the first tenth of the requests and at the end.
//
//   tb-load [--pythia B] [--dir D] [--clients C] [--requests N] [--min-pieces J] [--max-pieces K]
//           [--threads T] [--seed S] [--positions P] [--port P] [--warmup W] [--rate R]
// --port: drive a server already running on that loopback port instead (no memory figures).
// --rate R: open loop, R requests/s in all: request i is due at start + i/R, and its latency is
// counted from that moment, so a reply that keeps its client waiting also delays (and is charged
// to) the requests queued behind it. Without it each client sends its next request as soon as
// the last one is answered (closed loop): that measures the most the server can take, and its
// latencies are then mostly queueing (mean = clients / throughput, by Little's law).
// --warmup W: W requests first, not measured (every table is opened and checked on its first
// probe: a one-off cost that a long-running server pays once).
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/random_position.h"
#include "tablebase/format/material.h"
#include "tablebase/probe/tablebases.h"

extern char** environ;

using namespace pythia;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::string pythia = "build/release/pythia", dir = "tablebases";
    int clients = 64, threads = 0, min_pieces = 3, max_pieces = 4, positions = 20000;
    int port = 0;     // a server already running there (its memory is then not reported)
    long warmup = 0;  // requests before the measured ones (the server opens its tables on first use)
    long requests = 100000;
    double rate = 0;  // requests per second in all (open loop); 0: closed loop
    uint64_t seed = 1;
};

long rss_kib(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

// A loopback port free now: bound by a socket of our own, then closed. (Not an httplib::Server:
// its destructor leaves the socket listening, and with SO_REUSEPORT the kernel would hand it
// part of the connections meant for the server.)
int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

std::string url_fen(std::string fen) {
    std::replace(fen.begin(), fen.end(), ' ', '_');
    return fen;
}

// Random legal positions of the tables in `dir` with J..K pieces, either side to move.
std::vector<std::string> positions(const Options& o) {
    tb::Tablebases tables;
    tables.set_paths(o.dir);
    std::vector<tb::Material> ms;
    for (const tb::Material& m : tables.materials())
        if (m.total() >= o.min_pieces && m.total() <= o.max_pieces) ms.push_back(m);
    std::mt19937_64 rng(o.seed);
    std::vector<std::string> out;
    while (!ms.empty() && int(out.size()) < o.positions) {
        const tb::Material m = ms[rng() % ms.size()];
        std::string pieces;
        for (Color c : {WHITE, BLACK})
            for (int pt = PAWN; pt <= KING; ++pt)
                pieces += std::string(m.count(c, PieceType(pt)), c == WHITE ? " PNBRQK"[pt] : " pnbrqk"[pt]);
        if (auto p = random_position(rng, pieces, rng() % 2 ? WHITE : BLACK))
            out.push_back("/standard?fen=" + url_fen(p->fen()));
    }
    std::printf("%zu positions of %zu tables with %d-%d pieces from %s\n", out.size(), ms.size(), o.min_pieces,
                o.max_pieces, o.dir.c_str());
    return out;
}

double percentile(std::vector<double>& v, double p) {
    if (v.empty()) return 0;
    const size_t k = std::min(v.size() - 1, size_t(p * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "tb-load: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--pythia")
            o.pythia = next();
        else if (a == "--dir")
            o.dir = next();
        else if (a == "--clients")
            o.clients = std::stoi(next());
        else if (a == "--requests")
            o.requests = std::stol(next());
        else if (a == "--min-pieces")
            o.min_pieces = std::stoi(next());
        else if (a == "--max-pieces")
            o.max_pieces = std::stoi(next());
        else if (a == "--threads")
            o.threads = std::stoi(next());
        else if (a == "--positions")
            o.positions = std::stoi(next());
        else if (a == "--seed")
            o.seed = std::stoull(next());
        else if (a == "--port")
            o.port = std::stoi(next());
        else if (a == "--warmup")
            o.warmup = std::stol(next());
        else if (a == "--rate")
            o.rate = std::stod(next());
        else {
            std::fprintf(
                stderr,
                "usage: tb-load [--pythia B] [--dir D] [--clients C] [--requests N] [--min-pieces J] "
                "[--max-pieces K] [--threads T] [--seed S] [--positions P] [--port P] [--warmup W] [--rate R]\n");
            return 2;
        }
    }
    if (o.threads == 0) o.threads = o.clients + 8;  // a connection holds a server thread while kept alive
    const std::vector<std::string> targets = positions(o);
    if (targets.empty()) {
        std::fprintf(stderr, "tb-load: no tables of %d-%d pieces in %s\n", o.min_pieces, o.max_pieces, o.dir.c_str());
        return 1;
    }

    // The server, a process of its own (or one already running on --port).
    const int port = o.port ? o.port : free_port();
    const std::string bind = "127.0.0.1:" + std::to_string(port), threads = std::to_string(o.threads);
    std::vector<std::string> args = {o.pythia, "tb", "serve", "--dir", o.dir, "--bind", bind, "--threads", threads};
    std::vector<char*> argv_server;
    for (auto& s : args) argv_server.push_back(s.data());
    argv_server.push_back(nullptr);
    pid_t server = 0;
    if (!o.port && posix_spawn(&server, o.pythia.c_str(), nullptr, nullptr, argv_server.data(), environ) != 0) {
        std::fprintf(stderr, "tb-load: cannot start %s\n", o.pythia.c_str());
        return 1;
    }
    httplib::Client probe("127.0.0.1", port);
    bool up = false;
    for (int i = 0; i < 500 && !up; ++i) {
        up = bool(probe.Get("/standard?fen=8/8/8/4k3/8/8/8/4K3_w_-_-_0_1"));
        if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!up) {
        std::fprintf(stderr, "tb-load: the server does not answer on %s\n", bind.c_str());
        if (server) kill(server, SIGTERM);
        return 1;
    }
    if (o.warmup > 0) {
        std::vector<std::thread> warm;
        std::atomic<long> k{0};
        for (int c = 0; c < std::min(o.clients, 8); ++c)
            warm.emplace_back([&] {
                httplib::Client client("127.0.0.1", port);
                client.set_keep_alive(true);
                for (long i; (i = k++) < o.warmup;) client.Get(targets[size_t(i) % targets.size()]);
            });
        for (auto& t : warm) t.join();
        std::printf("%ld warm-up requests first, not measured\n", o.warmup);
    }
    const long rss_start = server ? rss_kib(server) : -1;
    std::atomic<long> rss_tenth{-1};

    std::atomic<long> next{0}, errors{0}, unknown{0};
    std::vector<std::vector<double>> latencies(size_t(o.clients));
    const auto start = Clock::now();
    std::vector<std::thread> clients;
    for (int c = 0; c < o.clients; ++c)
        clients.emplace_back([&, c] {
            httplib::Client client("127.0.0.1", port);
            client.set_keep_alive(true);
            client.set_tcp_nodelay(true);
            client.set_connection_timeout(5);
            client.set_read_timeout(10);
            auto& lat = latencies[size_t(c)];
            for (long i; (i = next++) < o.requests;) {
                if (i == o.requests / 10 && server) rss_tenth = rss_kib(server);
                auto t0 = Clock::now();
                if (o.rate > 0) {
                    t0 = start +
                         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(double(i) / o.rate));
                    std::this_thread::sleep_until(t0);
                }
                auto res = client.Get(targets[size_t(i + o.warmup) % targets.size()]);
                lat.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
                if (!res || res->status != 200 || res->body.rfind("{\"dtz\":", 0) != 0) {
                    if (errors++ < 5)
                        std::fprintf(stderr, "tb-load: %s: %s\n",
                                     targets[size_t(i + o.warmup) % targets.size()].c_str(),
                                     res ? ("status " + std::to_string(res->status)).c_str()
                                         : httplib::to_string(res.error()).c_str());
                } else if (res->body.find("\"category\":\"unknown\",\"wdl\":null,\"moves\"") != std::string::npos)
                    ++unknown;
            }
        });
    for (auto& t : clients) t.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const long rss_end = server ? rss_kib(server) : -1;
    if (server) {
        kill(server, SIGTERM);
        waitpid(server, nullptr, 0);
    }

    std::vector<double> all;
    for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    const size_t n = all.size();
    const double p50 = percentile(all, 0.50), p90 = percentile(all, 0.90), p99 = percentile(all, 0.99),
                 worst = n ? *std::max_element(all.begin(), all.end()) : 0;
    std::printf(
        "%ld requests from %d clients (kept-alive connections) to `pythia tb serve --threads %d` in %.2f s: "
        "%.0f requests/s (%s)\n",
        long(n), o.clients, o.threads, seconds, double(n) / seconds,
        o.rate > 0 ? ("open loop, " + std::to_string(long(o.rate)) + " requests/s offered").c_str()
                   : "closed loop: as fast as the server answers");
    std::printf("latency: median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.1f ms\n", p50, p90, p99, worst);
    std::printf("errors: %ld (no answer, not 200, or not the JSON); answers without a value (unknown): %ld\n",
                errors.load(), unknown.load());
    std::printf(
        "server RSS: %.1f MiB before the measured requests, %.1f MiB after a tenth of them, %.1f MiB at the end\n",
        double(rss_start) / 1024, double(rss_tenth.load()) / 1024, double(rss_end) / 1024);
    return errors == 0 ? 0 : 1;
}
