// tb-six-plan: the figures of tablebase/generate/DISTRIBUTED.md, a plan for making every
// six-piece table on N machines with pythia-mpi, computed from the real index without generating
// anything.
//
//   tb-six-plan [--machines N] [--cores M] [--memory GB] [--samples S] [--seed S]
//               [--fast-rate R] [--slow-rate R] [--write-rate W] [--bandwidth GBps]
//               [--bytes-per-position B] [--decided F] [--tables] [--pieces K] [--planned] [MATERIAL...]
//
// For each table (every six-piece table in dependency order, or the materials given):
// - the share of a frontier position's king un-moves that land in another rank's king pairs, by
//   sampling S positions of the real index (the generator's own decode, encode_moved and rank
//   partition), for N x M ranks (one per core);
// - memory per rank as built: the rank's share of the solver's cells and lists, the subtables
//   every rank holds for conversions, with pawns its share of every slice's values (every value
//   beyond 8 ranks); rank 0 also holds the whole table's values and the writer (it gathers the
//   table and writes it);
// - bytes exchanged: in all (both metrics, a record per crossing un-move of a decided position;
//   --decided is the decided share, 1 = every legal position, a bound) and per round (2^20
//   frontier positions a rank);
// - time: generation at the measured rate per core (R position-sides a core-second, --fast-rate
//   for most tables, --slow-rate for those with three or more like pieces), the
//   exchange at --bandwidth per machine, the write on rank 0's machine at --write-rate per core;
// - disk: --bytes-per-position (both files, a position-side) times the positions.
// The defaults are the rates measured on the 2-core machine of bench/README.md (see
// DISTRIBUTED.md for the runs); --tables prints every table's row, otherwise the set's totals
// and the largest tables. --pieces 5 plans the five-piece tables instead, which one machine
// makes: the model against a measured run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/core/bitboard.h"
#include "tablebase/format/material.h"
#include "tablebase/format/table_index.h"
#include "tablebase/generate/generation_driver.h"
#include "tablebase/generate/generator.h"
#include "tablebase/probe/tb_board.h"

using namespace pythia;
using namespace pythia::tb;

