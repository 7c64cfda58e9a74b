// tb-probe-bench: latency of Pythia's tablebase probes on random legal positions, against a
// Syzygy WDL probe through Debian's libfathom on the very same positions.
//
//   build/release/bench/tb-probe-bench [--dir D] [--syzygy S] [--positions N] [--runs R]
//                                      [--min-pieces J] [--max-pieces K] [--seed X]
//                                      [--tables M1,M2,...] [--values FILE] [--mapped-wdl]
//
// Positions: N random legal positions (no castling, no en passant), spread evenly over the
// tables found in D with J to K pieces (or over the tables named by --tables, which D must hold:
// a set being rewritten, say, whose other tables are still there for the probes' captures).
// Each probe is timed on its own (steady_clock, the timer's own cost measured and subtracted);
// the figures are the median and 99th percentile over all probes, per run, and the median over
// the runs. The position itself is in cache, as in a search. "cold" probes go through the
// positions once in a fresh order with the decoded-block cache holding other positions; "warm"
// probes repeat a position just probed (the search's common case).
//
// WDL files are read from their copies in huge pages, as in the engine; --mapped-wdl reads them
// where they are mapped instead (Tablebases::copy_wdl_files_to_memory).
//
// --values FILE writes each position's FEN with its DTM probed alone and its WDL, DTZ and DTM
// probed together to FILE instead of timing: two builds' files compare their probers on the
// same positions (the seed fixes them).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/movegen.h"
#include "engine/core/random_position.h"
#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/format/table_index.h"
#include "tablebase/probe/tablebases.h"

#ifdef PYTHIA_HAVE_FATHOM
#include <tbprobe.h>
#endif

using namespace pythia;
using namespace pythia::tb;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string dir = PYTHIA_DEFAULT_TB_DIR;
    std::string syzygy;  // --syzygy: a folder of Syzygy files to compare with (none by default)
    int positions = 100000;
    int runs = 5;
    int min_pieces = 3;
    int max_pieces = 5;
    uint64_t seed = 1;
    std::vector<Material> only;  // --tables: positions of these tables only
    std::string values;          // --values: write the probed values there, time nothing
    bool mapped_wdl = false;     // --mapped-wdl
};

// The process's anonymous memory in transparent huge pages, in bytes (0 if unknown).
uint64_t anonymous_huge_page_bytes() {
    FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) break;
    std::fclose(f);
    return uint64_t(kb) << 10;
}

// A random legal position of material m (no castling, no en passant), either side to move.
bool random_position(const Material& m, std::mt19937_64& rng, Position& pos) {
    std::string pieces;
    for (Color c : {WHITE, BLACK})
        for (int pt = PAWN; pt <= KING; ++pt)
            pieces += std::string(m.count(c, PieceType(pt)), c == WHITE ? " PNBRQK"[pt] : " pnbrqk"[pt]);
    const Color stm = rng() % 2 ? WHITE : BLACK;
    auto p = pythia::random_position(rng, pieces, stm);
    if (p) pos = *p;
    return bool(p);
}

double timer_overhead_ns() {
    std::vector<double> t;
    for (int i = 0; i < 10001; ++i) {
        auto a = Clock::now();
        auto b = Clock::now();
        t.push_back(std::chrono::duration<double, std::nano>(b - a).count());
    }
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    return t[t.size() / 2];
}

struct Stats {
    double median = 0, p99 = 0;
};

Stats stats_of(std::vector<double> ns, double overhead) {
    for (double& x : ns) x = std::max(0.0, x - overhead);
    std::sort(ns.begin(), ns.end());
    return {ns[ns.size() / 2], ns[std::min(ns.size() - 1, ns.size() * 99 / 100)]};
}

