// `pythia tb generate <MATERIAL...|--all N> [--dir D] [--threads T] [--memory GiB]`: the tables in their final
// form, in one pass. Each table is written to a staging folder, checked there (the `tb verify`
// check) and only then moved into place, so a stopped run resumes where it stopped. Progress
// goes to stderr: one line per table, with the share of the work done and the time left.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>

#include <spdlog/spdlog.h>

#include "engine/cli/tb_args.h"
#include "engine/cli/text_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/generation_driver.h"
#include "tablebase/generate/spill_file.h"
#include "tablebase/generate/table_check.h"
#include "tablebase/generate/table_loader.h"

namespace pythia::cli {

namespace {

using namespace pythia::tb;
namespace fs = std::filesystem;

double peak_memory_gib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024.0 / 1024.0;
}

std::string duration_text(double seconds) {
    char s[32];
    // Seconds while they still tell stages of a table apart, then minutes, then hours.
    if (seconds < 90)
        std::snprintf(s, sizeof s, "%.1f s", seconds);
    else if (seconds < 600)
        std::snprintf(s, sizeof s, "%d min %02d s", int(seconds) / 60, int(seconds) % 60);
    else if (seconds < 5400)
        std::snprintf(s, sizeof s, "%.0f min", seconds / 60);
    else
        std::snprintf(s, sizeof s, "%d h %02d min", int(seconds / 3600), int(seconds / 60) % 60);
    return s;
}

uint64_t file_bytes(const fs::path& p) {
    std::error_code ec;
    const auto n = fs::file_size(p, ec);
    return ec ? 0 : n;
}

// The write id of a table's files in `dir`, 0 if they are not both there and valid (with
// `verify` false, only their headers are checked).
uint64_t stored_write_id(const fs::path& dir, const Material& m, bool verify) {
    if (verify && !table_files_valid(dir, m)) return 0;
    const TableIndex index(m.normalized());
    auto f = TableFile::open(table_file_path(dir, index.material(), FileKind::DISTANCE), index, FileKind::DISTANCE,
                             nullptr, false);
    return f ? f->write_id() : 0;
}

// Staging and spill folders of generators that are no longer running (a run that was killed)
// are removed, but first each spill file there of a table whose files are in the folder, valid
// and of the write it names, moves into `spill_dir` (this run's): the tables it returns.
std::vector<Material> take_over_stale_folders(const fs::path& dir, const fs::path& spill_dir) {
    std::vector<Material> taken;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const size_t prefix = name.starts_with(".staging-") ? 9 : name.starts_with(".spill-") ? 7 : 0;
        if (!entry.is_directory() || !prefix) continue;
        const pid_t pid = pid_t(std::atoll(name.c_str() + prefix));
        if (pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)) continue;  // still running
        if (prefix == 7)
            for (const auto& file : fs::directory_iterator(entry.path(), ec)) {
                if (file.path().extension() != ".spill") continue;
                const auto m = Material::parse(file.path().stem().string());
                if (!m || fs::exists(spill_dir / file.path().filename(), ec)) continue;
                const auto id = spill_file_write_id(file.path(), *m);
                if (!id || *id == 0 || *id != stored_write_id(dir, *m, true)) continue;
                fs::create_directories(spill_dir, ec);
                fs::rename(file.path(), spill_dir / file.path().filename(), ec);
                if (!ec) taken.push_back(*m);
            }
        fs::remove_all(entry.path(), ec);
    }
    return taken;
}

