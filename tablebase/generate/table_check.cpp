#include "tablebase/generate/table_check.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>

#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/verifier.h"

namespace pythia::tb {

std::string TableCheck::summary(bool wdl_only) const {
    if (!problem.empty()) return "FAILED: " + problem;
    const std::string verdict = ok ? "ok" : "FAILED";
    if (wdl_only)
        return verdict + ": WDL file: " + std::to_string(wdl_positions) + " positions, " +
               std::to_string(wdl_mismatches) + " differ from DTZ";
    return verdict + ": " + std::to_string(positions) + " positions, " + std::to_string(inconsistent) +
           " inconsistent; WDL file: " + std::to_string(wdl_mismatches) + " differ from DTZ";
}

TableCheck check_stored_table(const std::filesystem::path& dir, const Material& material, const TableSet& subtables,
                              int threads, bool wdl_only, std::shared_ptr<const TableValues>* read) {
    TableCheck check;
    auto seconds_since = [](auto start) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    auto start = std::chrono::steady_clock::now();
    std::optional<Color> recovered;
    auto table =
        load_table_values(dir, material, &check.problem, threads, 3, LoadFor::EVERY_POSITION, &subtables, &recovered);
    if (!table) return check;
    spdlog::debug("{}: DTM and DTZ read back in {:.1f} s", material.name(), seconds_since(start));
    if (!wdl_only) {
        start = std::chrono::steady_clock::now();
        // A side the file leaves out was recovered from the stored one by the very rule checked
        // here: only the stored side needs computing again, against it.
        const uint8_t recompute = recovered ? uint8_t(1 << ~*recovered) : uint8_t(3);
        VerifyReport r = verify_table(*table, subtables, threads, recompute);
        check.positions = r.positions;
        check.inconsistent = r.mismatches;
        check.examples = std::move(r.examples);
        spdlog::debug("{}: DTM and DTZ checked against the moves in {:.1f} s", material.name(), seconds_since(start));
    }
    start = std::chrono::steady_clock::now();
    std::array<ValueArray, COLOR_NB> wdl;
    std::array<uint8_t, COLOR_NB> flags{};
    if (!load_wdl_symbols(dir, material, wdl, flags, &check.problem, threads)) return check;
    VerifyReport w = verify_wdl(*table, wdl, flags, subtables, threads);
    spdlog::debug("{}: WDL read back and checked in {:.1f} s", material.name(), seconds_since(start));
    check.wdl_positions = w.positions;
    check.wdl_mismatches = w.mismatches;
    check.examples.insert(check.examples.end(), w.examples.begin(), w.examples.end());
    check.ok = check.inconsistent == 0 && check.wdl_mismatches == 0;
    if (read) *read = std::move(table);
    return check;
}

bool write_checked_table(const TableValues& table, const std::filesystem::path& dir, const GenerationInfo& info,
                         const MovesSample& moves, WriteCheck* check, std::string* error, WriteTimes* times) {
    namespace fs = std::filesystem;
    const Material& m = table.index.material();
    auto fail = [&](const std::string& message) {
        if (error) *error = m.name() + ": " + message;
        return false;
    };
    // One staging folder per process, so that two generators on one folder never share files.
    const fs::path staging = dir / (".staging-" + std::to_string(getpid()));
    const fs::path staged[2] = {table_file_path(staging, m, FileKind::DISTANCE),
                                table_file_path(staging, m, FileKind::WDL)};
    auto clean_up = [&] {
        std::error_code ec;
        for (const fs::path& p : staged) fs::remove(p, ec);
        fs::remove(staging, ec);  // only if empty: another table of this process may be staged there
    };
    if (moves.inconsistent) {
        WriteCheck c;
        c.sampled = moves.sampled;
        c.inconsistent = moves.inconsistent;
        c.examples = moves.examples;
        if (check) *check = c;
        std::string message = "failed its check, not stored: " + c.summary();
        for (const std::string& e : c.examples) message += "\n    " + e;
        return fail(message);
    }
    std::string why;
    const auto start = std::chrono::steady_clock::now();
    WrittenBounds bounds;
    if (!write_table_files(table, staging, info, &why, &bounds)) {
        clean_up();
        return fail(why);
    }
    const auto written = std::chrono::steady_clock::now();
    const WriteCheck c = check_written_table(staging, dir, table, bounds, moves, std::max(1, info.threads));
    const WriteTimes spent{
        std::chrono::duration<double>(written - start).count(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - written).count() + moves.seconds};
    if (times) *times = spent;
    spdlog::debug("{}: written in {:.1f} s, checked in {:.1f} s", m.name(), spent.write, spent.check);
    if (check) *check = c;
    if (!c.ok) {
        clean_up();
        std::string message = "failed its check, not stored: " + c.summary();
        for (const std::string& e : c.examples) message += "\n    " + e;
        return fail(message);
    }
    std::error_code ec;
    for (const fs::path& p : staged) {
        fs::rename(p, dir / p.filename(), ec);
        if (ec) {
            clean_up();
            return fail("cannot move " + p.string() + " into " + dir.string() + ": " + ec.message());
        }
    }
    clean_up();
    return true;
}

}  // namespace pythia::tb
