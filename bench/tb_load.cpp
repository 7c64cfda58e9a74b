// tb-load: a load test of `pythia tb serve` on loopback. Starts the server (the given binary,
// over the given tables, on a free port), then C clients, each a thread with one kept-alive
// connection, send N requests of random legal positions of the tables' materials between them.
// Prints requests/s, latency percentiles, errors, the server's CPU time per request, and its
// memory (RSS) after start, after the first tenth of the requests and at the end.
//
//   tb-load [--pythia B] [--baseline B] [--dir D] [--clients C] [--requests N] [--min-pieces J]
//           [--max-pieces K] [--threads T] [--baseline-threads T] [--seed S] [--positions P]
//           [--port P] [--warmup W] [--rate R] [--slow N] [--slow-addresses A]
//           [--slow-interval S] [--rounds K]
// --port: drive a server already running on that loopback port instead (no memory figures).
// --rate R: open loop, R requests/s in all: request i is due at start + i/R, and its latency is
// counted from that moment, so a reply that keeps its client waiting also delays (and is charged
// to) the requests queued behind it. Without it each client sends its next request as soon as
// the last one is answered (closed loop): that measures the most the server can take, and its
// latencies are then mostly queueing (mean = clients / throughput, by Little's law).
// --warmup W: W requests first, not measured (every table is opened and checked on its first
// probe: a one-off cost that a long-running server pays once).
// --slow N: meanwhile N slow-header connections are held open, as an attacker would: each sends
// a request line, then one header line every S seconds (default 2) and never ends its request;
// one the server closes is opened again at once. They come from A loopback addresses
// (127.0.1.1 ..., default 16), the clients from 127.0.0.1, so that a per-address cap does not
// simply refuse them.
// --baseline B: the same run against binary B first, then B's figures and the first's side by
// side. --threads T is passed to the server under test only if given (else its default);
// the baseline gets --baseline-threads (default C + N + 8: a server that holds a thread per
// open connection needs that many).
// --rounds K: K runs of each binary, alternating (baseline, binary, baseline, ...), and the
// medians of their requests/s and p99: on a shared machine the load of other jobs moves from
// one run to the next.
#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
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
    std::string pythia = "build/release/pythia", baseline, dir = "tablebases";
    int clients = 64, threads = 0, baseline_threads = 0, min_pieces = 3, max_pieces = 4, positions = 20000;
    int port = 0;     // a server already running there (its memory is then not reported)
    long warmup = 0;  // requests before the measured ones (the server opens its tables on first use)
    long requests = 100000;
    double rate = 0;  // requests per second in all (open loop); 0: closed loop
    int slow = 0, slow_addresses = 16;
    double slow_interval = 2.0;
    int rounds = 1;
    uint64_t seed = 1;
};

struct Result {
    std::string binary;
    int threads = 0;  // passed to the server; 0: its default
    long requests = 0, errors = 0, unknown = 0;
    double seconds = 0, p50 = 0, p90 = 0, p99 = 0, worst = 0;
    long rss_start = -1, rss_tenth = -1, rss_end = -1;
    double cpu = -1;  // the server's CPU seconds over the measured requests
    // The slow connections: opened in all, closed by the server with 408, with 503, or without
    // an answer; open on average over the measured time.
    long slow_opened = 0, slow_408 = 0, slow_503 = 0, slow_closed = 0;
    double slow_open_mean = 0;
};

// The CPU seconds (user and system) the process has used so far.
double cpu_seconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = stat.rfind(')');  // after the command name, which may hold spaces
    if (close == std::string::npos) return -1;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {
        if (i == 14) utime = std::stoull(f);
        if (i == 15) stime = std::stoull(f);
    }
    return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

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