// The share of the work done and the time left, judged by positions (each table's index size):
// a table's generation, write and check all take time in proportion to them, roughly.
class Progress {
public:
    void plan(const std::vector<Material>& tables) {
        for (const Material& m : tables) total_ += double(TableIndex(m).size());
        start_ = std::chrono::steady_clock::now();
        std::fprintf(stderr, "%zu tables to generate\n", tables.size());
    }
    // One line for a table stored.
    void stored(const Material& m, double generation_seconds, const WriteTimes& times, const fs::path& dir) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ += double(TableIndex(m).size());
        stage_seconds_[0] += generation_seconds;
        stage_seconds_[1] += times.write;
        stage_seconds_[2] += times.check;
        const double elapsed = seconds();
        const double share = total_ > 0 ? done_ / total_ : 1;
        const std::string left =
            share > 0 && share < 1 ? ", " + duration_text(elapsed * (1 - share) / share) + " left" : "";
        std::fprintf(stderr, "[%10s] %-8s generated %s, written %s, checked %s: WDL %s, DTM/DTZ %s  (%.1f %%%s)\n",
                     duration_text(elapsed).c_str(), m.name().c_str(), duration_text(generation_seconds).c_str(),
                     duration_text(times.write).c_str(), duration_text(times.check).c_str(),
                     bytes_text(file_bytes(table_file_path(dir, m, FileKind::WDL))).c_str(),
                     bytes_text(file_bytes(table_file_path(dir, m, FileKind::DISTANCE))).c_str(), 100 * share,
                     left.c_str());
    }
    void line(const std::string& text) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::fprintf(stderr, "[%10s] %s\n", duration_text(seconds()).c_str(), text.c_str());
    }
    double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    // "generation 1 h 02 min, writing ..., checking ...": each stage's time summed over the
    // tables (the writer works on one table while the next is generated, so the sum can exceed
    // the wall time).
    std::string stages() {
        std::lock_guard<std::mutex> lock(mutex_);
        return "generation " + duration_text(stage_seconds_[0]) + ", writing " + duration_text(stage_seconds_[1]) +
               ", checking " + duration_text(stage_seconds_[2]);
    }

