// `pythia tb generate`, `pythia tb verify`, `pythia tb recompress` and `pythia tb rewrite`.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/uci/tb_command.h"
#include "tablebase/generation_driver.h"
#include "tablebase/table_loader.h"
#include "tablebase/table_rewriter.h"
#include "tablebase/table_writer.h"
#include "tablebase/verifier.h"

namespace pythia {

namespace {

using namespace pythia::tb;

struct TbArgs {
    std::vector<Material> tables;
    int all = 0;  // --all N: every table of up to N pieces
    std::filesystem::path dir = PYTHIA_DEFAULT_TB_DIR;
    int threads = std::max(1u, std::thread::hardware_concurrency());
    bool all_stored = false;  // verify --all without a number: every stored table
    bool wdl_only = false;    // --wdl-only: verify, recompress or rewrite the WDL files only
    bool one_side = false;    // rewrite --one-side: DTM and DTZ of one side to move only
    int one_side_pieces = ONE_SIDE_MIN_PIECES;  // rewrite --one-side-pieces: in tables this large
    bool resolve_dtm = false; // rewrite --resolve-dtm: DTM left to captures and promotions where they achieve it, draws to the WDL file
    int resolve_dtm_pieces = RESOLVE_DTM_MIN_PIECES;  // rewrite --resolve-dtm-pieces: in tables this large
    bool dtm_only = false;    // rewrite --dtm-only: the DTM/DTZ file only, the WDL file as it is
    int jobs = 1;             // rewrite --jobs: tables rewritten at once
    bool force = false;       // rewrite --force: also tables whose files already have the form asked for
};

// Parses the shared arguments; prints a message and returns false on a bad one.
bool parse_args(const std::vector<std::string>& args, TbArgs& out, const char* verb) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const char* what) -> const std::string* {
            if (i + 1 >= args.size()) {
                std::cerr << "tb " << verb << ": " << a << " needs " << what << '\n';
                return nullptr;
            }
            return &args[++i];
        };
        // The option's number, from lo to hi, into `target`; false (with a message) if it is
        // missing or out of range.
        auto number = [&](int lo, int hi, int& target) {
            const std::string* v = value("a number");
            if (!v) return false;
            target = std::atoi(v->c_str());
            if (target >= lo && target <= hi) return true;
            std::cerr << "tb " << verb << ": " << a << " must be " << lo << " to " << hi << ", not '" << *v << "'\n";
            return false;
        };
        if (a == "--dir") {
            const std::string* v = value("a folder");
            if (!v) return false;
            out.dir = *v;
        } else if (a == "--threads") {
            if (!number(1, 256, out.threads)) return false;
        } else if (a == "--wdl-only" && (std::string(verb) == "verify" || std::string(verb) == "recompress" ||
                                         std::string(verb) == "rewrite")) {
            out.wdl_only = true;
        } else if (a == "--one-side" && std::string(verb) == "rewrite") {
            out.one_side = true;
        } else if (a == "--one-side-pieces" && std::string(verb) == "rewrite") {
            if (!number(3, 5, out.one_side_pieces)) return false;
        } else if (a == "--resolve-dtm" && std::string(verb) == "rewrite") {
            out.resolve_dtm = true;
        } else if (a == "--resolve-dtm-pieces" && std::string(verb) == "rewrite") {
            if (!number(3, 5, out.resolve_dtm_pieces)) return false;
        } else if (a == "--dtm-only" && std::string(verb) == "rewrite") {
            out.dtm_only = true;
        } else if (a == "--force" && std::string(verb) == "rewrite") {
            out.force = true;
        } else if (a == "--jobs" && std::string(verb) == "rewrite") {
            if (!number(1, 16, out.jobs)) return false;
        } else if (a == "--all") {
            if (i + 1 < args.size() && std::isdigit(static_cast<unsigned char>(args[i + 1][0]))) {
                out.all = std::atoi(args[++i].c_str());
                if (out.all < 3 || out.all > 5) {
                    std::cerr << "tb " << verb << ": --all takes 3, 4 or 5 pieces\n";
                    return false;
                }
            } else {
                out.all_stored = true;
            }
        } else {
            auto m = Material::parse(a);
            if (!m || m->total() < 3 || m->total() > 5) {
                std::cerr << "tb " << verb << ": '" << a << "' is not a material of 3 to 5 pieces such as KQvKR\n";
                return false;
            }
            out.tables.push_back(m->normalized());
        }
    }
    if (out.all)
        for (const Material& m : all_materials(out.all)) out.tables.push_back(m);
    return true;
}