// Times f(position) on each position; returns the per-call times in nanoseconds.
template <typename F>
std::vector<double> time_each(const std::vector<Position>& positions, F&& f, bool warm) {
    std::vector<double> ns;
    ns.reserve(positions.size());
    for (const Position& p : positions) {
        // The search probes the position it is on, which is in cache: copy it to the stack
        // first, so that the time is the probe's, not that of reading a position from memory.
        const Position current = p;
        if (warm) f(current);
        auto a = Clock::now();
        f(current);
        auto b = Clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(b - a).count());
    }
    return ns;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    auto usage = [] {
        std::fprintf(stderr,
                     "usage: tb-probe-bench [--dir D] [--syzygy S] [--positions N] [--runs R] "
                     "[--min-pieces J] [--max-pieces K] [--seed X] [--tables M1,M2,...] [--values FILE] "
                     "[--mapped-wdl]\n");
        return 2;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--mapped-wdl") {  // the one flag: no value follows
            o.mapped_wdl = true;
            continue;
        }
        if (i + 1 == argc) return usage();  // an option without its value
        const std::string v = argv[++i];
        if (a == "--dir")
            o.dir = v;
        else if (a == "--syzygy")
            o.syzygy = v;
        else if (a == "--positions")
            o.positions = std::max(100, std::atoi(v.c_str()));
        else if (a == "--runs")
            o.runs = std::max(1, std::atoi(v.c_str()));
        else if (a == "--max-pieces")
            o.max_pieces = std::atoi(v.c_str());
        else if (a == "--min-pieces")
            o.min_pieces = std::atoi(v.c_str());
        else if (a == "--seed")
            o.seed = std::strtoull(v.c_str(), nullptr, 10);
        else if (a == "--values")
            o.values = v;
        else if (a == "--tables") {
            for (size_t at = 0; at <= v.size();) {
                const size_t comma = std::min(v.find(',', at), v.size());
                const auto m = Material::parse(v.substr(at, comma - at));
                if (!m) {
                    std::fprintf(stderr, "tb-probe-bench: '%s' is not a material\n", v.substr(at, comma - at).c_str());
                    return 2;
                }
                o.only.push_back(m->normalized());
                at = comma + 1;
            }
        } else {
            return usage();
        }
    }
    Tablebases tbs;
    tbs.build_checkpoints_at_open(true);  // as the engine's background opening does
    tbs.copy_wdl_files_to_memory(!o.mapped_wdl);
    for (const std::string& m : tbs.set_paths(o.dir)) std::fprintf(stderr, "%s\n", m.c_str());
    std::vector<Material> tables;
    for (const Material& m : tbs.materials())
        if (m.total() >= o.min_pieces && m.total() <= o.max_pieces &&
            (o.only.empty() || std::find(o.only.begin(), o.only.end(), m) != o.only.end()))
            tables.push_back(m);
    for (const Material& m : o.only)
        if (std::find(tables.begin(), tables.end(), m) == tables.end())
            std::fprintf(stderr, "tb-probe-bench: %s (--tables) is not in %s with %d to %d pieces\n", m.name().c_str(),
                         o.dir.c_str(), o.min_pieces, o.max_pieces);
    if (tables.empty()) {
        std::fprintf(stderr, "tb-probe-bench: no tables of %d to %d pieces in %s\n", o.min_pieces, o.max_pieces,
                     o.dir.c_str());
        return 1;
    }
#ifdef PYTHIA_HAVE_FATHOM
    const bool fathom = !o.syzygy.empty() && tb_init(o.syzygy.c_str()) && TB_LARGEST > 0;
    if (!fathom && !o.syzygy.empty())
        std::fprintf(stderr, "tb-probe-bench: no Syzygy tables in %s; no comparison\n", o.syzygy.c_str());
#else
    const bool fathom = false;
#endif

    std::mt19937_64 rng(o.seed);
    std::vector<Position> positions;
    positions.reserve(o.positions);
    for (int i = 0; positions.size() < size_t(o.positions) && i < o.positions * 10; ++i) {
        Position p;
        const Material& m = tables[i % tables.size()];
        if (!random_position(i % 2 ? m : m.flipped(), rng, p)) continue;
        positions.push_back(p);
    }
    if (positions.empty()) {
        std::fprintf(stderr, "tb-probe-bench: no legal random position found for these tables\n");
        return 1;
    }
    // Fathom is compared on the positions its tables cover (5-piece ones need a 5-piece Syzygy set).
    std::vector<Position> fathom_positions;
