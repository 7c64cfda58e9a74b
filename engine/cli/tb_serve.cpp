// `pythia tb serve [--dir D] [--syzygy S] [--bind HOST:PORT] [--threads N] [--max-connections N]
// [--max-per-address N] [--request-timeout S] [--idle-timeout S]`: the tables over HTTP, the
// lichess tablebase API at /standard and the explorer page at / (engine/server/README.md);
// Syzygy files answer what Pythia's tables do not hold.
#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>

#include "engine/cli/command.h"
#include "engine/core/data_paths.h"
#include "engine/server/tablebase_server.h"
#include "tablebase/probe/syzygy.h"
#include "tablebase/probe/tablebases.h"

namespace pythia::cli {

int tb_serve_command(const Args& args) {
    std::string dir = default_tablebase_dir().string(), syzygy_dir, bind = "127.0.0.1:9000";
    // Threads carry the connections and answer the requests (microseconds each); more than the
    // cores, so that a probe waiting for the disk (a table's first probe opens and checks it)
    // holds one of several.
    int threads = std::max(4, 2 * int(std::thread::hardware_concurrency()));
    server::ServerLimits limits;
    for (size_t i = 0; i < args.size(); ++i) {
        auto value = [&](const char* what) {
            if (++i == args.size()) throw UsageError(args[i - 1] + " needs " + what);
            return args[i];
        };
        if (args[i] == "--dir")
            dir = value("a folder");
        else if (args[i] == "--syzygy")
            syzygy_dir = value("a folder");
        else if (args[i] == "--bind")
            bind = value("HOST:PORT");
        else if (args[i] == "--threads")
            threads = parse_number("--threads", value("a number"), 1, 1024);
        else if (args[i] == "--max-connections")
            limits.max_connections = parse_number("--max-connections", value("a number"), 1, 1'000'000);
        else if (args[i] == "--max-per-address")
            limits.max_per_address = parse_number("--max-per-address", value("a number"), 1, 1'000'000);
        else if (args[i] == "--request-timeout")
            limits.request_deadline =
                std::chrono::seconds(parse_number("--request-timeout", value("seconds"), 1, 3600));
        else if (args[i] == "--idle-timeout")
            limits.idle_timeout = std::chrono::seconds(parse_number("--idle-timeout", value("seconds"), 1, 3600));
        else
            throw UsageError("unknown argument '" + args[i] + "'");
    }
    const size_t colon = bind.rfind(':');
    if (colon == std::string::npos || colon == 0) throw UsageError("--bind wants HOST:PORT, not '" + bind + "'");
    std::string host = bind.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    const int port = parse_number("the port of --bind", bind.substr(colon + 1), 0, 65535);

    // Ctrl-C and SIGTERM are taken by a thread of their own (sigwait), which stops the server:
    // nothing runs inside a signal handler. Blocked before any thread starts (the tables' and
    // the server's), so that every thread inherits the mask; and no longer ignored, as they are
    // in a job started in the background by a shell.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);

    tb::Tablebases tables;
    for (const std::string& message : tables.set_paths(dir)) spdlog::info("tb serve: {}", message);
    tables.build_checkpoints_at_open(true);  // a server probes DTM often: worth the time at open
    tb::SyzygyTables* syzygy = nullptr;
    if (!syzygy_dir.empty()) {
        syzygy = &tb::SyzygyTables::instance();
        for (const std::string& message : syzygy->set_paths(syzygy_dir)) spdlog::info("tb serve: {}", message);
    }
    if (tables.num_tables() == 0 && (!syzygy || syzygy->max_pieces() == 0))
        spdlog::warn("tb serve: no tables in {}: every answer will be null", dir);

    server::TablebaseServer server({tables, syzygy}, limits);
    std::string error;
    if (!server.bind(host, port, &error)) {
        spdlog::error("tb serve: {}", error);
        return EXIT_FAILED;
    }
    std::thread stopper([&] {
        int signal = 0;
        sigwait(&stop_signals, &signal);
        server.stop();
    });

    const std::string url = "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                            std::to_string(server.port()) + "/";
    // The one line a person needs, on stderr like every message (stdout is kept for UCI).
    spdlog::info("tb serve: the explorer at {} and the lichess API at {}standard?fen=... ({} threads; Ctrl-C stops)",
                 url, url, threads);
    const server::ServerLimits& in_force = server.limits();
    spdlog::info(
        "tb serve: at most {} connections, {} from one address; a request must arrive whole within {} s, an idle "
        "connection is closed after {} s",
        in_force.max_connections, in_force.max_per_address, in_force.request_deadline.count() / 1000,
        in_force.idle_timeout.count() / 1000);
    server.run(threads);
    pthread_kill(stopper.native_handle(), SIGTERM);  // run() ended on its own: the stopper waits still
    stopper.join();
    spdlog::info("tb serve: stopped");
    return EXIT_OK;
}

}  // namespace pythia::cli
