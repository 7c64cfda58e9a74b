// `pythia datagen`: training data for the network from Pythia's own self-play games. Each game
// starts with a few random legal moves from the start position (skipped when a short search
// finds the start unbalanced), then both sides search a fixed number of nodes per move. The
// quiet positions of the game are written with the search score and, once the game is over,
// its result (eval/nnue/packed_position.h). Deterministic for a seed: game g of seed s is always
// the same game, whatever the thread that plays it.
#include "engine/cli/command.h"
#include "engine/cli/datagen_adjudicator.h"

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include <spdlog/spdlog.h>

#include "engine/core/movegen.h"
#include "eval/nnue/active_network.h"
#include "eval/nnue/packed_position.h"
#include "search/search.h"

namespace pythia::cli {

namespace {

using nnue::GameResult;
using nnue::PackedPosition;

constexpr int RANDOM_PLIES_MIN = 8;  // random opening moves: 8, 9 or 10 plies
constexpr int RANDOM_PLIES_SPREAD = 3;
constexpr int BALANCE_NODES = 20000;  // the search that judges a random start
constexpr int BALANCE_LIMIT = 250;    // a start scored beyond this (centipawns) is skipped
constexpr int MIN_RECORD_PLY = 12;    // the first plies of a game are not written
constexpr int HASH_MB = 16;           // each thread's transposition table
constexpr int REPORT_EVERY_SECONDS = 60;

struct DatagenArgs {
    uint64_t games = 0, positions = 0;  // stop when the file holds this many (0: no limit)
    uint64_t nodes = 5000;
    int depth = 0;  // a fixed depth a move instead of the nodes
    int threads = 1;
    uint64_t seed = 1;
    std::string out;
    std::string eval_file;   // a net to play with instead of the build's default evaluation
    std::string tablebases;  // Pythia's tables (folders separated by ':') for adjudication
};

// What the games cost and how they ended, for the report.
struct GameStats {
    uint64_t games = 0, plies = 0, positions = 0;  // plies searched, positions written
    uint64_t nodes = 0, depths = 0;                // searched, and the depths completed, summed
    std::array<uint64_t, size_t(GameEnd::COUNT)> endings{};

    void add(const GameStats& o) {
        games += o.games;
        plies += o.plies;
        positions += o.positions;
        nodes += o.nodes;
        depths += o.depths;
        for (size_t i = 0; i < endings.size(); ++i) endings[i] += o.endings[i];
    }
    std::string endings_text() const {
        std::string out;
        for (size_t i = 0; i < endings.size(); ++i)
            if (endings[i])
                out += fmt::format("{}{} {:.1f} %", out.empty() ? "" : ", ", game_end_name(GameEnd(i)),
                                   100.0 * double(endings[i]) / double(std::max<uint64_t>(games, 1)));
        return out;
    }
};

// Parses the options; a missing or bad one is a UsageError (the usage is in commands.cpp).
DatagenArgs parse_args(const std::vector<std::string>& args) {
    DatagenArgs a;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& name = args[i];
        if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
        const std::string& v = args[++i];
        uint64_t n = 0;
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        const bool numeric = ec == std::errc() && p == v.data() + v.size();
        if (name == "--out")
            a.out = v;
        else if (name == "--tablebases")
            a.tablebases = v;
        else if (name == "--evalfile")
            a.eval_file = v;
        else if (!numeric)
            throw UsageError(name + " needs a number, not '" + v + "'");
        else if (name == "--games")
            a.games = n;
        else if (name == "--positions")
            a.positions = n;
        else if (name == "--nodes" && n >= 1)
            a.nodes = n;
        else if (name == "--depth" && n >= 1 && n <= 64)
            a.depth = int(n);
        else if (name == "--threads" && n >= 1 && n <= 256)
            a.threads = int(n);
        else if (name == "--seed")
            a.seed = n;
        else
            throw UsageError("unknown option or bad value: " + name + " " + v);
    }
    if (a.out.empty()) throw UsageError("--out FILE is needed");
    if (!a.games && !a.positions) throw UsageError("--games N or --positions N is needed");
    return a;
}

// The game's own generator: the same (seed, game) always gives the same openings.
std::mt19937_64 game_rng(uint64_t seed, uint32_t game) {
    std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), game};
    return std::mt19937_64(seq);
}