// N connections that never finish their request (a header line every interval), each opened
// again when the server closes it; on a thread of their own until stop.
class SlowClients {
public:
    SlowClients(const Options& o, int port) : o_(o), port_(port), fds_(size_t(o.slow), -1), sent_(size_t(o.slow)) {}
    ~SlowClients() {
        stop();
        for (int fd : fds_)
            if (fd >= 0) close(fd);
    }
    void start() {
        if (o_.slow > 0) thread_ = std::thread([this] { loop(); });
    }
    void stop() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }
    // From now on the number open is averaged.
    void measure() { measuring_ = true; }
    void add_to(Result& r) const {
        r.slow_opened = opened_;
        r.slow_408 = got_408_;
        r.slow_503 = got_503_;
        r.slow_closed = closed_;
        r.slow_open_mean = samples_ ? double(open_sum_) / double(samples_) : 0;
    }
    // Waits until every slow connection is open (or a few seconds have passed).
    void wait_open() const {
        for (int i = 0; i < 500 && open_ < o_.slow; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }

private:
    int connect_from(int i) {
        const int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) return -1;
        sockaddr_in from{}, to{};
        from.sin_family = to.sin_family = AF_INET;
        from.sin_addr.s_addr = htonl((127u << 24) | (1u << 8) | unsigned(1 + i % std::max(1, o_.slow_addresses)));
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        to.sin_port = htons(uint16_t(port_));
        if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
            connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
            close(fd);
            return -1;
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        ++opened_;
        return fd;
    }

    void drop(size_t i, const char* answer, ssize_t n) {
        if (n >= 12 && std::strncmp(answer + 9, "408", 3) == 0)
            ++got_408_;
        else if (n >= 12 && std::strncmp(answer + 9, "503", 3) == 0)
            ++got_503_;
        else
            ++closed_;
        close(fds_[i]);
        fds_[i] = -1;
    }

    void loop() {
        const auto begin = Clock::now();
        const auto interval = std::chrono::duration<double>(o_.slow_interval);
        std::vector<Clock::time_point> due(fds_.size());
        for (size_t i = 0; i < fds_.size(); ++i)  // spread over the interval
            due[i] = begin + std::chrono::duration_cast<Clock::duration>(interval * double(i) / double(fds_.size()));
        const std::string line = "GET /standard?fen=8/8/8/8/8/8/1k6/R6K_w_-_-_0_1 HTTP/1.1\r\nHost: x\r\n";
        while (!stop_) {
            int open = 0;
            const auto now = Clock::now();
            for (size_t i = 0; i < fds_.size(); ++i) {
                if (fds_[i] < 0) {
                    fds_[i] = connect_from(int(i));
                    sent_[i] = 0;
                    if (fds_[i] < 0) continue;
                    due[i] = now;
                }
                char answer[64];
                const ssize_t n = recv(fds_[i], answer, sizeof answer, 0);
                if (n > 0 || n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
                    drop(i, answer, n);  // answered (408, 503) or closed: opened again next round
                    continue;
                }
                if (now >= due[i]) {
                    const std::string piece =
                        sent_[i]++ == 0 ? line : "X-Slow-" + std::to_string(sent_[i]) + ": still here\r\n";
                    if (send(fds_[i], piece.data(), piece.size(), MSG_NOSIGNAL) < 0) {
                        drop(i, "", 0);
                        continue;
                    }
                    due[i] += std::chrono::duration_cast<Clock::duration>(interval);
                }
                ++open;
            }
            open_ = open;
            if (measuring_) open_sum_ += open, ++samples_;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }

    const Options& o_;
    const int port_;
    std::vector<int> fds_;
    std::vector<long> sent_;
    std::thread thread_;
    std::atomic<bool> stop_{false}, measuring_{false};
    std::atomic<int> open_{0};
    long opened_ = 0, got_408_ = 0, got_503_ = 0, closed_ = 0, open_sum_ = 0, samples_ = 0;
};

// One measured run against `binary` (or the server on --port).
Result run(const Options& o, const std::string& binary, int threads, const std::vector<std::string>& targets) {
    Result r;
    r.binary = binary;
    r.threads = threads;
    const int port = o.port ? o.port : free_port();
    const std::string bind = "127.0.0.1:" + std::to_string(port);
    std::vector<std::string> args = {binary, "tb", "serve", "--dir", o.dir, "--bind", bind};
    if (threads > 0) args.insert(args.end(), {"--threads", std::to_string(threads)});
    std::vector<char*> argv_server;
    for (auto& s : args) argv_server.push_back(s.data());
    argv_server.push_back(nullptr);
    pid_t server = 0;
    if (!o.port && posix_spawn(&server, binary.c_str(), nullptr, nullptr, argv_server.data(), environ) != 0) {
        std::fprintf(stderr, "tb-load: cannot start %s\n", binary.c_str());
        std::exit(1);
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
        std::exit(1);
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
    }
    SlowClients slow(o, port);
    slow.start();
    slow.wait_open();
    slow.measure();
    r.rss_start = server ? rss_kib(server) : -1;
    const double cpu_start = server ? cpu_seconds(server) : -1;
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
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.rss_end = server ? rss_kib(server) : -1;
    if (server) r.cpu = cpu_seconds(server) - cpu_start;
    r.rss_tenth = rss_tenth;
    slow.stop();
    slow.add_to(r);
    if (server) {
        kill(server, SIGTERM);
        waitpid(server, nullptr, 0);
    }

    std::vector<double> all;
    for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    r.requests = long(all.size());
    r.errors = errors;
    r.unknown = unknown;
    r.p50 = percentile(all, 0.50);
    r.p90 = percentile(all, 0.90);
    r.p99 = percentile(all, 0.99);
    r.worst = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
    return r;
}