namespace {

constexpr double GIB = double(uint64_t(1) << 30);
constexpr int MAX_SECTIONS = 6;  // WDL, DTM and DTZ of each side: the writer's parallel jobs

struct Options {
    int machines = 4, cores = 2;
    double memory_gb = 24;
    uint64_t samples = 200000;
    uint64_t seed = 1;
    // Measured here (DISTRIBUTED.md, "Time"): position-sides solved a core-second, KQRvKR alone
    // (distinct pieces: 67.1 s, the median of three) and KRRRRvK alone (like pieces: 371 s); position-sides
    // written a core-second over the whole 3-5 set's writes (41.2 G in 6138 s on 2 cores).
    double fast_rate = 1.80e6, slow_rate = 0.791e6, write_rate = 3.36e6;
    double bandwidth_gbps = 1.25;  // 10 Gbit/s Ethernet: an assumption, not measured here
    // The whole 3-5 set's files (bench/README.md, "tablebase sizes"): 3014.3 MiB for 20.6 G
    // positions a side.
    double bytes_per_position = 0.077;
    double decided = 1.0;
    bool every_table = false, planned = false;
    int pieces = 6;  // the set planned when no material is given
    std::vector<Material> tables;
};

struct Plan {
    Material material;
    uint64_t positions = 0, slice = 0;
    int slices = 0, ranks = 0;
    double legal_share = 0;     // legal position-sides of all index position-sides
    double crossing = 0;        // crossing king un-moves per legal position-side
    double worst_crossing = 0;  // the same for the rank that sends the most
    double working = 0, subtables = 0, slice_values = 0, rank0_extra = 0;  // bytes
    double machine = 0, machine0 = 0;  // bytes of a machine's ranks, and of rank 0's machine
    double exchange_bytes = 0, round_bytes = 0;
    double generate_s = 0, exchange_s = 0, write_s = 0;
    bool like_pieces = false, wide = false;
};

// Three or more like pieces: their positions decode slower and their groups rank by the general
// path (KRRRRvK solves about 2.3 times slower a position than KQRvKR here, KRRRvK 1.6 times; a
// pair, as in KRRvKR, costs about a fifth more, which the fast rate absorbs).
bool has_like_pieces(const Material& m) {
    for (Color c : {WHITE, BLACK})
        for (PieceType pt : {QUEEN, ROOK, BISHOP, KNIGHT, PAWN})
            if (m.count(c, pt) >= 3) return true;
    return false;
}

// The rank that owns king pair kp, as the generator splits a slice.
int owner_of(uint64_t kp, const std::vector<uint64_t>& runs) {
    return int(std::upper_bound(runs.begin(), runs.end(), kp) - runs.begin()) - 1;
}

// Memory and time of a sampled plan. As built: every rank holds the subtables, with pawns
// beyond 8 ranks every slice's values, and rank 0 gathers the table and writes it alone.
// Planned (--planned, DISTRIBUTED.md "What a whole set needs"): the subtables once a machine, a
// pawn table's other ranks exchange the mirror of their run instead, and each rank writes its
// part.
void account(Plan& plan, const Options& o, const TableIndex& index, int ranks) {
    const Material& material = plan.material;
    const double values = double(table_values_memory(material));
    plan.working = double(generation_memory(material)) / ranks;
    for (const auto& [sub, sides] : material.successor_sides())
        plan.subtables += double(loaded_table_memory(sub, sides));
    // With pawns, up to 8 ranks keep their own king pairs of every slice (the pawn moves'
    // lookups); beyond 8 every rank gets every slice's values (planned: its run and the run's
    // mirror image).
    if (index.has_pawns()) plan.slice_values = ranks <= 8 ? values / ranks : o.planned ? 2 * values / ranks : values;
    if (o.planned) {
        if (!index.has_pawns()) plan.slice_values = values / ranks;
        plan.rank0_extra = double(writer_memory(plan.positions)) / ranks;
    } else {
        plan.rank0_extra = values - plan.slice_values + double(writer_memory(plan.positions));
    }
    const double per_rank = plan.working + plan.slice_values + (o.planned ? 0 : plan.subtables);
    plan.machine = o.cores * per_rank + (o.planned ? plan.subtables + o.cores * plan.rank0_extra : 0);
    plan.machine0 = o.planned ? plan.machine : plan.machine + plan.rank0_extra;

    // Exchange: a record per crossing un-move of every decided position-side, for DTM and DTZ.
    const double record = plan.wide ? 16 : 8;
    const double decided = 2.0 * double(plan.positions) * plan.legal_share * o.decided;
    plan.exchange_bytes = 2 * decided * plan.crossing * record;
    plan.round_bytes = double(EXCHANGE_ROUND) * plan.worst_crossing * record;

    // Time: the solve spreads over every core; the exchange crosses each machine's link once per
    // record (all records but those between ranks of one machine, a share of 1 / machines). As
    // built the writer runs on rank 0's machine, a section a core (six sections at most); planned
    // every rank writes its part.
    const double rate = plan.like_pieces ? o.slow_rate : o.fast_rate;
    // Only ranks that own king pairs work (462 pawnless: more ranks than that stand idle).
    plan.generate_s = 2.0 * double(plan.positions) / (rate * ranks);
    const double off_machine = o.machines > 1 ? 1.0 - 1.0 / o.machines : 0.0;
    plan.exchange_s = plan.exchange_bytes * off_machine / o.machines / (o.bandwidth_gbps * 1e9);
    const double writers = o.planned ? ranks : std::min(o.cores, MAX_SECTIONS);
    plan.write_s = 2.0 * double(plan.positions) / (o.write_rate * writers);
}

Plan plan_table(const Material& material, const Options& o, std::mt19937_64& rng) {
    Plan plan;
    plan.material = material;
    const TableIndex index(material);
    plan.positions = index.size();
    plan.slice = index.slice_size();
    plan.slices = index.num_slices();
    plan.ranks = o.machines * o.cores;
    plan.like_pieces = has_like_pieces(material);
    plan.wide = needs_wide_position_ids(plan.slice);
    const uint64_t pair_size = index.king_pair_size(), pairs = plan.slice / pair_size;
    const int ranks = int(std::min<uint64_t>(uint64_t(plan.ranks), pairs));
    const std::vector<uint64_t> runs = king_pair_runs(index, ranks);

    // Sample positions uniformly over the slices and king pairs; every king pair holds the same
    // number of index positions, so plain counts are unbiased.
    uint64_t sampled = 0, legal = 0, crossing = 0;
    std::vector<uint64_t> legal_of(size_t(ranks), 0), crossing_of(size_t(ranks), 0);
    std::uniform_int_distribution<uint64_t> any_slice(0, uint64_t(plan.slices) - 1), any_rest(0, pair_size - 1);
    const uint64_t per_pair = std::max<uint64_t>(1, o.samples / pairs);
    for (uint64_t kp = 0; kp < pairs; ++kp) {
        const int owner = owner_of(kp, runs);
        for (uint64_t s = 0; s < per_pair; ++s) {
            const uint64_t base = any_slice(rng) * plan.slice;
            const uint64_t i = base + kp * pair_size + any_rest(rng);
            ++sampled;
            Placement p;
            if (!index.decode(i, p)) continue;
            TbBoard b;
            b.set(index, p);
            for (Color stm : {WHITE, BLACK}) {
                if (b.in_check(~stm)) continue;
                ++legal;
                ++legal_of[size_t(owner)];
                // As collect_predecessors: the king of the side that just moved un-moves to an
                // empty square that does not touch the other king.
                const Color mover = ~stm;
                const int slot = mover == WHITE ? 0 : 1;
                const Square at = p[slot];
                Bitboard origins = king_attacks(at) & ~b.all & ~king_attacks(b.king(stm));
                while (origins) {
                    const Square to = pop_lsb(origins);
                    const uint64_t kq = (index.encode_moved(i, p, slot, to) - base) / pair_size;
                    if (owner_of(kq, runs) != owner) {
                        ++crossing;
                        ++crossing_of[size_t(owner)];
                    }
                }
            }
        }
    }
    plan.legal_share = double(legal) / double(2 * sampled);
    plan.crossing = legal ? double(crossing) / double(legal) : 0;
    for (int r = 0; r < ranks; ++r)
        if (legal_of[size_t(r)])
            plan.worst_crossing =
                std::max(plan.worst_crossing, double(crossing_of[size_t(r)]) / double(legal_of[size_t(r)]));

    account(plan, o, index, ranks);
    return plan;
}

std::string hms(double s) {
    char text[32];
    if (s < 3600)
        std::snprintf(text, sizeof text, "%.0f min", s / 60);
    else if (s < 48 * 3600)
        std::snprintf(text, sizeof text, "%.1f h", s / 3600);
    else
        std::snprintf(text, sizeof text, "%.1f d", s / 86400);
    return text;
}

void print_row(const Plan& p) {
    const double machine_gb = p.machine / GIB;
    std::printf("%-9s %7.3f G %4d %2s %5.1f %% %6.3f %6.3f %8.2f %8.2f %8.1f %9.1f %8.1f %9s %9s %9s\n",
                p.material.name().c_str(), double(p.positions) / 1e9, p.slices, p.wide ? "64" : "32",
                100 * p.legal_share, p.crossing, p.worst_crossing, machine_gb, (p.subtables) / GIB, p.machine0 / GIB,
                p.exchange_bytes / GIB, p.round_bytes / (1 << 20), hms(p.generate_s).c_str(), hms(p.exchange_s).c_str(),
                hms(p.write_s).c_str());
}

int usage() {
    std::fprintf(stderr,
                 "usage: tb-six-plan [--machines N] [--cores M] [--memory GB] [--samples S] [--seed S]\n"
                 "                   [--fast-rate R] [--slow-rate R] [--write-rate W] [--bandwidth GBps]\n"
                 "                   [--bytes-per-position B] [--decided F] [--tables] [--pieces K] [--planned] "
                 "[MATERIAL...]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> double {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "tb-six-plan: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            char* end = nullptr;
            const double v = std::strtod(argv[++i], &end);
            if (!end || *end || !(v > 0) || !std::isfinite(v)) {
                std::fprintf(stderr, "tb-six-plan: %s wants a positive number, not '%s'\n", a.c_str(), argv[i]);
                std::exit(2);
            }
            return v;
        };
        if (a == "--machines")
            o.machines = int(std::clamp(value(), 1.0, 100000.0));
        else if (a == "--cores")
            o.cores = int(std::clamp(value(), 1.0, 4096.0));
        else if (a == "--memory")
            o.memory_gb = value();
        else if (a == "--samples")
            o.samples = uint64_t(std::clamp(value(), 1000.0, 1e9));
        else if (a == "--seed")
            o.seed = uint64_t(value());
        else if (a == "--fast-rate")
            o.fast_rate = value();
        else if (a == "--slow-rate")
            o.slow_rate = value();
        else if (a == "--write-rate")
            o.write_rate = value();
        else if (a == "--bandwidth")
            o.bandwidth_gbps = value();
        else if (a == "--bytes-per-position")
            o.bytes_per_position = value();
        else if (a == "--decided")
            o.decided = std::min(1.0, value());
        else if (a == "--pieces")
            o.pieces = int(std::clamp(value(), 3.0, double(MAX_PIECES)));
        else if (a == "--planned")
            o.planned = true;
        else if (a == "--tables")
            o.every_table = true;
        else if (a == "--help" || a == "-h") {
            usage();
            return 0;
        } else if (a.size() > 1 && a[0] == '-')
            return usage();
        else {
            const auto m = Material::parse(a);
            if (!m || m->total() < 3 || m->total() > MAX_PIECES) {
                std::fprintf(stderr, "tb-six-plan: '%s' is not a material of 3 to 6 pieces such as KQRvKRB\n",
                             a.c_str());
                return 2;
            }
            o.tables.push_back(m->normalized());
        }
    }
    const bool whole_set = o.tables.empty();
    if (whole_set)
        for (const Material& m : all_materials(o.pieces))
            if (m.total() == o.pieces) o.tables.push_back(m);

