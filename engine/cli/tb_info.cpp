// `pythia tb info [MATERIAL...] [--dir D]`: positions, outcome counts, the longest DTM and DTZ
// with an example, generation time and file sizes of stored tables. Everything comes from the
// statistics the writer stored in the WDL file's header, so this is instant.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/command.h"
#include "engine/cli/text_format.h"
#include "engine/core/data_paths.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/table_statistics.h"

namespace pythia::cli {

namespace {

using namespace pythia::tb;
namespace fs = std::filesystem;

std::string percent(uint64_t part, uint64_t whole) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f%%", whole ? 100.0 * part / whole : 0.0);
    return s;
}

// Prints one extreme, with `what` as the label of the first line printed for it.
void print_longest(const char*& what, const TableIndex& index, Color stm, uint16_t plies, uint64_t at, bool win,
                   bool dtm) {
    if (at == UINT64_MAX) return;
    std::string text;
    if (dtm)
        text = (win ? "mate in " + std::to_string((plies + 1) / 2) : "mated in " + std::to_string(plies / 2)) + " (" +
               std::to_string(plies) + " plies)";
    else
        text = (win ? "win, " : "loss, ") + std::to_string(plies) + " plies to zeroing";
    std::printf("    %-12s %-30s %s\n", what, text.c_str(), index_fen(index, at, stm).c_str());
    what = "";
}

// Bytes of the tables printed, for the summary line.
struct Totals {
    int tables = 0;
    uint64_t wdl_files = 0, distance_files = 0;
    uint64_t metric_sections[3] = {};  // WDL, DTM, DTZ: compressed bytes of the sections
};

// Prints one table and adds it to `totals`; returns false (after saying why) if its files are
// missing or refused.
bool print_table(const std::vector<fs::path>& dirs, const Material& m, Totals& totals) {
    fs::path files[2];
    for (const fs::path& dir : dirs)
        for (FileKind kind : {FileKind::WDL, FileKind::DISTANCE}) {
            fs::path p = table_file_path(dir, m, kind);
            std::error_code ec;
            fs::path& slot = files[kind == FileKind::WDL ? 0 : 1];
            if (slot.empty() && fs::exists(p, ec)) slot = p;
        }
    if (files[0].empty()) {
        std::cerr << "tb info: " << m.name() << ": no WDL file " << m.name() << WDL_EXTENSION << " found\n";
        return false;
    }
    const TableIndex index(m);
    std::string error;
    // The header (with its checksum) is checked; the payload checksum is left to `tb verify`.
    auto wdl = TableFile::open(files[0], index, FileKind::WDL, &error, false);
    if (!wdl) {
        std::cerr << "tb info: " << files[0].string() << ": " << error << '\n';
        return false;
    }
    std::unique_ptr<TableFile> dist;
    if (!files[1].empty()) {
        dist = TableFile::open(files[1], index, FileKind::DISTANCE, &error, false);
        if (!dist) {
            std::cerr << "tb info: " << files[1].string() << ": " << error << '\n';
            return false;
        }
    }
    ++totals.tables;
    totals.wdl_files += wdl->file_size();
    if (dist) totals.distance_files += dist->file_size();
    std::printf("%s: %llu positions per side to move\n", m.name().c_str(), (unsigned long long)index.size());
    const auto& stats = wdl->statistics();
    const uint64_t legal = stats ? stats->side[0].legal + stats->side[1].legal : 0;
    char line[256];
    std::snprintf(line, sizeof line, "  files        %s %s%s%s", files[0].filename().c_str(),
                  bytes_text(wdl->file_size()).c_str(),
                  dist ? (", " + files[1].filename().string() + " ").c_str() : ", no DTM/DTZ file",
                  dist ? bytes_text(dist->file_size()).c_str() : "");
    std::fputs(line, stdout);
    if (legal)
        std::printf(" (%.3f and %.2f bits per legal position)", 8.0 * wdl->file_size() / legal,
                    dist ? 8.0 * dist->file_size() / legal : 0.0);
    std::printf("\n");
    if (dist && dist->write_id() != wdl->write_id())
        std::printf("  warning      the two files come from different writes\n");
    // Each section's codec, storage order (most significant digit first; "KK" is the king
    // pair, "P" the pawn slice, lower case Black's pieces) and compressed size.
    std::string sections;
    for (const TableFile* f : {wdl.get(), dist.get()}) {
        if (!f) continue;
        for (const Section& s : f->sections()) {
            static const char* metric[] = {"WDL", "DTM", "DTZ"};
            totals.metric_sections[s.h.metric] += s.h.compressed_bytes;
            if (!sections.empty()) sections += "; ";
            sections += metric[s.h.metric];
            sections += s.side() == WHITE ? " w " : " b ";
            sections += s.bits() == 0 ? "constant" : (s.pairs ? "pairs" : "lz4");
            sections += " [" + s.order.describe(index) + "]";
            if (s.bits() != 0) {
                sections += ' ';
                sections += bytes_text(s.h.compressed_bytes);
            }
            if (s.h.flags & FLAG_MOVES_RESOLVED) sections += " captures and promotions resolved";
            if (s.h.flags & FLAG_DRAWS_IN_WDL) sections += ", draws from the WDL file";
            if (s.h.flags & FLAG_PROMOTIONS_RESOLVED) sections += " queen promotions resolved";
        }
    }
    if (dist && dist->left_out_side())
        sections += std::string("; DTM and DTZ ") + (*dist->left_out_side() == WHITE ? "w" : "b") +
                    " recovered from the other side by one ply";
    std::printf("  sections     %s\n", sections.c_str());
    if (!stats) return true;

    const std::time_t when = std::time_t(stats->written_unix_time);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&when));
    std::printf("  generated    in %.1f s with %u thread%s; written %s (compression %.1f s)\n",
                stats->generation_seconds, stats->generation_threads, stats->generation_threads == 1 ? "" : "s", date,
                stats->write_seconds);
    for (Color c : {WHITE, BLACK}) {
        const SideStatistics& s = stats->side[c];
        std::printf("  %s to move: %llu legal positions\n", c == WHITE ? "white" : "black",
                    (unsigned long long)s.legal);
        static const char* names[] = {"loss", "blessed loss", "draw", "cursed win", "win"};
        std::string counts;
        for (int k = 4; k >= 0; --k)
            counts += std::string(k < 4 ? ", " : "") + names[k] + " " + std::to_string(s.wdl_count[k]) + " (" +
                      percent(s.wdl_count[k], s.legal) + ")";
        std::printf("    %s; checkmated %llu\n", counts.c_str(), (unsigned long long)s.mated);
        const char* label = "longest DTM";
        print_longest(label, index, c, s.longest_dtm_win, s.longest_dtm_win_index, true, true);
        print_longest(label, index, c, s.longest_dtm_loss, s.longest_dtm_loss_index, false, true);
        label = "longest DTZ";
        print_longest(label, index, c, s.longest_dtz_win, s.longest_dtz_win_index, true, false);
        print_longest(label, index, c, s.longest_dtz_loss, s.longest_dtz_loss_index, false, false);
    }
    return true;
}

}  // namespace

