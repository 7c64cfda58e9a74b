#include "tablebase/probe/syzygy.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "engine/core/movegen.h"

namespace pythia::tb {

namespace fs = std::filesystem;

namespace {

// Fathom's result encoding (tbprobe.h), part of its ABI: WDL in bits 0-3 (0 loss ... 4 win, the
// halfmove clock counted), to 4-9, from 10-15, promotion 16-18 (1 queen ... 4 knight), DTZ 20-31.
constexpr unsigned RESULT_FAILED = 0xFFFFFFFF;
constexpr unsigned RESULT_CHECKMATE = 4, RESULT_STALEMATE = 2;  // WDL alone, no move
constexpr int MAX_MOVES = 193;
unsigned result_wdl(unsigned r) { return r & 0xF; }
unsigned result_to(unsigned r) { return (r >> 4) & 0x3F; }
unsigned result_from(unsigned r) { return (r >> 10) & 0x3F; }
unsigned result_promotes(unsigned r) { return (r >> 16) & 0x7; }
unsigned result_dtz(unsigned r) { return r >> 20; }

// The library, opened once. Through dlsym on its own handle: libgaviotatb (in the tests' binaries)
// also exports a tb_init.
struct Fathom {
    bool (*init)(const char*) = nullptr;
    unsigned (*probe_wdl)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, unsigned,
                          bool) = nullptr;
    unsigned (*probe_root)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, unsigned,
                           unsigned, bool, unsigned*) = nullptr;
    const unsigned* largest = nullptr;
    std::string error;  // why it could not be loaded
};

const Fathom& fathom() {
    static const Fathom f = [] {
        Fathom f;
        void* lib = dlopen("libfathom.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) lib = dlopen("libfathom.so", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            f.error = "Syzygy files need Fathom: apt-get install libfathom1";
            return f;
        }
        f.init = reinterpret_cast<decltype(f.init)>(dlsym(lib, "tb_init"));
        f.probe_wdl = reinterpret_cast<decltype(f.probe_wdl)>(dlsym(lib, "tb_probe_wdl_impl"));
        f.probe_root = reinterpret_cast<decltype(f.probe_root)>(dlsym(lib, "tb_probe_root_impl"));
        f.largest = static_cast<const unsigned*>(dlsym(lib, "TB_LARGEST"));
        if (!f.init || !f.probe_wdl || !f.probe_root || !f.largest) {
            f.error = "the installed libfathom lacks the functions Pythia calls";
            f.init = nullptr;
        }
        return f;
    }();
    return f;
}

// Fathom's tables of the last tb_init() let go: by tb_init("") itself, which frees them and
// leaves Fathom ready for the next tb_init(). (Its tb_free() leaves freed tables behind, on
// which the next tb_init() crashed: setting SyzygyPath twice killed the engine.) Freeing them
// Fathom calls perror("munmap") for tables it never mapped; those lines, meaningless to a user,
// are kept off stderr (GUIs and python-chess log each stderr line), the only thing written
// there meanwhile being Fathom's.
void release_tables(const Fathom& f) {
    std::fflush(stderr);
    const int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    const bool quiet = saved >= 0 && null >= 0 && dup2(null, STDERR_FILENO) >= 0;
    f.init("");
    if (quiet) {
        std::fflush(stderr);
        dup2(saved, STDERR_FILENO);
    }
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
}

struct Bitboards {
    uint64_t white, black, kings, queens, rooks, bishops, knights, pawns;
    unsigned ep;
    bool white_to_move;
};

Bitboards bitboards_of(const Position& pos) {
    return {pos.pieces(WHITE),          pos.pieces(BLACK), pos.pieces(KING),
            pos.pieces(QUEEN),          pos.pieces(ROOK),  pos.pieces(BISHOP),
            pos.pieces(KNIGHT),         pos.pieces(PAWN),  pos.ep_square() == SQ_NONE ? 0u : unsigned(pos.ep_square()),
            pos.side_to_move() == WHITE};
}

