#include "tablebase/table_rewriter.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "tablebase/parallel.h"
#include "tablebase/table_file.h"
#include "tablebase/table_loader.h"
#include "tablebase/table_writer.h"
#include "tablebase/verifier.h"

#include <spdlog/spdlog.h>

namespace pythia::tb {

namespace {

constexpr const char* TEMP_PREFIX = ".rewrite-";

// Removes what an interrupted rewrite left in `dir`: a temporary folder (".rewrite-<pid>-<table>")
// whose process is gone.
void remove_stale_temporaries(const std::filesystem::path& dir) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(TEMP_PREFIX, 0) != 0) continue;
        const long pid = std::atol(name.c_str() + std::strlen(TEMP_PREFIX));
        if (pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) std::filesystem::remove_all(e.path(), ec);
    }
}

}  // namespace

size_t rewrite_memory(const Material& material) {
    const Material m = material.normalized();
    size_t bytes = size_t(TableIndex(m).size()) * 24;
    for (const auto& [s, sides] : m.successor_sides())
        if (s.total() > 2) bytes += size_t(TableIndex(s).size()) * 4 * size_t(__builtin_popcount(sides));
    return bytes;
}

bool already_rewritten(const std::filesystem::path& dir, const Material& material, const RewriteOptions& options) {
    const Material m = material.normalized();
    const TableIndex index(m);
    std::string why;
    auto wdl = TableFile::open(table_file_path(dir, m, FileKind::WDL), index, FileKind::WDL, &why, false);
    auto dist = TableFile::open(table_file_path(dir, m, FileKind::DISTANCE), index, FileKind::DISTANCE, &why, false);
    if (!wdl || !dist || wdl->write_id() != dist->write_id()) return false;
    auto current = [](const TableFile& f) {
        return f.version() == FORMAT_VERSION &&
               std::all_of(f.sections().begin(), f.sections().end(),
                           [&](const Section& s) { return pairs_current(f, s, FORMAT_VERSION); });
    };
    // The generator's WDL sections are in the pair codec already: only the DTM/DTZ file tells.
    if (options.wdl_only || (!options.distances_only && !current(*wdl))) return false;
    if (!current(*dist)) return false;
    if (dist->left_out_side().has_value() != one_side_for(m, options)) return false;
    for (const Section& s : dist->sections())
        if (Metric(s.h.metric) == Metric::DTM && bool(s.h.flags & FLAG_MOVES_RESOLVED) != resolve_dtm_for(m, options))
            return false;
    // `tb recompress` also writes pairs of both sides, exact, but keeps the index's order.
    if (!one_side_for(m, options) && !resolve_dtm_for(m, options))
        return std::any_of(dist->sections().begin(), dist->sections().end(),
                           [](const Section& s) { return s.h.storage_order != 0; });
    return true;
}