// Random legal plies from the start position until a start that a short search scores within
// BALANCE_LIMIT and that still has moves.
Position random_start(std::mt19937_64& rng, Search& search, const SearchOptions& options) {
    SearchLimits balance;
    balance.nodes = BALANCE_NODES;
    while (true) {
        Position pos;
        const int plies = RANDOM_PLIES_MIN + int(rng() % RANDOM_PLIES_SPREAD);
        bool ok = true;
        for (int i = 0; i < plies && ok; ++i) {
            MoveList moves(pos);
            if (moves.empty())
                ok = false;
            else
                pos.do_move(moves[int(rng() % uint64_t(moves.size()))]);
        }
        if (!ok || MoveList(pos).empty()) continue;
        search.clear();
        const SearchResult r = search.run(pos, balance, options);
        if (std::abs(r.score) <= BALANCE_LIMIT) return pos;
    }
}

// One game; its quiet positions are appended to `records`.
void play_game(const DatagenArgs& a, uint32_t game, const tb::Tablebases* tables, Search& search,
               std::vector<PackedPosition>& records, GameStats& stats) {
    const SearchOptions options;  // one line, no tablebases in the search: Pythia's own search
    std::mt19937_64 rng = game_rng(a.seed, game);
    Position pos = random_start(rng, search, options);
    search.clear();
    SearchLimits limits;
    if (a.depth)
        limits.depth = a.depth;
    else
        limits.nodes = a.nodes;

    GameAdjudicator adjudicator(tables);
    std::vector<PackedPosition> game_records;
    std::optional<Ending> ending;
    for (int ply = 0;; ++ply) {
        if ((ending = adjudicator.before_search(pos, ply))) break;
        const SearchResult r = search.run(pos, limits, options);
        ++stats.plies;
        stats.nodes += r.nodes;
        stats.depths += uint64_t(r.depth);
        if ((ending = adjudicator.after_search(pos, r.score))) break;
        // Quiet positions only: the network is asked about quiet positions, where the score
        // is the position's and not a capture's about to happen.
        if (pos.game_ply() >= MIN_RECORD_PLY && !pos.in_check() && !pos.is_tactical(r.best)) {
            const int score_white = pos.side_to_move() == WHITE ? r.score : -r.score;
            game_records.push_back(nnue::pack_position(pos, score_white, GameResult::DRAW, game));
        }
        pos.do_move(r.best);
    }
    for (PackedPosition& p : game_records) p.result = uint8_t(ending->result);
    records.insert(records.end(), game_records.begin(), game_records.end());
    ++stats.games;
    stats.positions += game_records.size();
    ++stats.endings[size_t(ending->how)];
}

// Trims a record cut by a stop, and finds the largest game number in the file.
bool resume_point(const std::string& path, uint64_t& positions, int64_t& last_game) {
    positions = 0;
    last_game = -1;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return true;
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) return false;
    if (size % sizeof(PackedPosition)) {
        spdlog::warn("datagen: {} ends in a partial record; trimming {} bytes", path, size % sizeof(PackedPosition));
        std::filesystem::resize_file(path, size - size % sizeof(PackedPosition), ec);
        if (ec) return false;
    }
    std::ifstream in(path, std::ios::binary);
    std::vector<PackedPosition> chunk(1 << 16);
    while (in) {
        in.read(reinterpret_cast<char*>(chunk.data()), std::streamsize(chunk.size() * sizeof(PackedPosition)));
        const size_t n = size_t(in.gcount()) / sizeof(PackedPosition);
        for (size_t i = 0; i < n; ++i) last_game = std::max<int64_t>(last_game, chunk[i].game);
        positions += n;
    }
    return true;
}

}  // namespace

