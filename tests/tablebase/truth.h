// Independent reference tables for tests: Gaviota DTM (Debian's libgaviotatb) and Syzygy WDL/DTZ
// (Debian's libfathom), read from the truth folder (CMake cache variable PYTHIA_TRUTH_DIR).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tablebase/format/table_set.h"

namespace pythia::truth {

// The truth folder, or an empty string (with `why` set) when it or the probers are missing.
// Under CI (test::in_ci) the tests that need it fail without it instead of skipping.
std::string truth_dir(std::string* why = nullptr);
// Another truth folder (holding gaviota/ and syzygy/), e.g. one with 5-piece tables; call it
// before init_gaviota and init_syzygy.
void set_truth_dir(const std::string& dir);

// The folders the probers read, existing ones only, for kind "gaviota" or "syzygy": the truth
// folder's subfolder, the default truth folder's when another was set (it holds the 3-4-piece
// tables a 5-piece probe's captures lead to), and for Gaviota Debian's 3-piece set.
std::vector<std::string> reference_folders(const std::string& kind);

// Whether those folders hold this table: Gaviota's DTM file (kqrkr.gtb.cp4) and Syzygy's WDL
// and DTZ files (KQRvKR.rtbw, .rtbz).
struct TruthFiles {
    bool gaviota = false, syzygy = false;
};
TruthFiles truth_files(const tb::Material& m);

// Loads the Gaviota tables (Debian's 3-piece set and truth/gaviota) and the Syzygy tables
// (truth/syzygy). Both return false with a message if they cannot.
bool init_gaviota(std::string* why);
bool init_syzygy(std::string* why);

// Gaviota DTM in signed plies from the side to move (+n win in n, -n loss in n, 0 draw;
// mated = loss in 0, reported as nullopt-free value with `mated` set). nullopt if unavailable.
struct Dtm {
    int plies;   // signed: > 0 win, < 0 loss, 0 draw or mated
    bool mated;  // side to move is checkmated
};
std::optional<Dtm> gaviota_dtm(const tb::PieceOn* pieces, int n, Color stm);

// Syzygy WDL (-2..2) and DTZ (signed plies, as stored; may be one ply off) of a position
// without en passant right and with a zero halfmove clock.
std::optional<int> syzygy_wdl(const tb::PieceOn* pieces, int n, Color stm);
std::optional<int> syzygy_dtz(const tb::PieceOn* pieces, int n, Color stm);

}  // namespace pythia::truth
