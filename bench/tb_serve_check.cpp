// tb-serve-check: whether `pythia tb serve --syzygy S` answers positions exactly as
// `pythia tb probe --json --syzygy S` prints them (the goal: over Pythia's tables plus
// Syzygy files, every position of the Syzygy tables the same). Starts the server on a free
// loopback port and J workers, each with its own `tb probe --json` process reading FENs on its
// stdin and a kept-alive connection to the server; every position's answer from both must be
// the same bytes (tb probe's line less its leading "fen" field). Prints per table the positions
// compared and the mismatches, the first few of them in full, and the rate.
//
//   tb-serve-check --syzygy S [--pythia B] [--dir D] [--tables M,...] [--sample N | --all [--stride K]]
//                  [--jobs J] [--seed X]
// --tables: default every table of the most pieces among S's WDL files. --sample N: N random
// legal positions per table and side to move (default 1000); --all: every legal placement of the
// table's pieces, both sides to move (every K-th placement of a fixed order with --stride K).
// Exit status 1 if any position differs or is not answered.
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/movegen.h"
#include "engine/core/random_position.h"
#include "tests/uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    std::string pythia = "build/release/pythia", dir = "tablebases", syzygy;
    std::vector<std::string> tables;
    long sample = 1000;
    bool all = false;
    uint64_t stride = 1, seed = 1;
    int jobs = 2;
};

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr,
                 "tb-serve-check: %s\nusage: tb-serve-check --syzygy S [--pythia B] [--dir D] [--tables M,...] "
                 "[--sample N | --all [--stride K]] [--jobs J] [--seed X]\n",
                 why.c_str());
    std::exit(2);
}

