#include "truth.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

extern "C" {
#include <gtb-probe.h>
}

namespace pythia::truth {

// Debian's gaviotatb package: the 3-piece tables.
constexpr const char* GAVIOTA_DEBIAN_DIR = "/usr/share/gaviotatb/gtb4";

namespace {
std::string& truth_dir_setting() {
    static std::string dir = PYTHIA_TRUTH_DIR;
    return dir;
}
}  // namespace

void set_truth_dir(const std::string& dir) { truth_dir_setting() = dir; }

std::vector<std::string> reference_folders(const std::string& kind) {
    const std::string dir = truth_dir_setting();
    std::vector<std::string> folders;
    if (kind == "gaviota") folders.push_back(GAVIOTA_DEBIAN_DIR);
    folders.push_back(dir + "/" + kind);
    if (dir != PYTHIA_TRUTH_DIR) folders.push_back(PYTHIA_TRUTH_DIR "/" + kind);
    folders.erase(std::remove_if(folders.begin(), folders.end(),
                                 [](const std::string& f) { return !std::filesystem::is_directory(f); }),
                  folders.end());
    return folders;
}

TruthFiles truth_files(const tb::Material& m) {
    namespace fs = std::filesystem;
    std::string gaviota_name;
    for (char c : m.name())
        if (c != 'v') gaviota_name += char(std::tolower(static_cast<unsigned char>(c)));
    gaviota_name += ".gtb.cp4";
    TruthFiles f;
    for (const std::string& dir : reference_folders("gaviota")) f.gaviota |= fs::exists(fs::path(dir) / gaviota_name);
    for (const std::string& dir : reference_folders("syzygy"))
        f.syzygy |=
            fs::exists(fs::path(dir) / (m.name() + ".rtbw")) && fs::exists(fs::path(dir) / (m.name() + ".rtbz"));
    return f;
}

std::string truth_dir(std::string* why) {
    std::string dir = truth_dir_setting();
    if (!std::filesystem::is_directory(dir)) {
        if (why) *why = "truth folder " + dir + " not found";
        return "";
    }
    return dir;
}

bool init_gaviota(std::string* why) {
    static int state = 0;  // 0 untried, 1 ok, 2 failed
    static std::string message;
    if (state == 0) {
        std::string dir = truth_dir(&message);
        if (dir.empty()) {
            state = 2;
        } else {
            static const std::vector<std::string> folders = reference_folders("gaviota");
            static const char** paths = tbpaths_init();
            for (const std::string& p : folders) paths = tbpaths_add(paths, p.c_str());
            tb_init(0, tb_CP4, paths);
            tbcache_init(64 * 1024 * 1024, 96);
            // Release the library's allocations at exit (LeakSanitizer reports them otherwise).
            std::atexit([] {
                tbcache_done();
                tb_done();
                paths = tbpaths_done(paths);
            });
            state = tb_is_initialized() && (tb_availability() & 3) ? 1 : 2;
            if (state == 2) message = "Gaviota tables could not be loaded from " + dir + "/gaviota";
        }
    }
    if (state == 2 && why) *why = message;
    return state == 1;
}

std::optional<Dtm> gaviota_dtm(const tb::PieceOn* pieces, int n, Color stm) {
    unsigned wsq[8], bsq[8];
    unsigned char wpc[8], bpc[8];
    int nw = 0, nb = 0;
    for (int i = 0; i < n; ++i) {
        if (pieces[i].color == WHITE) {
            wsq[nw] = pieces[i].square;
            wpc[nw++] = static_cast<unsigned char>(pieces[i].type);  // same numbering as tb_PAWN..tb_KING
        } else {
            bsq[nb] = pieces[i].square;
            bpc[nb++] = static_cast<unsigned char>(pieces[i].type);
        }
    }
    wsq[nw] = bsq[nb] = tb_NOSQUARE;
    wpc[nw] = bpc[nb] = tb_NOPIECE;
    unsigned info = 0, plies = 0;
    if (!tb_probe_hard(stm == WHITE ? tb_WHITE_TO_MOVE : tb_BLACK_TO_MOVE, tb_NOSQUARE, tb_NOCASTLE, wsq, bsq, wpc, bpc,
                       &info, &plies))
        return std::nullopt;
    if (info == tb_DRAW) return Dtm{0, false};
    if (info != tb_WMATE && info != tb_BMATE) return std::nullopt;
    bool stm_wins = (info == tb_WMATE) == (stm == WHITE);
    if (!stm_wins && plies == 0) return Dtm{0, true};
    return Dtm{stm_wins ? int(plies) : -int(plies), false};
}

}  // namespace pythia::truth