void print(const Options& o, const Result& r) {
    const std::string threads = r.threads > 0 ? " --threads " + std::to_string(r.threads) : "";
    std::printf(
        "%s tb serve%s: %ld requests from %d clients (kept-alive connections) in %.2f s: %.0f requests/s (%s)\n",
        r.binary.c_str(), threads.c_str(), r.requests, o.clients, r.seconds, double(r.requests) / r.seconds,
        o.rate > 0 ? ("open loop, " + std::to_string(long(o.rate)) + " requests/s offered").c_str()
                   : "closed loop: as fast as the server answers");
    std::printf("  latency: median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.1f ms\n", r.p50, r.p90, r.p99, r.worst);
    if (r.cpu >= 0)
        std::printf("  server CPU: %.1f s, %.1f us a request\n", r.cpu, 1e6 * r.cpu / double(std::max(r.requests, 1L)));
    std::printf("  errors: %ld (no answer, not 200, or not the JSON); answers without a value (unknown): %ld\n",
                r.errors, r.unknown);
    if (o.slow > 0)
        std::printf(
            "  slow-header connections (%d wanted, a header line every %.1f s, from %d addresses): %.0f open on "
            "average; %ld opened, %ld answered 408, %ld answered 503, %ld closed without an answer\n",
            o.slow, o.slow_interval, o.slow_addresses, r.slow_open_mean, r.slow_opened, r.slow_408, r.slow_503,
            r.slow_closed);
    std::printf(
        "  server RSS: %.1f MiB before the measured requests, %.1f MiB after a tenth of them, %.1f MiB at the end\n",
        double(r.rss_start) / 1024, double(r.rss_tenth) / 1024, double(r.rss_end) / 1024);
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
        else if (a == "--baseline")
            o.baseline = next();
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
        else if (a == "--baseline-threads")
            o.baseline_threads = std::stoi(next());
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
        else if (a == "--slow")
            o.slow = std::stoi(next());
        else if (a == "--slow-addresses")
            o.slow_addresses = std::stoi(next());
        else if (a == "--slow-interval")
            o.slow_interval = std::stod(next());
        else if (a == "--rounds")
            o.rounds = std::max(1, std::stoi(next()));
        else {
            std::fprintf(stderr,
                         "usage: tb-load [--pythia B] [--baseline B] [--dir D] [--clients C] [--requests N] "
                         "[--min-pieces J] [--max-pieces K] [--threads T] [--baseline-threads T] [--seed S] "
                         "[--positions P] [--port P] [--warmup W] [--rate R] [--slow N] [--slow-addresses A] "
                         "[--slow-interval S] [--rounds K]\n");
            return 2;
        }
    }
    if (o.baseline_threads == 0) o.baseline_threads = o.clients + o.slow + 8;
    const std::vector<std::string> targets = positions(o);
    if (targets.empty()) {
        std::fprintf(stderr, "tb-load: no tables of %d-%d pieces in %s\n", o.min_pieces, o.max_pieces, o.dir.c_str());
        return 1;
    }
    if (o.warmup > 0) std::printf("%ld warm-up requests first, not measured\n", o.warmup);
    std::vector<Result> base, tested;
    long errors = 0;
    for (int round = 0; round < o.rounds; ++round) {
        if (!o.baseline.empty() && !o.port) {
            base.push_back(run(o, o.baseline, o.baseline_threads, targets));
            print(o, base.back());
            errors += base.back().errors;
        }
        tested.push_back(run(o, o.pythia, o.threads, targets));
        print(o, tested.back());
        errors += tested.back().errors;
    }
    auto median = [](const std::vector<Result>& rs, auto field) {
        std::vector<double> v;
        for (const Result& r : rs) v.push_back(field(r));
        return percentile(v, 0.5);
    };
    auto rate = [](const Result& r) { return double(r.requests) / r.seconds; };
    auto p99 = [](const Result& r) { return r.p99; };
    auto cpu = [](const Result& r) { return 1e6 * r.cpu / double(std::max(r.requests, 1L)); };
    if (o.rounds > 1)
        std::printf("median of %d rounds: %s %.0f requests/s, p99 %.2f ms, server CPU %.1f us a request\n", o.rounds,
                    o.pythia.c_str(), median(tested, rate), median(tested, p99), median(tested, cpu));
    if (!base.empty())
        std::printf(
            "%s%s %.0f requests/s, p99 %.2f ms, server CPU %.1f us a request; %.2f times the baseline's requests/s\n",
            o.rounds > 1 ? "median of the baseline's rounds: " : "the baseline: ", o.baseline.c_str(),
            median(base, rate), median(base, p99), median(base, cpu), median(tested, rate) / median(base, rate));
    return errors == 0 ? 0 : 1;
}
