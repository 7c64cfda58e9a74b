// UCI stress: thousands of random but valid command sequences against the real binary through
// a pipe. Random legal games (so `position ... moves` gets long), a `go` with every kind of
// limit at random plies, `stop` and `ponderhit` at random moments, `isready` during searches,
// Hash, Threads and MultiPV changed between games. Every `go` must be answered by exactly one
// legal `bestmove` (inside `searchmoves` when given) and every `isready` by `readyok`, each
// within a deadline. The run is bounded by time (PYTHIA_STRESS_SECONDS, default 30, 20 under
// sanitizers: a few hundred sequences, each run from a new seed, so that the runs of CI add up
// to the thousands); PYTHIA_STRESS_SEED replays a run (the seed is printed on failure).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <sstream>
#include <thread>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "uci/engine_process.h"

using namespace pythia;
using pythia::test::EngineProcess;

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
constexpr bool SANITIZED = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool SANITIZED = true;
#else
constexpr bool SANITIZED = false;
#endif
#else
constexpr bool SANITIZED = false;
#endif

// Deadlines are generous (the machine is shared; a sanitized engine is ~10x slower): they
// catch hangs and gross overruns, not small delays.
constexpr int SLOW = SANITIZED ? 10 : 1;
constexpr int REPLY_MS = 2000 * SLOW;  // readyok, or bestmove after stop

// Start positions besides the standard one: castling, en passant, promotions, endgames.
const char* const FENS[] = {
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/8/8/8/2k5/8/K6R w - - 0 1",
    "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1",
    "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",                               // mate in 1
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",  // mate in 1
};

class Stress {
public:
    Stress(uint64_t seed, double seconds) : seed_(seed), rng_(seed), seconds_(seconds) {}

    void run() {
        handshake();
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(seconds_ * 1000));
        while (std::chrono::steady_clock::now() < end) play_game(end);
        send("quit");
        if (!engine_.wait_exit(REPLY_MS)) fail("no exit after quit");
        std::printf(
            "uci stress (seed %llu): %d games, %d command sequences (go), %d stops, %d ponderhits, "
            "%d isready during searches, %d option changes, longest move list %zu\n",
            (unsigned long long)seed_, games_, sequences_, stops_, ponderhits_, ready_during_search_, option_changes_,
            longest_);
    }