#ifdef PYTHIA_HAVE_FATHOM
    for (const Position& p : positions)
        if (fathom && int(popcount(p.pieces())) <= int(TB_LARGEST)) fathom_positions.push_back(p);
    if (fathom && fathom_positions.empty())
        std::fprintf(stderr, "tb-probe-bench: the Syzygy tables in %s cover none of these positions; no comparison\n",
                     o.syzygy.c_str());
#endif
    const double overhead = timer_overhead_ns();
    std::printf("tb-probe-bench: %zu random legal positions from %zu tables of %d to %d pieces in %s\n",
                positions.size(), tables.size(), o.min_pieces, o.max_pieces, o.dir.c_str());
    std::printf(
        "each probe timed alone (timer cost %.0f ns subtracted); %d runs, positions shuffled per run; "
        "median over runs\n",
        overhead, o.runs);

    // Every probe must answer: a failure here means missing tables, not a slow probe.
    for (const Position& p : positions)
        if (!tbs.probe_wdl(p)) {
            std::fprintf(stderr, "tb-probe-bench: no WDL for %s\n", p.fen().c_str());
            return 1;
        }

    if (!o.values.empty()) {
        FILE* out = std::fopen(o.values.c_str(), "w");
        if (!out) {
            std::fprintf(stderr, "tb-probe-bench: cannot write %s\n", o.values.c_str());
            return 1;
        }
        auto text = [](const std::optional<Value>& v) -> std::string {
            if (!v) return "none";
            return is_win(*v)    ? "+" + std::to_string(distance_of(*v))
                   : is_loss(*v) ? "-" + std::to_string(distance_of(*v))
                                 : "draw";
        };
        for (const Position& p : positions) {
            const auto all = tbs.probe(p);
            std::fprintf(out, "%s dtm %s all %s %s %s\n", p.fen().c_str(), text(tbs.probe_dtm(p)).c_str(),
                         all ? std::to_string(all->wdl).c_str() : "none", all ? text(all->dtz).c_str() : "none",
                         all ? text(all->dtm).c_str() : "none");
        }
        std::fclose(out);
        return 0;
    }

    // Tables whose DTM/DTZ file leaves a side to move out (the 5-piece tables): their DTM probes of that side probe
    // every move, so they are timed apart.
    std::vector<Position> dtm_stored, dtm_recovered;
    {
        std::map<std::string, std::optional<Color>> left_out;  // by normalized material name
        for (const Material& m : tables) {
            std::string why;
            auto f = TableFile::open(table_file_path(o.dir, m, FileKind::DISTANCE), TableIndex(m), FileKind::DISTANCE,
                                     &why, false);
            if (f) left_out[m.name()] = f->left_out_side();
        }
        for (const Position& p : positions) {
            const Material m = Material::of(p);
            const Material n = m.normalized();
            const Color stm = n == m ? p.side_to_move() : ~p.side_to_move();  // the table's colours
            const auto it = left_out.find(n.name());
            const bool recovered = it != left_out.end() && it->second == stm;
            (recovered ? dtm_recovered : dtm_stored).push_back(p);
        }
    }

    std::vector<double> dtm_part_med[2], dtm_part_p99[2];  // side stored, side recovered
    std::vector<double> wdl_cold_med, wdl_cold_p99, wdl_warm_med, dtm_med, dtm_p99, fat_med, fat_p99, root_med,
        root_p99;
    std::vector<double> same_med, same_p99;  // Pythia WDL on fathom's positions
    for (int run = 0; run < o.runs; ++run) {
        std::shuffle(positions.begin(), positions.end(), rng);
        std::shuffle(fathom_positions.begin(), fathom_positions.end(), rng);
        Stats s = stats_of(time_each(
                               positions, [&](const Position& p) { return tbs.probe_wdl(p); }, false),
                           overhead);
        wdl_cold_med.push_back(s.median);
        wdl_cold_p99.push_back(s.p99);
        s = stats_of(time_each(
                         positions, [&](const Position& p) { return tbs.probe_wdl(p); }, true),
                     overhead);
        wdl_warm_med.push_back(s.median);
        s = stats_of(time_each(
                         positions, [&](const Position& p) { return tbs.probe_dtm(p); }, false),
                     overhead);
        dtm_med.push_back(s.median);
        dtm_p99.push_back(s.p99);
        for (int part = 0; part < 2 && !dtm_recovered.empty(); ++part) {
            std::vector<Position>& some = part ? dtm_recovered : dtm_stored;
            std::shuffle(some.begin(), some.end(), rng);
            if (some.empty()) continue;
            s = stats_of(time_each(
                             some, [&](const Position& p) { return tbs.probe_dtm(p); }, false),
                         overhead);
            dtm_part_med[part].push_back(s.median);
            dtm_part_p99[part].push_back(s.p99);
        }
#ifdef PYTHIA_HAVE_FATHOM
        if (!fathom_positions.empty()) {
            auto probe = [](const Position& p) {
                return tb_probe_wdl(p.pieces(WHITE), p.pieces(BLACK), p.pieces(KING), p.pieces(QUEEN), p.pieces(ROOK),
                                    p.pieces(BISHOP), p.pieces(KNIGHT), p.pieces(PAWN), 0, 0, 0,
                                    p.side_to_move() == WHITE);
            };
            s = stats_of(time_each(fathom_positions, probe, false), overhead);
            fat_med.push_back(s.median);
            fat_p99.push_back(s.p99);
            // The ratio compares the same positions: Pythia's own probes of these alone when
            // they are only some of the positions (no 5-piece Syzygy set here).
            if (fathom_positions.size() < positions.size())
                s = stats_of(time_each(
                                 fathom_positions, [&](const Position& p) { return tbs.probe_wdl(p); }, false),
                             overhead);
            else
                s = Stats{wdl_cold_med.back(), wdl_cold_p99.back()};
            same_med.push_back(s.median);
            same_p99.push_back(s.p99);
        }
#endif
        std::vector<Position> roots(positions.begin(), positions.begin() + std::min<size_t>(positions.size(), 2000));
        s = stats_of(time_each(
                         roots, [&](const Position& p) { return tbs.rank_root_moves(p).has_value(); }, false),
                     overhead);
        root_med.push_back(s.median);
        root_p99.push_back(s.p99);
    }
    std::printf("%-34s %10s %10s\n", "", "median", "99th pct");
    std::printf("%-34s %8.0f ns %8.0f ns\n", "Pythia WDL (cold block cache)", median_of(wdl_cold_med),
                median_of(wdl_cold_p99));
    std::printf("%-34s %8.0f ns\n", "Pythia WDL (repeated position)", median_of(wdl_warm_med));
    std::printf("%-34s %8.0f ns %8.0f ns\n", "Pythia DTM", median_of(dtm_med), median_of(dtm_p99));
    for (int part = 0; part < 2; ++part)
        if (!dtm_part_med[part].empty())
            std::printf("%-34s %8.0f ns %8.0f ns  (%zu positions)\n",
                        part ? "  side left out, recovered" : "  side stored", median_of(dtm_part_med[part]),
                        median_of(dtm_part_p99[part]), (part ? dtm_recovered : dtm_stored).size());
    std::printf("%-34s %8.1f us %8.1f us  (%zu positions)\n", "Pythia rank all root moves", median_of(root_med) / 1000,
                median_of(root_p99) / 1000, std::min<size_t>(positions.size(), 2000));
    std::printf("WDL files %s; WDL in memory %.1f MiB, anonymous huge pages %.1f MiB\n",
                o.mapped_wdl ? "mapped (--mapped-wdl)" : "copied into memory", tbs.wdl_memory_bytes() / 1048576.0,
                anonymous_huge_page_bytes() / 1048576.0);
    if (!fat_med.empty()) {
        std::printf("%-34s %8.0f ns %8.0f ns\n", "Syzygy WDL through libfathom", median_of(fat_med),
                    median_of(fat_p99));
        if (fathom_positions.size() < positions.size())
            std::printf("%-34s %8.0f ns %8.0f ns  (%zu positions)\n", "Pythia WDL, the same positions",
                        median_of(same_med), median_of(same_p99), fathom_positions.size());
        std::printf("ratio Pythia WDL / fathom WDL on the same positions: median %.2f, 99th percentile %.2f\n",
                    median_of(same_med) / median_of(fat_med), median_of(same_p99) / median_of(fat_p99));
    }
    return 0;
}