private:
    std::mutex mutex_;
    double total_ = 0, done_ = 0;
    double stage_seconds_[3] = {0, 0, 0};  // generation, writing, checking
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// --dry-run: the tables a run would generate (those not stored and valid in the folder, and
// what they depend on), in the order it would; nothing is written. The driver runs with tables
// that are only sized, never filled (their pages are never touched), so its memory budget
// decides what it keeps and what it loads back, as in a real run. Prints per table its
// positions per side to move and the tables it would load back (its subtables and those their
// reading needs, from spill files or the folder), with their positions (index size times the
// sides loaded); then the totals, and the
// most the spill files hold at once before compression (the tables as held for conversions: a
// DTM and a bit per position and side). The generator's position bits are not counted (a few %).
int list_planned_tables(const TableArgs& a, size_t memory_budget) {
    std::string loads;
    uint64_t table_loaded = 0, total_loaded = 0, load_count = 0;
    std::mutex spill_mutex;  // spills happen on the writes' thread
    std::map<std::string, uint64_t> spilled;
    uint64_t spilled_bytes = 0, most_spilled_bytes = 0;
    // A table of `m` with `sides` generated (DTM and DTZ) or held for conversions (DTM and bits).
    auto sized = [](const Material& m, uint8_t sides, bool for_conversions) {
        auto t = std::make_shared<TableValues>(m);
        const uint64_t n = t->index.size();
        for (Color c : {WHITE, BLACK})
            if (sides & (1 << c)) {
                t->dtm[c].resize(n);
                if (for_conversions)
                    t->cursed[c].resize((n + 63) / 64);
                else
                    t->dtz[c].resize(n);
            }
        return t;
    };
    TableStore store;
    store.present = [&](const Material& m, std::string* why) { return table_files_valid(a.dir, m, why); };
    store.load = [&](const Material& m, uint8_t sides, const TableSet*, std::string*) {
        const uint64_t positions = TableIndex(m).size() * uint64_t(__builtin_popcount(sides));
        loads.append(" ").append(m.name());
        table_loaded += positions;
        ++load_count;
        return sized(m, sides, true);
    };
    // Tables this run generates are read back from spill files, which need nothing; those in
    // the folder as their files say.
    store.reading_needs = [&](const Material& m, uint8_t sides, bool& needs, std::string* error) {
        needs = false;
        std::lock_guard<std::mutex> lock(spill_mutex);
        return spilled.count(m.name()) || !table_files_valid(a.dir, m) ||
               reading_needs_subtables(a.dir, m, sides, needs, error);
    };
    store.save = [](const TableValues&, double, int) {};
    store.spill = [&](const TableValues& t) {
        std::lock_guard<std::mutex> lock(spill_mutex);
        uint64_t& bytes = spilled[t.index.material().name()];
        spilled_bytes -= bytes;
        uint8_t sides = 0;
        for (Color c : {WHITE, BLACK})
            if (t.has_side(c)) sides |= uint8_t(1 << c);
        bytes = loaded_table_memory(t.index.material(), sides);  // as held for conversions
        spilled_bytes += bytes;
        most_spilled_bytes = std::max(most_spilled_bytes, spilled_bytes);
    };
    store.forget = [&](const Material& m) {
        std::lock_guard<std::mutex> lock(spill_mutex);
        auto it = spilled.find(m.name());
        if (it == spilled.end()) return;
        spilled_bytes -= it->second;
        spilled.erase(it);
    };
    DriverOptions options;
    options.threads = a.threads;
    options.memory_budget = memory_budget;
    options.generate = [&](const Material& m, const TableSet&, const GenerationOptions&) {
        std::printf("%s %llu", m.name().c_str(), (unsigned long long)TableIndex(m).size());
        if (!loads.empty()) std::printf(" loads%s (%llu positions)", loads.c_str(), (unsigned long long)table_loaded);
        std::printf("\n");
        total_loaded += table_loaded;
        loads.clear();
        table_loaded = 0;
        return sized(m, 3, false);
    };
    try {
        generate_tables(a.tables, store, options);
        std::printf("loaded back: %llu tables, %llu positions (memory budget %.1f GiB)\n",
                    (unsigned long long)load_count, (unsigned long long)total_loaded,
                    double(options.memory_budget) / (1 << 30));
        std::printf("spill files: at most %s at once before compression\n", bytes_text(most_spilled_bytes).c_str());
        return EXIT_OK;
    } catch (const std::exception& e) {
        std::cerr << "pythia tb generate --dry-run: " << e.what() << '\n';
        return EXIT_FAILED;
    }
}

}  // namespace

namespace {
TableGeneration& table_generation() {
    static TableGeneration generation;
    return generation;
}
}  // namespace

void set_table_generation(TableGeneration generation) { table_generation() = std::move(generation); }