private:
    // A failure names the seed and the last commands sent.
    [[noreturn]] void fail(const std::string& what) {
        std::ostringstream s;
        s << what << "\nseed " << seed_ << " (PYTHIA_STRESS_SEED=" << seed_ << " replays it); last commands:";
        for (const std::string& c : history_) s << "\n  > " << c;
        FAIL(s.str());
        std::abort();  // FAIL throws; never reached
    }

    void send(const std::string& line) {
        history_.push_back(line);
        if (history_.size() > 25) history_.pop_front();
        engine_.send(line);
    }

    int random(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    void pause(int max_ms) { std::this_thread::sleep_for(std::chrono::milliseconds(random(0, max_ms))); }

    void handshake() {
        send("uci");
        if (!engine_.read_line_starting("uciok", 20000 * SLOW)) fail("no uciok");
        sync();
    }

    // isready and its readyok; a bestmove on the way is an unasked one.
    void sync() {
        send("isready");
        std::vector<std::string> seen;
        if (!engine_.read_line_starting("readyok", REPLY_MS, &seen))
            fail("no readyok within " + std::to_string(REPLY_MS) + " ms");
        for (const std::string& l : seen)
            if (l.rfind("bestmove", 0) == 0) fail("bestmove without a go: " + l);
    }

    void change_options() {
        static const int HASH[] = {1, 2, 4, 8, 16, 32, 64};
        if (chance(0.5)) send("setoption name Hash value " + std::to_string(HASH[random(0, 6)])), ++option_changes_;
        if (chance(0.5)) send("setoption name Threads value " + std::to_string(random(1, 4))), ++option_changes_;
        if (chance(0.2)) send("setoption name MultiPV value " + std::to_string(random(1, 4))), ++option_changes_;
        if (chance(0.2)) send(std::string("setoption name UCI_ShowWDL value ") + (chance(0.5) ? "true" : "false"));
        if (chance(0.2)) send(std::string("setoption name OwnBook value ") + (chance(0.5) ? "true" : "false"));
    }

    void play_game(std::chrono::steady_clock::time_point end) {
        change_options();
        send("ucinewgame");
        sync();
        ++games_;
        const bool from_fen = chance(0.25);
        const std::string fen = from_fen ? FENS[random(0, int(std::size(FENS)) - 1)] : std::string(START_FEN);
        Position pos;
        REQUIRE(pos.set_fen(fen));
        std::vector<std::string> moves;
        const int max_plies = random(20, 260);
        // How often this game searches: some games run through long move lists quickly.
        const double search_rate = chance(0.3) ? 0.05 : 0.4;
        while (std::chrono::steady_clock::now() < end) {
            const MoveList legal(pos);
            const bool over = legal.size() == 0 || int(moves.size()) >= max_plies || pos.is_fifty_move_draw() ||
                              pos.is_threefold_repetition();
            std::string position = from_fen ? "position fen " + fen : "position startpos";
            if (!moves.empty()) {
                position += " moves";
                for (const std::string& m : moves) position.append(" ").append(m);
            }
            Move best = Move::none();
            if (over || chance(search_rate)) best = search(pos, position, legal.size() == 0);
            if (over) break;
            Move next = best && chance(0.5) ? best : *(legal.begin() + random(0, legal.size() - 1));
            moves.push_back(move_to_uci(next));
            longest_ = std::max(longest_, moves.size());
            pos.do_move(next);
        }
    }

    // One command sequence: position, go with a random limit, maybe isready/stop/ponderhit
    // during the search; returns the bestmove (checked), or none when there is no legal move.
    Move search(const Position& pos, const std::string& position, bool no_moves) {
        ++sequences_;
        send(position);
        if (chance(0.2)) sync();
        std::string go = "go";
        int deadline_ms = 0;      // from the go, before a stop is sent
        bool needs_stop = false;  // infinite: bestmove only after stop
        bool pondering = false;
        const Color us = pos.side_to_move();
        switch (random(0, 7)) {
            case 0:
                go += " depth " + std::to_string(random(1, 6));
                deadline_ms = 20000;
                break;
            case 1:
                go += " nodes " + std::to_string(random(1, 30000));
                deadline_ms = 10000;
                break;
            case 2: {
                const int t = random(1, 120);
                go += " movetime " + std::to_string(t);
                deadline_ms = t + 1000;
                break;
            }
            case 3:
            case 4: {
                // A clock: from a hurried 1 ms to 10 s, with or without increment and moves to go.
                const int own = chance(0.2) ? random(1, 200) : chance(0.9) ? random(200, 2000) : random(2000, 10000);
                const int other = random(1, 10000), inc = chance(0.5) ? random(0, 200) : 0;
                const int wt = us == WHITE ? own : other, bt = us == WHITE ? other : own;
                go += " wtime " + std::to_string(wt) + " btime " + std::to_string(bt);
                if (inc || chance(0.5)) go += " winc " + std::to_string(inc) + " binc " + std::to_string(inc);
                if (chance(0.3)) go += " movestogo " + std::to_string(random(1, 40));
                if (chance(0.2)) go += " ponder", pondering = true;
                deadline_ms = own + inc + 1000;  // beyond the clock is a loss on time
                break;
            }
            case 5:
                go += " infinite";
                needs_stop = true;
                break;
            case 6:
                go += " mate " + std::to_string(random(1, 3)) + " movetime " + std::to_string(random(10, 150));
                deadline_ms = 1200;
                break;
            default:
                go += " depth " + std::to_string(random(1, 4)) + " nodes " + std::to_string(random(100, 5000));
                deadline_ms = 10000;
                break;
        }
        // searchmoves: a random subset of the legal moves.
        std::vector<Move> subset;
        const MoveList legal(pos);
        if (!no_moves && chance(0.15)) {
            for (Move m : legal)
                if (chance(0.3)) subset.push_back(m);
            if (subset.empty()) subset.push_back(*legal.begin());
            go += " searchmoves";
            for (Move m : subset) go.append(" ").append(move_to_uci(m));
        }
        const auto start = std::chrono::steady_clock::now();
        send(go);

        std::optional<std::string> best;
        std::vector<std::string> seen;
        auto check_seen = [&] {
            for (const std::string& l : seen)
                if (l.rfind("bestmove", 0) == 0) {
                    if (best) fail("two bestmoves for one go: " + *best + " and " + l);
                    best = l;
                }
            seen.clear();
        };
        // isready during the search.
        if (chance(0.35)) {
            pause(20);
            send("isready");
            if (!engine_.read_line_starting("readyok", REPLY_MS, &seen)) fail("no readyok during a search");
            ++ready_during_search_;
            check_seen();
            if (best && (needs_stop || pondering))
                fail("bestmove before stop in an infinite or ponder search: " + *best);
        }
        // stop or ponderhit at a random moment (always for infinite and ponder).
        bool stopped = false;
        if (!best && (needs_stop || pondering || chance(0.25))) {
            pause(30);
            if (pondering && chance(0.5)) {
                send("ponderhit");
                ++ponderhits_;
            } else {
                send("stop");
                ++stops_;
                stopped = true;
            }
        }
        if (!best) {
            const auto limit = stopped ? REPLY_MS
                                       : int(deadline_ms * SLOW + std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                      std::chrono::steady_clock::now() - start)
                                                                      .count());
            const auto line = engine_.read_line_starting("bestmove", limit, &seen);
            if (!line) fail("no bestmove within " + std::to_string(limit) + " ms after: " + go);
            seen.pop_back();
            best = line;
        }
        // Exactly one bestmove: nothing more arrives before the next readyok.
        send("isready");
        seen.clear();
        if (!engine_.read_line_starting("readyok", REPLY_MS, &seen)) fail("no readyok after a search");
        for (const std::string& l : seen)
            if (l.rfind("bestmove", 0) == 0) fail("two bestmoves for one go: " + *best + " and " + l);

        std::istringstream words(*best);
        std::string word, move, ponder_word, ponder;
        words >> word >> move >> ponder_word >> ponder;
        if (no_moves) {
            if (move != "0000" && move != "(none)") fail("no legal move, yet " + *best);
            return Move::none();
        }
        const Move m = parse_uci_move(pos, move);
        if (!m) fail("illegal bestmove in " + pos.fen() + ": " + *best);
        if (!subset.empty() && std::find(subset.begin(), subset.end(), m) == subset.end())
            fail("bestmove " + move + " is not among the searchmoves");
        if (ponder_word == "ponder") {
            Position after = pos;
            after.do_move(m);
            if (!parse_uci_move(after, ponder)) fail("illegal ponder move in " + *best);
        }
        return m;
    }

    uint64_t seed_;
    std::mt19937_64 rng_;
    double seconds_;
    EngineProcess engine_;
    std::deque<std::string> history_;
    int games_ = 0, sequences_ = 0, stops_ = 0, ponderhits_ = 0, ready_during_search_ = 0, option_changes_ = 0;
    size_t longest_ = 0;
};

}  // namespace

TEST_CASE("uci stress: random valid command sequences get a legal bestmove and readyok in time", "[uci][stress]") {
    uint64_t seed = std::random_device{}();
    if (const char* s = std::getenv("PYTHIA_STRESS_SEED")) seed = std::strtoull(s, nullptr, 10);
    double seconds = SANITIZED ? 20 : 30;
    if (const char* s = std::getenv("PYTHIA_STRESS_SECONDS")) seconds = std::atof(s);
    INFO("seed " << seed);
    Stress(seed, seconds).run();
}