// Every table with a WDL file in the folder, in generation order (`--all` or no table named).
void add_stored_tables(TbArgs& a) {
    for (const Material& m : all_materials(5))
        if (std::filesystem::exists(table_file_path(a.dir, m, FileKind::WDL))) a.tables.push_back(m);
}

double peak_memory_gib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024.0 / 1024.0;
}

void log_line(const std::string& line) { std::cerr << line << std::endl; }

// Calls rewrite(m) for every table of `tables` (in the order given: tables that others convert
// into last), on up to `jobs` threads at once. A rewrite leaves a core idle in its serial parts
// (Re-Pair's second stage, the Huffman codes, packing the blocks), which a second one fills. A
// table starts only after every table of the list that converts into it is done, so that each
// rewrite still finds its subtables as the generator wrote them, and only while the rewrites
// under way fit in two thirds of the machine's memory by their estimates (rewrite_memory), or
// when nothing else runs.
void run_in_dependency_order(const std::vector<Material>& tables, int jobs,
                             const std::function<void(const Material&)>& rewrite) {
    enum State { WAITING, RUNNING, DONE };
    std::vector<State> state(tables.size(), WAITING);
    std::vector<std::vector<size_t>> converting_into(tables.size());  // the tables of the list that lead into each
    for (size_t i = 0; i < tables.size(); ++i)
        for (const Material& s : tables[i].successors())
            for (size_t j = 0; j < tables.size(); ++j)
                if (tables[j] == s.normalized() && j != i) converting_into[j].push_back(i);
    const size_t budget = default_memory_budget();
    size_t in_use = 0;
    int running = 0;
    std::mutex mutex;
    std::condition_variable changed;
    auto next_table = [&]() -> std::optional<size_t> {  // under the lock
        for (size_t k = 0; k < tables.size(); ++k) {
            if (state[k] != WAITING) continue;
            const bool ready = std::all_of(converting_into[k].begin(), converting_into[k].end(),
                                           [&](size_t i) { return state[i] == DONE; });
            if (ready && (running == 0 || in_use + rewrite_memory(tables[k]) <= budget)) return k;
        }
        return std::nullopt;
    };
    auto worker = [&] {
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            if (std::none_of(state.begin(), state.end(), [](State s) { return s == WAITING; })) return;
            const std::optional<size_t> k = next_table();
            if (!k) {
                changed.wait(lock);
                continue;
            }
            state[*k] = RUNNING;
            ++running;
            const size_t bytes = rewrite_memory(tables[*k]);
            in_use += bytes;
            lock.unlock();
            rewrite(tables[*k]);
            lock.lock();
            state[*k] = DONE;
            --running;
            in_use -= bytes;
            changed.notify_all();
        }
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
}

}  // namespace

int tb_generate_command(const std::vector<std::string>& args) {
    TbArgs a;
    if (!parse_args(args, a, "generate")) return 2;
    if (a.tables.empty()) {
        std::cerr << "usage: pythia tb generate <MATERIAL...|--all N> [--dir D] [--threads T]\n";
        return 2;
    }
    TableStore store;
    store.present = [&](const Material& m, std::string* why) { return table_files_valid(a.dir, m, why); };
    store.load = [&](const Material& m, uint8_t sides, std::string* error) {
        return load_table_values(a.dir, m, error, a.threads, sides, LoadFor::LEGAL_LOOKUPS);
    };
    store.save = [&](const TableValues& t, const TableSet& subtables, double seconds, int threads) {
        GenerationInfo info;
        info.seconds = seconds;
        info.threads = threads;
        info.subtables = &subtables;
        std::string error;
        if (!write_table_files(t, a.dir, info, &error)) throw std::runtime_error(error);
    };
    DriverOptions options;
    options.threads = a.threads;
    const auto start = std::chrono::steady_clock::now();
    options.progress = [&](const std::string& line) {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        char prefix[32];
        std::snprintf(prefix, sizeof prefix, "[%7.1f s] ", s);
        log_line(prefix + line);
    };
    try {
        auto report = generate_tables(a.tables, store, options);
        int generated = 0, skipped = 0;
        for (const auto& r : report) r.skipped ? ++skipped : ++generated;
        double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("generated %d tables, %d already present, in %.1f s with %d threads into %s (peak memory %.2f GiB)\n",
                    generated, skipped, total, a.threads, a.dir.string().c_str(), peak_memory_gib());
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "tb generate: " << e.what() << '\n';
        return 1;
    }
}

