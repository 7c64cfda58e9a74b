// libFuzzer target: the tablebase file loader and prober on mutated table files.
//
// PYTHIA_FUZZ_TABLES names a folder of real tables (scripts/fuzz generates KRvK and KPvK with
// the tables they depend on). Each input replaces one of the files of a copy of that folder:
//   byte 0: bits 0-1 choose the file (KRvK.pytw, KRvK.pytd, KPvK.pytw, KPvK.pytd);
//           bit 2 recomputes the payload and header checksums of the new file, so that the
//           mutations reach the field checks and the block decoder instead of stopping at
//           the checksums; the other bits seed the choice of probed positions;
//   the rest: the file's bytes.
// Then the folder is scanned and positions of both materials are probed (WDL, DTZ, DTM, root
// moves). Every bad file must be refused with a message, never read outside its mapping.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/core/position.h"
#include "tablebase/probe/tablebases.h"
#include "tests/tablebase/table_file_bytes.h"

using namespace pythia;
using namespace pythia::tb;
using pythia::test::fix_checksums;
using pythia::test::read_bytes;
using pythia::test::write_bytes;
namespace fs = std::filesystem;

namespace {

const char* const FILES[4] = {"KRvK.pytw", "KRvK.pytd", "KPvK.pytw", "KPvK.pytd"};

fs::path work_dir;                  // the copy of the tables, one file replaced per input
std::vector<uint8_t> originals[4];  // the real bytes of FILES

// A random legal position of white king + `piece` against the lone black king.
bool random_position(std::mt19937_64& rng, char piece, Position& pos) {
    for (int attempt = 0; attempt < 20; ++attempt) {
        char board[64] = {};
        const int wk = int(rng() % 64), bk = int(rng() % 64), p = int(rng() % 64);
        if (wk == bk || wk == p || bk == p) continue;
        if (piece == 'P' && (p < 8 || p >= 56)) continue;
        board[wk] = 'K', board[bk] = 'k', board[p] = piece;
        std::string fen;
        for (int rank = 7; rank >= 0; --rank) {
            for (int f = 0; f < 8; ++f) fen += board[rank * 8 + f] ? board[rank * 8 + f] : '1';
            if (rank) fen += '/';
        }
        fen += rng() % 2 ? " w - - 0 1" : " b - - 0 1";
        if (pos.set_fen(fen)) return true;
    }
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    spdlog::set_level(spdlog::level::off);
    const char* tables = std::getenv("PYTHIA_FUZZ_TABLES");
    if (!tables) {
        std::fprintf(stderr,
                     "fuzz-tablebase: set PYTHIA_FUZZ_TABLES to a folder with KRvK and KPvK "
                     "(scripts/fuzz tablebase does)\n");
        std::exit(2);
    }
    work_dir = fs::temp_directory_path() / ("pythia-fuzz-tablebase-" + std::to_string(getpid()));
    fs::create_directories(work_dir);
    std::atexit([] {
        std::error_code ec;
        fs::remove_all(work_dir, ec);
    });
    for (const auto& entry : fs::directory_iterator(tables))
        fs::copy_file(entry.path(), work_dir / entry.path().filename(), fs::copy_options::overwrite_existing);
    for (int i = 0; i < 4; ++i) {
        originals[i] = read_bytes(work_dir / FILES[i]);
        if (originals[i].empty()) {
            std::fprintf(stderr, "fuzz-tablebase: %s missing in %s\n", FILES[i], tables);
            std::exit(2);
        }
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const int which = data[0] & 3;
    std::vector<uint8_t> bytes(data + 1, data + size);
    if (data[0] & 4) fix_checksums(bytes);
    const fs::path file = work_dir / FILES[which];
    write_bytes(file, bytes);

    {
        Tablebases tbs;
        (void)tbs.set_paths(work_dir.string());
        std::mt19937_64 rng(data[0] >> 3);
        Position pos;
        for (char piece : {'R', 'P'})
            for (int n = 0; n < 12; ++n) {
                if (!random_position(rng, piece, pos)) continue;
                const auto wdl = tbs.probe_wdl(pos);
                if (wdl && (*wdl < -2 || *wdl > 2)) std::abort();
                (void)tbs.probe_dtz(pos);
                (void)tbs.probe_dtm(pos);
                (void)tbs.probe(pos);
                if (n % 4 == 0) (void)tbs.rank_root_moves(pos);
            }
        // A refusal names the file.
        for (const std::string& message : tbs.refused_files())
            if (message.find(work_dir.string()) != 0) std::abort();
    }
    write_bytes(file, originals[which]);
    return 0;
}
