// Syzygy probing through Debian's libfathom. Both libfathom and libgaviotatb export a C
// function named tb_init, so fathom's is called through dlsym on its own library handle.
#include <dlfcn.h>

#include "truth.h"

#include <tbprobe.h>

namespace pythia::truth {

namespace {

using FathomInit = bool (*)(const char*);

FathomInit fathom_init() {
    void* lib = dlopen("libfathom.so", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return nullptr;
    return reinterpret_cast<FathomInit>(dlsym(lib, "tb_init"));
}

}  // namespace

bool init_syzygy(std::string* why) {
    static int state = 0;
    static std::string message;
    if (state == 0) {
        std::string dir = truth_dir(&message);
        if (dir.empty()) {
            state = 2;
        } else {
            static std::string path;
            for (const std::string& f : reference_folders("syzygy")) path += (path.empty() ? "" : ":") + f;
            FathomInit init = fathom_init();
            state = init && init(path.c_str()) && TB_LARGEST >= 4 ? 1 : 2;
            if (state == 2) message = "Syzygy tables could not be loaded from " + path;
        }
    }
    if (state == 2 && why) *why = message;
    return state == 1;
}

namespace {

struct Bitboards {
    uint64_t white = 0, black = 0, kings = 0, queens = 0, rooks = 0, bishops = 0, knights = 0, pawns = 0;
};

Bitboards to_bitboards(const tb::PieceOn* pieces, int n) {
    Bitboards b;
    for (int i = 0; i < n; ++i) {
        uint64_t bit = 1ULL << pieces[i].square;
        (pieces[i].color == WHITE ? b.white : b.black) |= bit;
        switch (pieces[i].type) {
            case KING:
                b.kings |= bit;
                break;
            case QUEEN:
                b.queens |= bit;
                break;
            case ROOK:
                b.rooks |= bit;
                break;
            case BISHOP:
                b.bishops |= bit;
                break;
            case KNIGHT:
                b.knights |= bit;
                break;
            default:
                b.pawns |= bit;
                break;
        }
    }
    return b;
}

}  // namespace

std::optional<int> syzygy_wdl(const tb::PieceOn* pieces, int n, Color stm) {
    Bitboards b = to_bitboards(pieces, n);
    unsigned r = tb_probe_wdl(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights, b.pawns, 0, 0, 0,
                              stm == WHITE);
    if (r == TB_RESULT_FAILED) return std::nullopt;
    return int(r) - 2;
}

std::optional<int> syzygy_dtz(const tb::PieceOn* pieces, int n, Color stm) {
    Bitboards b = to_bitboards(pieces, n);
    unsigned r = tb_probe_root(b.white, b.black, b.kings, b.queens, b.rooks, b.bishops, b.knights, b.pawns, 0, 0, 0,
                               stm == WHITE, nullptr);
    if (r == TB_RESULT_FAILED) return std::nullopt;
    if (r == TB_RESULT_CHECKMATE || r == TB_RESULT_STALEMATE) return 0;
    int wdl = int(TB_GET_WDL(r)) - 2;
    int dtz = int(TB_GET_DTZ(r));
    return wdl > 0 ? dtz : wdl < 0 ? -dtz : 0;
}

}  // namespace pythia::truth