int tb_info_command(const Args& args) {
    std::string dir_list = default_tablebase_dir().string();
    std::vector<Material> tables;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--dir") {
            if (++i == args.size()) throw UsageError("--dir needs a folder");
            dir_list = args[i];
            continue;
        }
        auto m = Material::parse(args[i]);
        if (!m || m->total() < 3 || m->total() > MAX_PIECES)
            throw UsageError("'" + args[i] + "' is not a table name such as KQvKR");
        tables.push_back(m->normalized());
    }
    std::vector<fs::path> dirs;
    for (size_t from = 0; from <= dir_list.size();) {
        size_t to = dir_list.find(':', from);
        if (to == std::string::npos) to = dir_list.size();
        if (to > from) dirs.emplace_back(dir_list.substr(from, to - from));
        from = to + 1;
    }
    if (tables.empty()) {
        // Every table with a WDL file in the folders, smallest first.
        for (const Material& m : all_materials(MAX_PIECES - 1))
            for (const fs::path& d : dirs) {
                std::error_code ec;
                if (fs::exists(table_file_path(d, m, FileKind::WDL), ec)) {
                    tables.push_back(m);
                    break;
                }
            }
        if (tables.empty()) {
            std::cerr << "pythia tb info: no tables in " << dir_list << '\n';
            return EXIT_FAILED;
        }
    }
    bool ok = true;
    Totals totals;
    for (const Material& m : tables) ok &= print_table(dirs, m, totals);
    if (totals.tables > 1) {
        const uint64_t* sec = totals.metric_sections;
        std::printf(
            "%d tables: WDL files %llu bytes (%s), DTM/DTZ files %llu bytes (%s); sections: WDL %llu bytes (%s), "
            "DTM %llu bytes (%s), DTZ %llu bytes (%s)\n",
            totals.tables, (unsigned long long)totals.wdl_files, bytes_text(totals.wdl_files).c_str(),
            (unsigned long long)totals.distance_files, bytes_text(totals.distance_files).c_str(),
            (unsigned long long)sec[0], bytes_text(sec[0]).c_str(), (unsigned long long)sec[1],
            bytes_text(sec[1]).c_str(), (unsigned long long)sec[2], bytes_text(sec[2]).c_str());
    }
    return ok ? EXIT_OK : EXIT_FAILED;
}

}  // namespace pythia::cli