int tb_verify_command(const std::vector<std::string>& args) {
    TbArgs a;
    if (!parse_args(args, a, "verify")) return 2;
    if (a.all_stored || a.tables.empty()) {
        // Every table stored in the folder.
        for (const Material& m : all_materials(5))
            if (table_files_valid(a.dir, m)) a.tables.push_back(m);
        if (a.tables.empty()) {
            std::cerr << "tb verify: no valid tables in " << a.dir << '\n';
            return 1;
        }
    }
    int failures = 0;
    for (const Material& m : a.tables) {
        const auto start = std::chrono::steady_clock::now();
        std::string error;
        TableSet subtables;
        if (!load_subtables(a.dir, m, subtables, &error, a.threads)) {
            std::printf("%-8s FAILED: a subtable: %s\n", m.name().c_str(), error.c_str());
            ++failures;
            continue;
        }
        // A side a one-sided file leaves out is recovered by the rule checked below, so only
        // the stored side's values are really checked against their moves there.
        auto table = load_table_values(a.dir, m, &error, a.threads, 3, LoadFor::EVERY_POSITION, &subtables);
        if (!table) {
            std::printf("%-8s FAILED: %s\n", m.name().c_str(), error.c_str());
            ++failures;
            continue;
        }
        // DTM and DTZ against the moves, then the WDL file against the DTZ.
        VerifyReport r;
        if (!a.wdl_only) r = verify_table(*table, subtables, a.threads);
        std::array<ValueArray, COLOR_NB> wdl;
        std::array<uint8_t, COLOR_NB> wdl_flags{};
        if (!load_wdl_symbols(a.dir, m, wdl, wdl_flags, &error, a.threads)) {
            std::printf("%-8s FAILED: %s\n", m.name().c_str(), error.c_str());
            ++failures;
            continue;
        }
        const VerifyReport w = verify_wdl(*table, wdl, wdl_flags, subtables, a.threads);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const bool failed = r.mismatches || w.mismatches;
        if (a.wdl_only)
            std::printf("%-8s %s: WDL file: %llu positions, %llu differ from DTZ (%.1f s)\n", m.name().c_str(),
                        failed ? "FAILED" : "ok", (unsigned long long)w.positions, (unsigned long long)w.mismatches,
                        s);
        else
            std::printf("%-8s %s: %llu positions, %llu inconsistent; WDL file: %llu differ from DTZ (%.1f s)\n",
                        m.name().c_str(), failed ? "FAILED" : "ok", (unsigned long long)r.positions,
                        (unsigned long long)r.mismatches, (unsigned long long)w.mismatches, s);
        for (const auto& e : r.examples) std::printf("    %s\n", e.c_str());
        for (const auto& e : w.examples) std::printf("    %s\n", e.c_str());
        if (failed) ++failures;
        std::fflush(stdout);
    }
    std::printf("%zu tables verified, %d failed\n", a.tables.size(), failures);
    return failures ? 1 : 0;
}

int tb_recompress_command(const std::vector<std::string>& args) {
    TbArgs a;
    if (!parse_args(args, a, "recompress")) return 2;
    if (a.all_stored || a.tables.empty()) add_stored_tables(a);
    std::vector<FileKind> kinds = {FileKind::WDL};
    if (!a.wdl_only) kinds.push_back(FileKind::DISTANCE);
    int failures = 0, files = 0;
    uint64_t old_total = 0, new_total = 0;
    for (const Material& m : a.tables) {
        for (FileKind kind : kinds) {
            const char* what = kind == FileKind::WDL ? "WDL" : "DTM/DTZ";
            const auto start = std::chrono::steady_clock::now();
            RecompressResult r;
            std::string error;
            ++files;
            if (!recompress_table_file(a.dir, m, kind, a.threads, &r, &error)) {
                std::printf("%-8s %-7s FAILED: %s\n", m.name().c_str(), what, error.c_str());
                ++failures;
                continue;
            }
            old_total += r.old_bytes;
            new_total += r.new_bytes;
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (r.already_current)
                std::printf("%-8s %-7s already current (%llu bytes)\n", m.name().c_str(), what,
                            (unsigned long long)r.old_bytes);
            else
                std::printf("%-8s %-7s %llu -> %llu bytes (%.2fx smaller, %.1f s)\n", m.name().c_str(), what,
                            (unsigned long long)r.old_bytes, (unsigned long long)r.new_bytes,
                            double(r.old_bytes) / double(r.new_bytes), s);
            std::fflush(stdout);
        }
    }
    std::printf("%d files, %d failed: %llu -> %llu bytes\n", files, failures, (unsigned long long)old_total,
                (unsigned long long)new_total);
    return failures ? 1 : 0;
}