// Why a file cannot be a Syzygy table, or "" when its header and size are right: the first four
// bytes are the kind's magic number, and every table file is 16 bytes plus whole 64-byte blocks.
std::string syzygy_file_problem(const fs::path& file, bool wdl) {
    static constexpr std::array<unsigned char, 4> WDL_MAGIC{0x71, 0xE8, 0x23, 0x5D}, DTZ_MAGIC{0xD7, 0x66, 0x0C, 0xA5};
    std::error_code ec;
    const uintmax_t size = fs::file_size(file, ec);
    if (ec) return "cannot be read: " + ec.message();
    std::ifstream in(file, std::ios::binary);
    std::array<unsigned char, 4> head{};
    if (!in.read(reinterpret_cast<char*>(head.data()), head.size())) return "cannot be read";
    if (head != (wdl ? WDL_MAGIC : DTZ_MAGIC)) return "is not a Syzygy " + std::string(wdl ? "WDL" : "DTZ") + " file";
    if (size % 64 != 16) return "is truncated or corrupt (" + std::to_string(size) + " bytes)";
    return "";
}

}  // namespace

SyzygyTables& SyzygyTables::instance() {
    static SyzygyTables tables;
    return tables;
}

std::vector<std::string> SyzygyTables::set_paths(const std::string& paths) {
    std::vector<std::string> messages;
    const Fathom& f = fathom();
    if (!staging_dir_.empty()) {
        std::error_code ec;
        fs::remove_all(staging_dir_, ec);
        staging_dir_.clear();
    }
    max_pieces_ = 0;
    table_names_.clear();
    if (f.init) release_tables(f);

    std::vector<std::string> folders;
    std::istringstream in(paths == "<empty>" ? "" : paths);
    for (std::string folder; std::getline(in, folder, ':');)
        if (!folder.empty()) folders.push_back(folder);
    if (folders.empty()) return messages;
    if (!f.init) {
        messages.push_back("SyzygyPath: " + f.error);
        return messages;
    }

    // Check every file before Fathom maps any: it trusts what it maps.
    std::vector<fs::path> accepted;
    size_t refused = 0;
    for (const std::string& folder : folders) {
        std::error_code ec;
        if (!fs::is_directory(folder, ec)) {
            messages.push_back("Syzygy folder '" + folder + "' " +
                               (fs::exists(folder, ec) ? "is not a folder" : "does not exist"));
            continue;
        }
        for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
            const fs::path& p = it->path();
            const std::string ext = p.extension().string();
            if (ext != ".rtbw" && ext != ".rtbz") continue;
            const std::string problem = syzygy_file_problem(p, ext == ".rtbw");
            if (problem.empty()) {
                accepted.push_back(p);
            } else {
                messages.push_back("Syzygy file refused, playing on without it: " + p.string() + " " + problem);
                ++refused;
            }
        }
    }

    // With a file refused, Fathom gets a private folder of links to the accepted files only.
    std::string fathom_paths;
    if (refused) {
        staging_dir_ = (fs::temp_directory_path() / ("pythia-syzygy-" + std::to_string(::getpid()))).string();
        std::error_code ec;
        fs::remove_all(staging_dir_, ec);
        fs::create_directories(staging_dir_, ec);
        for (const fs::path& p : accepted) {
            const fs::path link = fs::path(staging_dir_) / p.filename();
            if (!fs::exists(link, ec)) fs::create_symlink(fs::absolute(p, ec), link, ec);  // first folder wins
        }
        fathom_paths = staging_dir_;
    } else {
        for (const std::string& folder : folders) fathom_paths += (fathom_paths.empty() ? "" : ":") + folder;
    }
    if (!accepted.empty() && f.init(fathom_paths.c_str())) {
        max_pieces_ = int(*f.largest);
        for (const fs::path& p : accepted)
            if (p.extension() == ".rtbw") table_names_.push_back(p.stem().string());
        std::sort(table_names_.begin(), table_names_.end());
        table_names_.erase(std::unique(table_names_.begin(), table_names_.end()), table_names_.end());
    }
    const size_t wdl_files = size_t(
        std::count_if(accepted.begin(), accepted.end(), [](const fs::path& p) { return p.extension() == ".rtbw"; }));
    messages.push_back("Syzygy: " + std::to_string(wdl_files) + " WDL and " +
                       std::to_string(accepted.size() - wdl_files) + " DTZ files, up to " +
                       std::to_string(max_pieces_) + " pieces");
    return messages;
}