bool rewrite_table_files(const std::filesystem::path& dir, const Material& material, const RewriteOptions& options,
                         RewriteResult* result, std::string* error) {
    const int threads = options.threads > 0 ? options.threads : default_threads();
    const Material m = material.normalized();
    const TableIndex index(m);
    const auto wdl_path = table_file_path(dir, m, FileKind::WDL);
    const auto dist_path = table_file_path(dir, m, FileKind::DISTANCE);
    auto fail = [&](const std::filesystem::path& file, const std::string& message) {
        if (error) *error = file.string() + ": " + message;
        return false;
    };
    if (options.wdl_only && (options.one_side_distances || options.moves_resolved_dtm))
        return fail(wdl_path, "a rewrite of the WDL file alone cannot change how DTM and DTZ are stored");
    if (options.wdl_only && options.distances_only)
        return fail(wdl_path, "the WDL file alone and the DTM/DTZ file alone exclude each other");
    std::string why;
    RewriteResult r;
    GenerationInfo info;
    {
        auto old_wdl = TableFile::open(wdl_path, index, FileKind::WDL, &why);
        if (!old_wdl) return fail(wdl_path, why);
        auto old_dist = TableFile::open(dist_path, index, FileKind::DISTANCE, &why);
        if (!old_dist) return fail(dist_path, why);
        if (old_wdl->write_id() != old_dist->write_id())
            return fail(wdl_path, "does not belong to the same write as its DTM/DTZ file");
        if (options.wdl_only)
            for (const Section& sec : old_dist->sections())
                if (sec.h.flags & FLAG_DRAWS_IN_WDL)
                    return fail(wdl_path, "its DTM/DTZ file reads its draws from it: rewrite both files, not the WDL file alone");
        info.write_id = old_wdl->write_id();
        r.old_wdl_bytes = old_wdl->file_size();
        r.old_distance_bytes = old_dist->file_size();
        if (const auto& s = old_wdl->statistics()) {
            info.seconds = s->generation_seconds;
            info.generation_threads = int(s->generation_threads);
        }
    }
    // Each step's time goes to the log: on a 5-piece table a rewrite takes minutes.
    auto step_start = std::chrono::steady_clock::now();
    auto step_done = [&](const char* what) {
        const auto now = std::chrono::steady_clock::now();
        spdlog::info("{}: {} in {:.1f} s", m.name(), what, std::chrono::duration<double>(now - step_start).count());
        step_start = now;
    };
    TableSet subtables;
    if (!load_subtables(dir, m, subtables, error, threads)) return false;
    step_done("subtables loaded");
    auto table = load_table_values(dir, m, error, threads, 3, LoadFor::EVERY_POSITION, &subtables);
    if (!table) return false;
    step_done("table loaded");
    {
        if (!options.distances_only) {  // the WDL's don't-cares; the DTM/DTZ file has none of these
            const auto decided = search_capture_resolved(*table, subtables, threads);
            const auto promoted = search_promotion_resolved(*table, subtables, threads);
            for (Color c : {WHITE, BLACK}) {
                table->capture_resolved[c] = decided[c];
                table->promotion_resolved[c] = promoted[c];
            }
            step_done("captures and promotions searched");
        }
        info.threads = threads;
        info.subtables = &subtables;  // with the records above they are not searched again
        info.wdl_codec = Codec::PAIRS;
        info.distance_codec = Codec::PAIRS;
        info.choose_storage_order = true;
        info.one_side_distances = one_side_for(m, options);
        info.moves_resolved_dtm = resolve_dtm_for(m, options);
        info.wdl_file_only = options.wdl_only;
        info.distance_file_only = options.distances_only;
        // The DTM/DTZ file alone leaves its draws to the WDL file that stays: where it stores them.
        std::array<PositionBits, COLOR_NB> old_wdl_draws;
        if (options.distances_only && resolve_dtm_for(m, options)) {
            for (Color c : {WHITE, BLACK})
                if (!stored_wdl_draws(dir, m, c, info.write_id, old_wdl_draws[c], error, threads)) return false;
            info.stored_wdl_draws = &old_wdl_draws;
        }
        // Written beside the old files, checked, then moved over them.
        remove_stale_temporaries(dir);
        // One folder per process and table: `tb rewrite --jobs` rewrites several tables at once.
        const auto temp = dir / (TEMP_PREFIX + std::to_string(getpid()) + "-" + m.name());
        std::error_code ec;
        std::filesystem::remove_all(temp, ec);
        auto cleanup = [&] { std::filesystem::remove_all(temp, ec); };
        if (!write_table_files(*table, temp, info, error)) {
            cleanup();
            return false;
        }
        step_done("written");
        bool same = true;
        if (options.distances_only) {
            // The loader pairs the new DTM/DTZ file with the WDL file beside it: the old one.
            std::filesystem::create_hard_link(wdl_path, table_file_path(temp, m, FileKind::WDL), ec);
            if (ec) std::filesystem::copy_file(wdl_path, table_file_path(temp, m, FileKind::WDL), ec);
            if (ec) {
                cleanup();
                return fail(wdl_path, "cannot put it beside the rewritten DTM/DTZ file: " + ec.message());
            }
        }
        if (!options.wdl_only) {
            // A side left out is recovered here, by the prober's rule: compared like the others.
            auto again = load_table_values(temp, m, error, threads, 3, LoadFor::EVERY_POSITION, &subtables);
            same = again != nullptr;
            for (Color c : {WHITE, BLACK})
                same = same && again->dtm[c] == table->dtm[c] && again->dtz[c] == table->dtz[c];
            step_done("DTM and DTZ read back and compared");
        }
        std::array<ValueArray, COLOR_NB> wdl;
        std::array<uint8_t, COLOR_NB> resolved{};
        // What the prober will answer from the new WDL file, its moves included, is the DTZ's WDL.
        if (!options.distances_only)
            same = same && load_wdl_symbols(temp, m, wdl, resolved, error, threads) &&
                   verify_wdl(*table, wdl, resolved, subtables, threads).mismatches == 0;
        if (!options.distances_only) step_done("WDL read back and checked");
        if (!same) {
            cleanup();
            return fail(dist_path, "the rewritten files do not hold the stored values: old files left as they are");
        }
        for (FileKind kind : {FileKind::DISTANCE, FileKind::WDL}) {
            if (kind == FileKind::DISTANCE && options.wdl_only) continue;
            if (kind == FileKind::WDL && options.distances_only) continue;
            std::filesystem::rename(table_file_path(temp, m, kind), table_file_path(dir, m, kind), ec);
            if (ec) {
                cleanup();
                return fail(table_file_path(dir, m, kind), "cannot move the rewritten file into place: " + ec.message());
            }
        }
        cleanup();
    }
    r.new_wdl_bytes = std::filesystem::file_size(wdl_path);
    r.new_distance_bytes = std::filesystem::file_size(dist_path);
    if (result) *result = r;
    return true;
}

}  // namespace pythia::tb
