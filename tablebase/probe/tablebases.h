// Probing Pythia's tablebase files from the engine and the search.
//
// set_paths() scans the folders for table files (it opens nothing); a table's files are mapped
// and checked on its first probe. After that a probe takes no lock and allocates nothing: the
// search may call probe_wdl() at every node, from any number of threads. set_paths() must not
// run while other threads probe (the engine calls it between searches).
//
// All values are from the side to move of the probed position. WDL: 2 win, 1 cursed win, 0
// draw, -1 blessed loss, -2 loss (Syzygy's meaning). DTM and DTZ50 are tb::Value (value.h):
// win_in(d), loss_in(d) (loss_in(0): checkmated), VALUE_UNKNOWN for a draw.
// A position is probed if it has no castling rights and at most max_pieces() pieces; an en
// passant right is honoured (the value is the better of the stored position and the capture).
// A missing table gives std::nullopt; so does a refused file, which is logged once.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/huge_page_arena.h"
#include "engine/core/position.h"
#include "tablebase/format/pair_codec.h"
#include "tablebase/format/table_set.h"
#include "tablebase/format/value.h"
#include "tablebase/probe/background_worker.h"
#include "tablebase/probe/move_values.h"

namespace pythia::tb {

class TableFile;

struct ProbeResult {
    int wdl = 0;
    std::optional<Value> dtz;  // nullopt when the table's DTM/DTZ file is missing
    std::optional<Value> dtm;
};

// One legal root move valued by the tables.
struct RootMove {
    Move move;
    bool zeroing = false;  // a capture or a pawn move
    // The position after the move, from its side to move (the opponent). After a zeroing move its
    // DTZ is there only if asked for (rank_root_moves): the move's own DTZ does not depend on it.
    ProbeResult after;
    // The move from the mover's view, counting the move itself.
    int wdl = 0;    // as in the tables (the 50-move rule from a fresh halfmove clock)
    int wdl50 = 0;  // with the root's halfmove clock: a win that cannot zero in time is cursed (1)
    std::optional<Value> dtz, dtm;
};

struct TbBoard;
struct TbMove;

class Tablebases {
public:
    Tablebases();
    ~Tablebases();
    Tablebases(const Tablebases&) = delete;
    Tablebases& operator=(const Tablebases&) = delete;

    // Replaces the tables by those found in `paths` (folders separated by ':'). Returns what a
    // user should see: a line per folder that is missing or unreadable (not fatal), and a summary.
    std::vector<std::string> set_paths(const std::string& paths);

    int max_pieces() const { return max_pieces_; }
    size_t num_tables() const;  // tables with a WDL file
    std::vector<Material> materials() const;

    // Every probe returns nullopt for a position out of scope (castling rights, too many
    // pieces) or whose tables are missing or refused.
    std::optional<int> probe_wdl(const Position& pos) const;
    std::optional<Value> probe_dtz(const Position& pos) const;
    std::optional<Value> probe_dtm(const Position& pos) const;
    // WDL, and DTZ50 and DTM where the DTM/DTZ file is there.
    std::optional<ProbeResult> probe(const Position& pos) const;
    // The DTM searched within `window` as the prober searches a move's successor (RankWindow:
    // exact inside, a bound on the right side outside), for tests and tools. No en passant right.
    std::optional<Value> probe_dtm_within(const Position& pos, RankWindow window) const;

    // Every legal move with its values, best first for the side to move: by wdl50, then for
    // wins the shortest DTM (then DTZ), for losses the longest. nullopt if a move's table is
    // missing or the position is out of scope. `successor_dtz`: also the DTZ of the position
    // after each zeroing move (RootMove::after.dtz), for a display such as `tb probe`; the
    // ranking does not need it (a zeroing move's DTZ follows from that position's WDL), and
    // where that position's side is left out it costs a probe of its every move.
    std::optional<std::vector<RootMove>> rank_root_moves(const Position& pos, bool successor_dtz = false) const;

    // Opens and checks every table's WDL file now rather than at its first probe, which would
    // otherwise stall the search in the middle of a move (a WDL file is checksummed whole and
    // small ones are decoded into memory). A refused file shows in refused_files().
    void open_wdl_files() const;