std::optional<int> SyzygyTables::probe_wdl(const Position& pos) const {
    if (pos.count_all() > max_pieces_ || pos.castling_rights()) return std::nullopt;
    const Bitboards b = bitboards_of(pos);
    const unsigned r = fathom().probe_wdl(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights, b.pawns,
                                          b.ep, b.white_to_move);
    if (r == RESULT_FAILED) return std::nullopt;
    return int(r) - 2;
}

std::optional<int> SyzygyTables::probe_dtz(const Position& pos,
                                           std::vector<std::pair<Move, int>>* after_quiet_moves) const {
    if (pos.count_all() > max_pieces_ || pos.castling_rights()) return std::nullopt;
    const Bitboards b = bitboards_of(pos);
    // Fathom has no DTZ probe of its own: its root probe answers with the position's DTZ (the
    // halfmove clock 0, so that the WDL beside it is the DTZ's sign alone) and values the moves,
    // each quiet one by the DTZ of the position after it, less a ply.
    std::array<unsigned, MAX_MOVES> results{};
    const unsigned r = fathom().probe_root(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights, b.pawns,
                                           0, b.ep, b.white_to_move, results.data());
    if (r == RESULT_FAILED) return std::nullopt;
    if (r == RESULT_CHECKMATE) return -1;
    if (r == RESULT_STALEMATE) return 0;
    if (after_quiet_moves) {
        after_quiet_moves->clear();
        const MoveList legal(pos);
        for (int i = 0; i < MAX_MOVES && results[i] != RESULT_FAILED; ++i) {
            const Move* m = std::find_if(legal.begin(), legal.end(), [&](Move x) {
                return x.from() == Square(result_from(results[i])) && x.to() == Square(result_to(results[i]));
            });
            if (m == legal.end() || pos.is_capture(*m) || type_of(pos.moved_piece(*m)) == PAWN) continue;
            // The move's value v counts the move: the position after it has -(v - 1) for v > 0.
            const int wdl = int(result_wdl(results[i])) - 2, v = int(result_dtz(results[i]));
            if (wdl > 0 && v == 1) continue;  // a mate (Fathom's 1 for it, not a DTZ after it)
            after_quiet_moves->emplace_back(*m, wdl > 0 ? -(v - 1) : wdl < 0 ? v - 1 : 0);
        }
    }
    const int wdl = int(result_wdl(r)) - 2, dtz = int(result_dtz(r));
    return wdl > 0 ? dtz : wdl < 0 ? -dtz : 0;
}

std::optional<std::vector<SyzygyRootMove>> SyzygyTables::rank_root_moves(const Position& pos) const {
    if (pos.count_all() > max_pieces_ || pos.castling_rights()) return std::nullopt;
    const Bitboards b = bitboards_of(pos);
    std::array<unsigned, MAX_MOVES> results{};
    const unsigned r =
        fathom().probe_root(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights, b.pawns,
                            unsigned(std::min(pos.rule50(), 100)), b.ep, b.white_to_move, results.data());
    if (r == RESULT_FAILED || r == RESULT_CHECKMATE || r == RESULT_STALEMATE) return std::nullopt;

    // Fathom's moves, matched to ours by squares and promotion piece.
    static constexpr PieceType PROMOTED[] = {NO_PIECE_TYPE, QUEEN, ROOK, BISHOP, KNIGHT};
    const MoveList legal(pos);
    std::vector<SyzygyRootMove> moves;
    for (int i = 0; i < MAX_MOVES && results[i] != RESULT_FAILED; ++i) {
        const unsigned res = results[i];
        const Square from = Square(result_from(res)), to = Square(result_to(res));
        const PieceType promo = PROMOTED[std::min(result_promotes(res), 4u)];
        const Move* m = std::find_if(legal.begin(), legal.end(), [&](Move x) {
            return x.from() == from && x.to() == to &&
                   (x.kind() == Move::PROMOTION ? x.promotion() == promo : promo == NO_PIECE_TYPE);
        });
        if (m == legal.end()) return std::nullopt;  // not a move of this position: do not guess
        SyzygyRootMove sm;
        sm.move = *m;
        sm.wdl = int(result_wdl(res)) - 2;
        const int dtz = int(result_dtz(res));
        sm.dtz = sm.wdl > 0 ? dtz : sm.wdl < 0 ? -dtz : 0;
        moves.push_back(sm);
    }
    if (moves.size() != size_t(legal.size())) return std::nullopt;  // a successor the files do not cover
    return moves;
}

}  // namespace pythia::tb
