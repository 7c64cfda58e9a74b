// `pythia datagen`: training data for the network from Pythia's own self-play games. Each game
// starts with a few random legal moves from the start position (skipped when a short search
// finds the start unbalanced), then both sides search a fixed number of nodes per move. The
// quiet positions of the game are written with the search score and, once the game is over,
// its result (eval/nnue/packed_position.h). Deterministic for a seed: game g of seed s is always
// the same game, whatever the thread that plays it.
#include "engine/cli/command.h"

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
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
constexpr int MAX_GAME_PLIES = 400;   // a game this long is adjudicated a draw
constexpr int WIN_SCORE = 1000;       // win adjudication: this score or more, for White or
constexpr int WIN_PLIES = 8;          // Black, over this many plies in a row
constexpr int DRAW_SCORE = 10;        // draw adjudication: within this score,
constexpr int DRAW_PLIES = 12;        // over this many plies in a row,
constexpr int DRAW_FROM_PLY = 80;     // from this game ply on
constexpr int HASH_MB = 16;           // each thread's transposition table
constexpr int REPORT_EVERY_SECONDS = 60;

struct DatagenArgs {
    uint64_t games = 0, positions = 0;  // stop when the file holds this many (0: no limit)
    uint64_t nodes = 5000;
    int threads = 1;
    uint64_t seed = 1;
    std::string out;
    std::string eval_file;  // a net to play with instead of the build's default evaluation
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
void play_game(uint64_t seed, uint32_t game, uint64_t nodes, Search& search, std::vector<PackedPosition>& records) {
    const SearchOptions options;  // one line, no tablebases: Pythia's own search alone
    std::mt19937_64 rng = game_rng(seed, game);
    Position pos = random_start(rng, search, options);
    search.clear();
    SearchLimits limits;
    limits.nodes = nodes;

    std::vector<PackedPosition> game_records;
    GameResult result = GameResult::DRAW;
    int win_streak = 0, draw_streak = 0;  // win_streak > 0: White winning, < 0: Black
    for (int ply = 0;; ++ply) {
        const Color stm = pos.side_to_move();
        if (MoveList(pos).empty()) {
            result = !pos.in_check() ? GameResult::DRAW : stm == WHITE ? GameResult::BLACK_WIN : GameResult::WHITE_WIN;
            break;
        }
        if (pos.is_fifty_move_draw() || pos.is_threefold_repetition() || pos.has_insufficient_material() ||
            ply >= MAX_GAME_PLIES)
            break;
        const SearchResult r = search.run(pos, limits, options);
        const int score_white = stm == WHITE ? r.score : -r.score;
        // Adjudication: a mate seen by the search ends the game; so does a large score held
        // by both sides for a while, or a long quiet draw.
        if (is_decisive(r.score)) {
            result = score_white > 0 ? GameResult::WHITE_WIN : GameResult::BLACK_WIN;
            break;
        }
        win_streak = score_white >= WIN_SCORE    ? std::max(win_streak, 0) + 1
                     : score_white <= -WIN_SCORE ? std::min(win_streak, 0) - 1
                                                 : 0;
        if (std::abs(win_streak) >= WIN_PLIES) {
            result = win_streak > 0 ? GameResult::WHITE_WIN : GameResult::BLACK_WIN;
            break;
        }
        draw_streak = std::abs(score_white) <= DRAW_SCORE && pos.game_ply() >= DRAW_FROM_PLY ? draw_streak + 1 : 0;
        if (draw_streak >= DRAW_PLIES) break;
        // Quiet positions only: the network is asked about quiet positions, where the score
        // is the position's and not a capture's about to happen.
        if (pos.game_ply() >= MIN_RECORD_PLY && !pos.in_check() && !pos.is_tactical(r.best))
            game_records.push_back(nnue::pack_position(pos, score_white, GameResult::DRAW, game));
        pos.do_move(r.best);
    }
    for (PackedPosition& p : game_records) p.result = uint8_t(result);
    records.insert(records.end(), game_records.begin(), game_records.end());
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
    spdlog::info("datagen: {} positions of {} games already in {}; {} nodes a move, {} thread(s), seed {}, {}",
                 existing, last_game + 1, a.out, a.nodes, a.threads, a.seed, nnue::active_network_name());

    std::atomic<uint64_t> next_game{uint64_t(last_game + 1)}, positions{existing}, games_done{0};
    std::mutex write_mutex;
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    bool failed = false;
    auto worker = [&] {
        Search search;
        search.set_hash_mb(HASH_MB);
        std::vector<PackedPosition> records;
        while (true) {
            if (a.positions && positions.load() >= a.positions) return;
            const uint64_t game = next_game.fetch_add(1);
            if ((a.games && game >= a.games) || game > UINT32_MAX) return;
            records.clear();
            play_game(a.seed, uint32_t(game), a.nodes, search, records);
            std::lock_guard lock(write_mutex);
            if (std::fwrite(records.data(), sizeof(PackedPosition), records.size(), out) != records.size() ||
                std::fflush(out) != 0) {
                failed = true;
                return;
            }
            positions += records.size();
            ++games_done;
            const auto now = std::chrono::steady_clock::now();
            if (now - last_report >= std::chrono::seconds(REPORT_EVERY_SECONDS)) {
                last_report = now;
                const double s = std::chrono::duration<double>(now - start).count();
                spdlog::info("datagen: game {}, {} positions in the file, {:.1f} positions/s, {:.2f} games/s", game,
                             positions.load(), (positions.load() - existing) / s, games_done.load() / s);
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
    spdlog::info("datagen: done, {} games and {} positions in {:.0f} s ({:.1f} positions/s); {} holds {}",
                 games_done.load(), positions.load() - existing, s, (positions.load() - existing) / std::max(s, 1e-9),
                 a.out, positions.load());
    return 0;
}

}  // namespace pythia::cli