int tb_generate_command(const Args& args) {
    bool dry_run = false;
    size_t memory_budget = 0;
    // --memory GiB: the driver's budget (default_memory_budget: two thirds of the machine's).
    const Args rest = take_memory_budget(args, memory_budget);
    const TableArgs a =
        parse_table_args(rest, [&](const std::string& flag) { return flag == "--dry-run" && (dry_run = true); });
    if (a.tables.empty()) throw UsageError("which tables? name them or give --all 3, 4 or 5");
    if (dry_run) return list_planned_tables(a, memory_budget);
    check_budget_fits_machine(memory_budget);
    std::error_code ec;
    fs::create_directories(a.dir, ec);
    if (ec) {
        std::cerr << "pythia tb generate: cannot create " << a.dir << ": " << ec.message() << '\n';
        return EXIT_FAILED;
    }
    Progress progress;
    // Tables the driver drops from memory while later ones need them, or spills ahead, are
    // spilled here (this run's own folder, removed when it ends) and read back from there
    // (spill_file.h). A run that was stopped left its own: this one carries on with its files.
    const fs::path spill_dir = a.dir / (".spill-" + std::to_string(getpid()));
    const std::vector<Material> taken_over = take_over_stale_folders(a.dir, spill_dir);
    if (!taken_over.empty())
        spdlog::info("carrying on with the spill files of {} tables from a run that was stopped", taken_over.size());
    struct RemoveWhenDone {
        fs::path dir;
        ~RemoveWhenDone() {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    } remove_spills{spill_dir};
    auto spill_path = [&](const Material& m) { return spill_dir / (m.normalized().name() + ".spill"); };
    TableStore store;
    store.spilled_before = taken_over;
    store.present = [&](const Material& m, std::string* why) { return table_files_valid(a.dir, m, why); };
    store.load = [&](const Material& m, uint8_t sides, const TableSet* subtables,
                     std::string* error) -> std::shared_ptr<TableValues> {
        std::string why;
        if (auto t = read_spill_file(spill_path(m), m, sides, &why)) return t;
        spdlog::debug("{}: loaded from its files ({})", m.name(), why);
        return load_table_values(a.dir, m, error, a.threads, sides, LoadFor::CONVERSIONS, subtables);
    };
    store.reading_needs = [&](const Material& m, uint8_t sides, bool& needs, std::string* error) {
        needs = false;
        return spill_file_holds(spill_path(m), m, sides) || reading_needs_subtables(a.dir, m, sides, needs, error);
    };
    store.spill = [&](const TableValues& t) {
        std::error_code ec;
        fs::create_directories(spill_dir, ec);
        std::string error;
        // The table's files are written by now, unless it leaves memory while its write is
        // under way: such a spill file serves this run only.
        const uint64_t write_id = stored_write_id(a.dir, t.index.material(), false);
        if (!write_spill_file(spill_path(t.index.material()), t, write_id, &error))
            spdlog::warn("{} (it will be loaded from its files)", error);
    };
    store.forget = [&](const Material& m) {
        std::error_code ec;
        fs::remove(spill_path(m), ec);
    };
    // The write check's sample of moves, made while the subtables are at hand, for the write.
    std::mutex samples_mutex;
    std::map<std::string, MovesSample> samples;
    store.check = [&](const TableValues& t, const TableSet& subtables, int threads) {
        MovesSample sample = check_moves_sample(t, subtables, threads);
        std::lock_guard<std::mutex> lock(samples_mutex);
        samples[t.index.material().name()] = std::move(sample);
    };
    store.save = [&](const TableValues& t, double seconds, int threads) {
        const Material& m = t.index.material();
        MovesSample sample;
        {
            std::lock_guard<std::mutex> lock(samples_mutex);
            sample = std::move(samples.at(m.name()));
            samples.erase(m.name());
        }
        // The generator records where captures and promotions resolve a value (TableValues), so
        // the writer needs no subtables to leave those values to the reader: an empty set says so.
        const TableSet recorded;
        std::string error;
        WriteTimes times;
        if (!write_checked_table(t, a.dir, final_form(m, seconds, threads, &recorded), sample, nullptr, &error, &times))
            throw std::runtime_error(error);
        progress.stored(m, seconds, times, a.dir);
    };
    DriverOptions options;
    options.threads = a.threads;
    options.memory_budget = memory_budget;
    options.generate = table_generation();
    options.progress = [&](const std::string& line) { progress.line(line); };
    options.plan = [&](const std::vector<Material>& tables) { progress.plan(tables); };
    try {
        const auto report = generate_tables(a.tables, store, options);
        int generated = 0, skipped = 0;
        for (const auto& r : report) r.skipped ? ++skipped : ++generated;
        std::printf("generated %d tables, %d already present, in %s with %d threads into %s (peak memory %.2f GiB)\n",
                    generated, skipped, duration_text(progress.seconds()).c_str(), a.threads, a.dir.string().c_str(),
                    peak_memory_gib());
        if (generated > 0) std::printf("time per stage, summed over the tables: %s\n", progress.stages().c_str());
        return EXIT_OK;
    } catch (const std::exception& e) {
        std::cerr << "pythia tb generate: " << e.what() << '\n';
        return EXIT_FAILED;
    }
}

}  // namespace pythia::cli