int datagen_command(const Args& args) {
    const DatagenArgs a = parse_args(args);
    std::string error;
    // --evalfile takes what EvalFile takes: a net file, or <hand-written> (the first
    // generation's data, made before any net).
    if (a.eval_file == nnue::HAND_WRITTEN_NAME)
        nnue::use_hand_written_evaluation();
    else if (!a.eval_file.empty() && !nnue::load_eval_file(a.eval_file, error)) {
        std::cerr << "pythia datagen: " << error << '\n';
        return 1;
    }
    uint64_t existing = 0;
    int64_t last_game = -1;
    if (!resume_point(a.out, existing, last_game)) {
        std::cerr << "pythia datagen: cannot read " << a.out << '\n';
        return 1;
    }
    std::FILE* out = std::fopen(a.out.c_str(), "ab");
    if (!out) {
        std::cerr << "pythia datagen: cannot open " << a.out << " for appending\n";
        return 1;
    }
    // The tables adjudicate the games that reach them (the search itself plays without them).
    std::unique_ptr<tb::Tablebases> tables;
    if (!a.tablebases.empty()) {
        tables = std::make_unique<tb::Tablebases>();
        for (const std::string& message : tables->set_paths(a.tablebases)) spdlog::info("datagen: {}", message);
        if (!tables->num_tables()) {
            std::fclose(out);
            std::cerr << "pythia datagen: no tablebases in " << a.tablebases << '\n';
            return 1;
        }
        tables->open_wdl_files();
    }
    spdlog::info(
        "datagen: {} positions of {} games already in {}; {} a move, {} thread(s), seed {}, {}; {}", existing,
        last_game + 1, a.out, a.depth ? fmt::format("depth {}", a.depth) : fmt::format("{} nodes", a.nodes), a.threads,
        a.seed, nnue::active_network_name(),
        tables ? fmt::format("tables of up to {} pieces adjudicate", tables->max_pieces()) : std::string("no tables"));

    std::atomic<uint64_t> next_game{uint64_t(last_game + 1)}, positions{existing};
    GameStats stats;  // under write_mutex
    std::mutex write_mutex;
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    bool failed = false;
    auto worker = [&] {
        Search search;
        search.set_hash_mb(HASH_MB);
        std::vector<PackedPosition> records;
        GameStats game_stats;
        while (true) {
            if (a.positions && positions.load() >= a.positions) return;
            const uint64_t game = next_game.fetch_add(1);
            if ((a.games && game >= a.games) || game > UINT32_MAX) return;
            records.clear();
            game_stats = {};
            play_game(a, uint32_t(game), tables.get(), search, records, game_stats);
            std::lock_guard lock(write_mutex);
            if (std::fwrite(records.data(), sizeof(PackedPosition), records.size(), out) != records.size() ||
                std::fflush(out) != 0) {
                failed = true;
                return;
            }
            positions += records.size();
            stats.add(game_stats);
            const auto now = std::chrono::steady_clock::now();
            if (now - last_report >= std::chrono::seconds(REPORT_EVERY_SECONDS)) {
                last_report = now;
                const double s = std::chrono::duration<double>(now - start).count();
                spdlog::info("datagen: game {}, {} positions in the file, {:.1f} positions/s, {:.2f} games/s", game,
                             positions.load(), double(stats.positions) / s, double(stats.games) / s);
            }
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < a.threads; ++i) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    std::fclose(out);
    if (failed) {
        std::cerr << "pythia datagen: writing " << a.out << " failed\n";
        return 1;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("datagen: done, {} games and {} positions in {:.0f} s ({:.1f} positions/s); {} holds {}", stats.games,
                 stats.positions, s, double(stats.positions) / std::max(s, 1e-9), a.out, positions.load());
    // Where the plies go: a game's searched plies against its written positions, and its ends.
    if (stats.games)
        spdlog::info(
            "datagen: a game searches {:.1f} plies (depth {:.2f}, {:.0f} nodes a position written) and "
            "writes {:.1f} positions; ended by {}",
            double(stats.plies) / double(stats.games),
            double(stats.depths) / double(std::max<uint64_t>(stats.plies, 1)),
            double(stats.nodes) / double(std::max<uint64_t>(stats.positions, 1)),
            double(stats.positions) / double(stats.games), stats.endings_text());
    return 0;
}

}  // namespace pythia::cli
