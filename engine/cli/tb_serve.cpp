// `pythia tb serve [--dir D] [--syzygy S] [--bind HOST:PORT] [--threads N]`: the tables over
// HTTP, the lichess tablebase API at /standard and the explorer page at / (engine/server/README.md);
// Syzygy files answer what Pythia's tables do not hold.
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

namespace {

server::TablebaseServer* running = nullptr;

extern "C" void stop_on_signal(int) {
    if (running) running->stop();  // httplib's stop() only shuts the listening socket down
}

}  // namespace

int tb_serve_command(const Args& args) {
    std::string dir = default_tablebase_dir().string(), syzygy_dir, bind = "127.0.0.1:9000";
    int threads = 64;
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
        else
            throw UsageError("unknown argument '" + args[i] + "'");
    }
    const size_t colon = bind.rfind(':');
    if (colon == std::string::npos || colon == 0) throw UsageError("--bind wants HOST:PORT, not '" + bind + "'");
    const std::string host = bind.substr(0, colon);
    const int port = parse_number("the port of --bind", bind.substr(colon + 1), 0, 65535);

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

    server::TablebaseServer server({tables, syzygy});
    std::string error;
    if (!server.bind(host, port, &error)) {
        spdlog::error("tb serve: {}", error);
        return EXIT_FAILED;
    }
    running = &server;
    std::signal(SIGINT, stop_on_signal);
    std::signal(SIGTERM, stop_on_signal);
    const std::string url = "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                            std::to_string(server.port()) + "/";
    // The one line a person needs, on stderr like every message (stdout is kept for UCI).
    spdlog::info("tb serve: the explorer at {} and the lichess API at {}standard?fen=... ({} threads; Ctrl-C stops)",
                 url, url, threads);
    server.run(threads);
    running = nullptr;
    spdlog::info("tb serve: stopped");
    return EXIT_OK;
}

}  // namespace pythia::cli