    std::printf(
        "%d machines of %d cores (%d ranks), %.0f GB each; rates: solve %.2f/%.2f M, write %.2f M "
        "position-sides a core-second; link %.2f GB/s; decided share %.2f\n",
        o.machines, o.cores, o.machines * o.cores, o.memory_gb, o.fast_rate / 1e6, o.slow_rate / 1e6,
        o.write_rate / 1e6, o.bandwidth_gbps, o.decided);
    std::mt19937_64 rng(o.seed);
    std::vector<Plan> plans;
    for (const Material& m : o.tables) plans.push_back(plan_table(m, o, rng));

    const char* header =
        "table     positions  sl id legal  cross  worst mach GiB subt GiB mach0 GiB exch GiB round MiB  "
        "generate  exchange     write\n";
    if (o.every_table || !whole_set) {
        std::printf("%s", header);
        for (const Plan& p : plans) print_row(p);
    }
    if (!whole_set) return 0;

    // The set: tables one after another (each needs the ones it converts into). By class, as the tables
    // differ: pawnless, one pawn, more pawns (whose promotions lead into six-piece tables).
    struct Sum {
        int tables = 0, over = 0;
        double positions = 0, generate = 0, exchange = 0, write = 0, wall = 0, bytes = 0, rank = 0, rank0 = 0;
        const Plan* largest = nullptr;
    };
    Sum sums[4];
    const char* names[4] = {"pawnless", "one pawn", "pawns", "all"};
    for (const Plan& p : plans) {
        const int pawns = p.material.count(WHITE, PAWN) + p.material.count(BLACK, PAWN);
        for (Sum* s : {&sums[std::min(pawns, 2)], &sums[3]}) {
            ++s->tables;
            s->positions += double(p.positions);
            s->generate += p.generate_s;
            s->exchange += p.exchange_s;
            s->write += p.write_s;
            // As built rank 0 writes while the others solve the next table (it shares its machine
            // with them); planned, every rank's cores write, after the solve.
            s->wall +=
                o.planned ? p.generate_s + p.exchange_s + p.write_s : std::max(p.generate_s + p.exchange_s, p.write_s);
            s->bytes += p.exchange_bytes;
            if (p.machine0 > s->rank0) s->largest = &p;
            s->rank = std::max(s->rank, p.machine);
            s->rank0 = std::max(s->rank0, p.machine0);
            if (p.machine0 / 1e9 > o.memory_gb) ++s->over;
        }
    }
    std::printf("%s; a machine's memory is the peak of its %d ranks (rank 0's machine: with the writer)\n",
                o.planned ? "planned" : "as built", o.cores);
    std::printf(
        "class     tables positions    solve exchange    write     wall  exch TiB  mach GiB  mach0 GiB  "
        "over %.0f GB  largest\n",
        o.memory_gb);
    for (const Sum& s : sums)
        std::printf("%-9s %6d %7.1f G %8s %8s %8s %8s %9.1f %9.1f %10.1f %11d  %s\n", names[&s - sums], s.tables,
                    s.positions / 1e9, hms(s.generate).c_str(), hms(s.exchange).c_str(), hms(s.write).c_str(),
                    hms(s.wall).c_str(), s.bytes / GIB / 1024, s.rank / GIB, s.rank0 / GIB, s.over,
                    s.largest ? s.largest->material.name().c_str() : "-");
    std::printf("disk: %.0f GiB (%.2f bytes a position-side)\n", 2 * sums[3].positions * o.bytes_per_position / GIB,
                o.bytes_per_position);
    return 0;
}