int tb_rewrite_command(const std::vector<std::string>& args) {
    TbArgs a;
    if (!parse_args(args, a, "rewrite")) return 2;
    if (a.wdl_only && (a.one_side || a.resolve_dtm)) {
        std::cerr << "tb rewrite: --wdl-only leaves the DTM/DTZ file as it is; --one-side and --resolve-dtm change it\n";
        return 2;
    }
    if (a.wdl_only && a.dtm_only) {
        std::cerr << "tb rewrite: --wdl-only and --dtm-only exclude each other\n";
        return 2;
    }
    if (a.all_stored || a.tables.empty()) add_stored_tables(a);
    // Tables that others convert into last: each rewrite then loads its subtables as the generator
    // wrote them (both sides, exact), not files that leave a side or DTM to be recovered first,
    // which costs a pass over every position of each such subtable (and of its own subtables).
    const std::vector<Material> generation_order = all_materials(5);
    auto rank = [&](const Material& m) {
        return std::find(generation_order.begin(), generation_order.end(), m) - generation_order.begin();
    };
    std::stable_sort(a.tables.begin(), a.tables.end(),
                     [&](const Material& x, const Material& y) { return rank(x) > rank(y); });
    RewriteOptions options;
    options.threads = a.threads;
    options.one_side_distances = a.one_side;
    options.one_side_min_pieces = a.one_side_pieces;
    options.moves_resolved_dtm = a.resolve_dtm;
    options.resolve_dtm_min_pieces = a.resolve_dtm_pieces;
    options.wdl_only = a.wdl_only;
    options.distances_only = a.dtm_only;
    // Tables a rewrite already gave this form are left as they are (a stopped `--all` carries on),
    // unless --force. They leave the list, so no other table waits for them.
    size_t skipped = 0;
    if (!a.force)
        std::erase_if(a.tables, [&](const Material& m) {
            if (!already_rewritten(a.dir, m, options)) return false;
            std::printf("%-8s already rewritten (--force rewrites it again)\n", m.name().c_str());
            ++skipped;
            return true;
        });
    std::fflush(stdout);
    int failures = 0;
    uint64_t old_wdl = 0, old_dist = 0, new_wdl = 0, new_dist = 0;
    std::mutex mutex;  // the counters above and stdout
    auto rewrite = [&](const Material& m) {
        const auto start = std::chrono::steady_clock::now();
        RewriteResult r;
        std::string error;
        const bool ok =
            rewrite_table_files(a.dir, m, options, &r, &error);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::lock_guard<std::mutex> lock(mutex);
        if (!ok) {
            std::printf("%-8s FAILED: %s\n", m.name().c_str(), error.c_str());
            ++failures;
        } else {
            old_wdl += r.old_wdl_bytes;
            old_dist += r.old_distance_bytes;
            new_wdl += r.new_wdl_bytes;
            new_dist += r.new_distance_bytes;
            std::printf("%-8s WDL %llu -> %llu bytes, DTM/DTZ %llu -> %llu bytes (%.1f s)\n", m.name().c_str(),
                        (unsigned long long)r.old_wdl_bytes, (unsigned long long)r.new_wdl_bytes,
                        (unsigned long long)r.old_distance_bytes, (unsigned long long)r.new_distance_bytes, s);
        }
        std::fflush(stdout);
    };
    run_in_dependency_order(a.tables, a.jobs, rewrite);
    std::printf("%zu tables, %d failed, %zu already rewritten: WDL %llu -> %llu bytes, DTM/DTZ %llu -> %llu bytes\n",
                a.tables.size() + skipped, failures, skipped,
                (unsigned long long)old_wdl, (unsigned long long)new_wdl, (unsigned long long)old_dist,
                (unsigned long long)new_dist);
    return failures ? 1 : 0;
}

}  // namespace pythia