    // For the engine: a DTM/DTZ file larger than `sync_below_bytes` and not in the page cache
    // (when `open_cached_at_once`) is opened by a background thread on its first probe, and
    // until it is open the probes answer without DTM and DTZ (the root falls back to WDL and
    // search for that move). Opening checksums the whole file: the largest 5-piece file, not in
    // the page cache, takes most of a second, which would stall a timed search.
    // Off by default: tools wait for the file. Call between searches, like set_paths().
    void open_distance_files_in_background(bool on, uint64_t sync_below_bytes = uint64_t(16) << 20,
                                           bool open_cached_at_once = true);
    // The bytes of small WDL sections decoded whole into memory (256 MiB by default); 0 reads
    // every WDL probe from the files, as for the large tables (tests use it). Call before the
    // first probe, like set_paths().
    void set_resident_wdl_budget(uint64_t bytes) { resident_budget_ = bytes; }
    // WDL files are copied into memory in huge pages when they open, and their readers' tables
    // built there (HugePageArena): WDL probes 12-13 % faster than from the page cache's mapping,
    // for the files' size in memory (bench/README.md). A refused file's copy stays until the next
    // set_paths(). Off, files are read where they are mapped. On by default. Call before the
    // first probe, like set_paths().
    void copy_wdl_files_to_memory(bool on) { wdl_in_memory_ = on; }
    // The memory those copies take so far, with their readers' tables and the WDL sections
    // decoded whole (set_resident_wdl_budget); 0 with the copies off.
    uint64_t wdl_memory_bytes() const { return wdl_memory_ ? wdl_memory_->bytes_allocated() : 0; }
    // DTM and DTZ sections get checkpoints in their blocks when their file opens
    // (TableFile::build_checkpoints: DTM probes a third faster from the first, for their memory
    // and a decode of the section to build them): by the background thread when
    // files open in the background, else only with this on, at the open (a tool that probes a
    // few positions would wait longer for them than they save). Call before the first probe,
    // like set_paths().
    void build_checkpoints_at_open(bool on) { checkpoints_at_open_ = on; }
    // Returns when the background thread has opened (or refused) every file it was given, and
    // built the checkpoints it was given.
    void wait_for_background_opening() const;

    // "<file>: <problem>" for every file refused so far (each was also logged once).
    std::vector<std::string> refused_files() const;