// "KRPvKR" as FEN letters, White's first: "KRPkr".
std::string fen_letters(const std::string& table) {
    const size_t v = table.find('v');
    std::string out = table.substr(0, v);
    for (char c : table.substr(v + 1)) out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The tables of the most pieces among the WDL files of the Syzygy folders.
std::vector<std::string> largest_tables(const std::string& folders) {
    std::vector<std::string> names;
    std::istringstream in(folders);
    for (std::string folder; std::getline(in, folder, ':');) {
        std::error_code ec;
        for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
            if (it->path().extension() == ".rtbw") names.push_back(it->path().stem().string());
    }
    const auto pieces = [](const std::string& n) { return n.size() - 1; };
    size_t most = 0;
    for (const std::string& n : names) most = std::max(most, pieces(n));
    std::vector<std::string> out;
    for (const std::string& n : names)
        if (pieces(n) == most && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    std::sort(out.begin(), out.end());
    return out;
}

// The legal positions of placement `index` of the pieces, with either side to move: the index's
// base-64 digits are the pieces' squares (the first piece's the lowest digit). Nothing where
// two pieces share a square, a pawn stands on its first or last rank, or identical pieces come
// in falling order (each set of identical pieces is placed once).
std::vector<std::string> placement_positions(const std::string& letters, uint64_t index) {
    int sq[8];
    for (size_t i = 0; i < letters.size(); ++i) {
        sq[i] = int(index % 64);
        index /= 64;
        const char p = letters[i];
        if ((p == 'P' || p == 'p') && (sq[i] < 8 || sq[i] >= 56)) return {};
        for (size_t j = 0; j < i; ++j)
            if (sq[j] == sq[i] || (letters[j] == p && sq[j] > sq[i])) return {};
    }
    char squares[64] = {};
    for (size_t i = 0; i < letters.size(); ++i) squares[sq[i]] = letters[i];
    const std::string placement = placement_fen(squares);
    std::vector<std::string> out;
    for (const char* side : {" w - - 0 1", " b - - 0 1"}) {
        Position pos;
        if (pos.set_fen(placement + side)) out.push_back(pos.fen());
    }
    return out;
}

std::vector<std::string> sample_positions(const std::string& letters, long count, std::mt19937_64& rng) {
    std::vector<std::string> out;
    for (Color stm : {WHITE, BLACK})
        for (long i = 0; i < count; ++i)
            if (auto p = random_position(rng, letters, stm)) out.push_back(p->fen());
    return out;
}

struct Mismatch {
    std::string fen, probe, served;
};

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--pythia")
            o.pythia = value();
        else if (a == "--dir")
            o.dir = value();
        else if (a == "--syzygy")
            o.syzygy = value();
        else if (a == "--tables") {
            std::istringstream in(value());
            for (std::string t; std::getline(in, t, ',');)
                if (!t.empty()) o.tables.push_back(t);
        } else if (a == "--sample")
            o.sample = std::stol(value());
        else if (a == "--all")
            o.all = true;
        else if (a == "--stride")
            o.stride = std::max<uint64_t>(1, std::stoull(value()));
        else if (a == "--jobs")
            o.jobs = std::max(1, std::stoi(value()));
        else if (a == "--seed")
            o.seed = std::stoull(value());
        else
            usage("unknown argument '" + a + "'");
    }
    if (o.syzygy.empty()) usage("--syzygy is needed");
    if (o.tables.empty()) o.tables = largest_tables(o.syzygy);
    if (o.tables.empty()) usage("no Syzygy WDL files in " + o.syzygy);

    // The server, on a port it picks: its URL comes on its stderr.
    const fs::path log = fs::temp_directory_path() / ("tb-serve-check-" + std::to_string(::getpid()));
    EngineProcess server(o.pythia,
                         {"tb", "serve", "--dir", o.dir, "--syzygy", o.syzygy, "--bind", "127.0.0.1:0", "--threads",
                          std::to_string(2 * o.jobs)},
                         log.string());
    int port = 0;
    for (int i = 0; i < 1200 && !port; ++i) {
        std::stringstream text;
        text << std::ifstream(log).rdbuf();
        const size_t at = text.str().find("http://127.0.0.1:");
        if (at != std::string::npos) port = std::atoi(text.str().c_str() + at + 17);
        if (!port) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!port) {
        std::fprintf(stderr, "tb-serve-check: the server did not start (%s)\n", log.c_str());
        return 1;
    }

    std::printf("tb-serve-check: %s tb serve --dir %s --syzygy %s against tb probe --json, %d jobs, %s\n",
                o.pythia.c_str(), o.dir.c_str(), o.syzygy.c_str(), o.jobs,
                o.all ? ("every position, stride " + std::to_string(o.stride)).c_str()
                      : (std::to_string(o.sample) + " random positions per side to move").c_str());
    std::mt19937_64 rng(o.seed);
    long total = 0, total_bad = 0;
    const auto start = Clock::now();
    for (const std::string& table : o.tables) {
        const std::string letters = fen_letters(table);
        // The positions to check: a sample made now, or placements taken in turn by the workers.
        const std::vector<std::string> sample =
            o.all ? std::vector<std::string>() : sample_positions(letters, o.sample, rng);
        uint64_t placements = 1;
        for (size_t i = 0; i < letters.size(); ++i) placements *= 64;
        std::atomic<uint64_t> next{0};
        std::atomic<long> compared{0}, bad{0};
        std::mutex lock;
        std::vector<Mismatch> shown;
        std::vector<std::thread> workers;
        const auto table_start = Clock::now();
        for (int j = 0; j < o.jobs; ++j)
            workers.emplace_back([&] {
                EngineProcess probe(o.pythia, {"tb", "probe", "--json", "--dir", o.dir, "--syzygy", o.syzygy},
                                    "/dev/null");
                httplib::Client client("127.0.0.1", port);
                client.set_keep_alive(true);
                client.set_read_timeout(60);
                while (true) {
                    std::vector<std::string> fens;
                    if (o.all) {
                        const uint64_t index = next.fetch_add(o.stride);
                        if (index >= placements) break;
                        fens = placement_positions(letters, index);
                    } else {
                        const uint64_t i = next++;
                        if (i >= sample.size()) break;
                        fens = {sample[i]};
                    }
                    for (const std::string& fen : fens) {
                        ++compared;
                        probe.send(fen);
                        const std::optional<std::string> line =
                            probe.read_until([](const std::string&) { return true; }, 60000);
                        std::string param = fen;
                        std::replace(param.begin(), param.end(), ' ', '_');
                        const auto res = client.Get("/standard?fen=" + param);
                        const std::string prefix = "{\"fen\":\"" + fen + "\",";
                        // The server's body is tb probe's line with "{" for its leading "{"fen":...,".
                        const bool same = line && res && res->status == 200 && line->rfind(prefix, 0) == 0 &&
                                          res->body.size() == line->size() - prefix.size() + 1 && res->body[0] == '{' &&
                                          res->body.compare(1, std::string::npos, *line, prefix.size()) == 0;
                        if (same) continue;
                        ++bad;
                        std::lock_guard<std::mutex> g(lock);
                        if (shown.size() < 5)
                            shown.push_back({fen, line.value_or("(no line)"),
                                             res ? std::to_string(res->status) + " " + res->body : "(no answer)"});
                    }
                }
            });
        for (auto& w : workers) w.join();
        const double seconds = std::chrono::duration<double>(Clock::now() - table_start).count();
        std::printf("%-8s %10ld positions, %ld differ, %.1f s (%.0f positions/s)\n", table.c_str(), compared.load(),
                    bad.load(), seconds, seconds > 0 ? double(compared) / seconds : 0.0);
        for (const Mismatch& m : shown)
            std::printf("  %s\n    tb probe: %.300s\n    served:   %.300s\n", m.fen.c_str(), m.probe.c_str(),
                        m.served.c_str());
        std::fflush(stdout);
        total += compared;
        total_bad += bad;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("%ld positions of %zu tables compared in %.1f s: %ld differ\n", total, o.tables.size(), seconds,
                total_bad);
    fs::remove(log);
    return total_bad ? 1 : 0;
}