    struct Entry;  // one table's files, opened lazily

private:
    const Entry* find(uint64_t key, bool& flipped) const;
    // The table of these pieces, with the pieces and side to move as that table stores them
    // (colours flipped when it holds the other side's material). False without a table.
    struct Located {
        const Entry* entry = nullptr;
        const PieceOn* pieces = nullptr;  // the caller's pieces, or `flipped`
        Color stm = WHITE;
        PieceOn flipped[MAX_PIECES];
    };
    bool locate(const PieceOn* pieces, int n, Color stm, Located& out) const;
    std::optional<int> wdl_of(const PieceOn* pieces, int n, Color stm) const {
        return wdl_within(pieces, n, stm, -2, 2);
    }
    // The WDL searched within the window (alpha, beta), fail-soft as in alpha-beta: a result at
    // or below alpha is an upper bound of the WDL, one at or above beta a lower bound, one
    // between them exact. A resolving move's successor is searched only as far as it can still
    // change the result, so a successor whose stored WDL already settles it costs one read.
    std::optional<int> wdl_within(const PieceOn* pieces, int n, Color stm, int alpha, int beta) const;
    // The code at stored position `at` (the section's order.to_storage of the index) of section
    // `no` of `f`, read from its pair blocks or through the block cache; false (reported once per
    // table) if the block is corrupt.
    bool stored_code(const Entry& e, const TableFile& f, int no, uint64_t at, uint32_t& code) const;
    std::optional<int> stored_wdl(const Entry& e, uint64_t idx, Color stm) const;
    // What a probe needs (DTZ implies WDL: an en passant capture's DTZ depends on it).
    enum Need { NEED_WDL = 1, NEED_DTZ = 2, NEED_DTM = 4, NEED_ALL = 7 };
    // `wdl`: the position's WDL if the caller has probed it already (a left-out side needs it).
    // `stored_dtm`: the position's stored DTM code if the caller has read it already (a move's
    // bound, bound_moves), where its side is stored. `window`: the DTM is searched within it
    // (RankWindow); only the exact window may ask for the DTZ.
    bool distances_of(const PieceOn* pieces, int n, Color stm, Value& dtm, Value* dtz,
                      std::optional<int> wdl = std::nullopt, const uint32_t* stored_dtm = nullptr,
                      RankWindow window = {}) const;
    // The same for the side to move that a file leaves out not a draw (the
    // caller asks the WDL file first): one ply of moves, each successor probed (the loader's rule,
    // forward_values.h).
    bool distances_from_moves(const PieceOn* pieces, int n, Color stm, Value& dtm, Value* dtz) const;
    // The DTM alone of such a position known not to be a draw, by branch and bound
    // (best_of_moves over every legal move), within `window`.
    bool dtm_from_moves(const PieceOn* pieces, int n, Color stm, Value& dtm, RankWindow window = {}) const;
    // The DTZ alone of such a position (`wdl` its WDL), in the table of `e` and `f` (the pieces
    // and side as it stores them): zeroing moves by their successors' WDL, quiet moves by the DTZ
    // stored for their successors, read in one batch (with their DTM codes where those are the
    // DTZ's context, a successor that a capture or promotion may decide resolved first). False
    // if a read failed: the caller then probes every successor whole (distances_from_moves).
    bool dtz_from_moves(const Entry& e, const TableFile& f, const PieceOn* pieces, int n, Color stm, int wdl,
                        Value& dtz) const;
    // A legal move with the best value_rank (mover's view) it can give the mover, from a read of
    // one code: see bound_moves.
    struct MoveCandidate;
    // Bounds the moves c[0..count) of `us` (their `move` set): each by the DTM code stored for the
    // position after it, which is no better for its side to move than its exact DTM where the
    // position is not a draw (a draw's code may be any value; `draw_safe` makes a
    // stored win count as a draw, a bound that holds for draws too); else, where the file leaves
    // that side out, by its WDL (a draw is then exact). Without a table the bound is unlimited;
    // the exact probe then fails. The codes are read in one batch (PairsReader::read_codes),
    // together with the caller's `extra` reads (at most 2).
    void bound_moves(const TbBoard& b, Color us, bool draw_safe, MoveCandidate* c, int count,
                     PairsReader::BatchRead* extra = nullptr, int extra_count = 0) const;
    // bound_moves' first step for one move: sets the bound where it needs no code read from pair
    // blocks (reading any other code at once); else returns true with the read to make and where.
    struct PendingBound;
    bool start_bound(const TbBoard& b, Color us, bool draw_safe, MoveCandidate& c, PendingBound& pending,
                     PairsReader::BatchRead& read) const;
    void report_corrupt_pairs(const Entry& e, const TableFile& f) const;
    // The best value_from_mover of the exact successor values of `c[0..count)` (en passant
    // replies to double steps included), resolved best bound first and only while a bound can
    // beat `best`, which holds the value to beat if `have_best`, and can still matter within
    // `window`: alpha-beta over the moves, each successor searched within the window that can
    // still change the result (fail-soft, as RankWindow says). False if a successor is unknown.
    bool best_of_moves(const TbBoard& b, Color us, MoveCandidate* c, int count, Value& best, bool have_best,
                       RankWindow window = {}) const;
    // The table's DTM/DTZ file if it is open, opening it now or in the background.
    const TableFile* distance_file(const Entry& e) const;
    std::optional<ProbeResult> probe_pieces(const PieceOn* pieces, int n, Color stm, int need) const;
    std::optional<ProbeResult> probe_position(const Position& pos, int need) const;
    void refuse(const std::string& file, const std::string& problem) const;

    std::unique_ptr<HugePageArena> wdl_memory_;  // the WDL files' copies: outlives entries_
    bool wdl_in_memory_ = true;
    std::vector<std::unique_ptr<Entry>> entries_;
    std::vector<std::pair<uint64_t, uint32_t>> slots_;  // open addressing: material key -> entry | flip bit
    uint64_t slot_mask_ = 0;
    int max_pieces_ = 0;
    mutable std::atomic<uint64_t> resident_bytes_{0};  // WDL decoded whole (small tables)
    uint64_t resident_budget_;
    mutable std::mutex errors_mutex_;
    mutable std::vector<std::string> refused_;
    bool open_in_background_ = false;
    uint64_t sync_below_bytes_ = 0;
    bool open_cached_at_once_ = true;
    bool checkpoints_at_open_ = false;
    mutable BackgroundWorker opener_;  // works on entries_: stopped before they change
};

// Mover's view of a move's DTM and DTZ from the values of the position after it.
Value dtm_of_move(Value dtm_after);
Value dtz_of_move(bool zeroing, int wdl_after, Value dtz_after);

}  // namespace pythia::tb
