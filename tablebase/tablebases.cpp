#include "tablebase/tablebases.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <limits>
#include <map>
#include <sstream>

#include "engine/core/mapped_file.h"
#include "engine/core/movegen.h"
#include "tablebase/block_cache.h"
#include "tablebase/captures.h"
#include "tablebase/file_format.h"
#include "tablebase/move_values.h"
#include "tablebase/successor_values.h"
#include "tablebase/table_file.h"

namespace pythia::tb {

namespace {

enum : uint8_t { UNOPENED, OPEN, FAILED };
constexpr int KIND_WDL = 0, KIND_DISTANCE = 1;

// WDL sections this small are decoded whole when their file is opened and kept in memory
// (shared by all threads): the captures the prober searches lead into the smaller tables, and
// their probes then cost a memory read instead of a block decode. All 3- and 4-piece WDL
// tables together take about 30 MB decoded.
constexpr uint64_t RESIDENT_WDL_BYTES = 4 << 20;  // per section
constexpr uint64_t RESIDENT_WDL_BUDGET = uint64_t(256) << 20;  // per Tablebases

// Piece counts by colour and type, 4 bits each: a table's key, read straight off a position.
uint64_t key_of(const Material& m) {
    uint64_t k = 0;
    for (Color c : {WHITE, BLACK})
        for (int pt = PAWN; pt <= KING; ++pt) k += uint64_t(m.count(c, PieceType(pt))) << (4 * (c * 8 + pt));
    return k;
}
uint64_t key_of(const PieceOn* pieces, int n) {
    uint64_t k = 0;
    for (int i = 0; i < n; ++i) k += uint64_t(1) << (4 * (pieces[i].color * 8 + pieces[i].type));
    return k;
}
// The slot table is masked to its low bits, so the hash must mix every count into them: the
// black counts sit in the key's bits 36-59, which a product alone carries only into higher bits
// (before, `key * K >> 20` ignored them, and a lookup probed 14.6 slots on average on the
// 3-5-piece set; now 1.2).
uint64_t slot_hash(uint64_t key) { return ((key ^ (key >> 31)) * 0x9E3779B97F4A7C15ull) >> 40; }

int sign_context(Value dtm) { return is_loss(dtm) ? 0 : is_win(dtm) ? 2 : 1; }

// The context of a DTZ read through DTM codes (Context::DTM_CODE): where the DTM section leaves
// captures and promotions to the reader, the lowest code of the exact DTM (the writer's rule,
// encode_dtz), else the code stored.
uint32_t dtm_code_context(const Section& dtm_section, Value exact_dtm, uint32_t stored_code) {
    if (!(dtm_section.h.flags & FLAG_MOVES_RESOLVED)) return stored_code;
    const int code = code_of_value(dtm_section.code_by_value, exact_dtm);
    return code >= 0 ? uint32_t(code) : stored_code;
}

// Orders DTZ values the same way, wins under the 50-move rule before cursed ones.
int dtz_rank(Value v) { return wdl_of_dtz(v) * 10000 + (is_win(v) ? -distance_of(v) : is_loss(v) ? distance_of(v) : 0); }

template <typename Rank>
std::optional<Value> better(std::optional<Value> a, std::optional<Value> b, Rank rank) {
    if (!a || !b) return std::nullopt;
    return rank(*b) > rank(*a) ? b : a;
}

// A WDL section's value for `code`.
std::optional<int> wdl_of_code(const Section& s, uint32_t code) {
    uint16_t symbol;
    if (!s.symbol(0, code, symbol)) return std::nullopt;
    return int(symbol) - 2;
}

int pieces_of(const Position& pos, PieceOn* out) {
    int n = 0;
    for (Bitboard b = pos.pieces(); b && n < MAX_PIECES;) {
        const Square s = pop_lsb(b);
        const Piece p = pos.piece_on(s);
        out[n++] = {color_of(p), type_of(p), s};
    }
    return n;
}

}  // namespace

struct Tablebases::Entry {
    Material material;
    std::filesystem::path paths[2];  // WDL, DTM/DTZ; empty when absent
    uint64_t file_bytes[2] = {};     // their sizes when the folders were scanned
    mutable std::mutex mutex;
    mutable std::atomic<bool> posted{false};  // the DTM/DTZ file was given to the background opener
    mutable std::atomic<uint8_t> state[2] = {UNOPENED, UNOPENED};
    mutable std::unique_ptr<TableIndex> index;  // set before the first state becomes OPEN
    mutable std::unique_ptr<TableFile> files[2];
    mutable int section_no[3][2] = {};  // [metric][side] -> the section's number in its file
    // Decoded WDL codes by side, in stored order; empty: read blocks. In the WDL files' arena
    // (huge pages) when there is one.
    mutable std::vector<uint8_t, ArenaAllocator<uint8_t>> resident_wdl[2];
    mutable std::atomic<bool> reported_corrupt_block{false};

    // Decodes small WDL sections whole (see RESIDENT_WDL_BYTES). False if a block is corrupt.
    bool make_resident(const TableFile& f, std::atomic<uint64_t>& budget, uint64_t limit, HugePageArena* arena) const {
        for (const Section& s : f.sections()) {
            const uint64_t bytes = (f.positions() * s.bits() + 7) / 8;
            if (s.bits() == 0 || bytes > RESIDENT_WDL_BYTES) continue;
            if (budget.fetch_add(bytes) + bytes > limit) {
                budget.fetch_sub(bytes);
                continue;
            }
            auto& out = resident_wdl[s.side()];
            // One spare byte: a 16-bit read never passes the end.
            out = std::vector<uint8_t, ArenaAllocator<uint8_t>>(bytes + 1, 0, ArenaAllocator<uint8_t>(arena));
            if (!f.decode_section(s, out.data())) {
                resident_wdl[0].clear();
                resident_wdl[1].clear();
                return false;
            }
        }
        return true;
    }

    // The file, opened and checked on first use; nullptr if absent or refused. A cancelled
    // open (`cancel` set) refuses nothing and leaves the file unopened.
    const TableFile* open(int kind, const Tablebases& owner, const std::atomic<bool>* cancel = nullptr) const {
        const uint8_t s = state[kind].load(std::memory_order_acquire);
        if (s == OPEN) return files[kind].get();
        if (s == FAILED) return nullptr;
        // A DTM/DTZ file may read its draws from the WDL file (FLAG_DRAWS_IN_WDL): that one first.
        const TableFile* wdl = kind == KIND_DISTANCE ? open(KIND_WDL, owner, cancel) : nullptr;
        std::lock_guard<std::mutex> lock(mutex);
        if (state[kind].load(std::memory_order_relaxed) != UNOPENED)
            return state[kind].load(std::memory_order_relaxed) == OPEN ? files[kind].get() : nullptr;
        if (paths[kind].empty()) {
            state[kind].store(FAILED, std::memory_order_release);
            return nullptr;
        }
        if (!index) index = std::make_unique<TableIndex>(material);
        std::string error;
        HugePageArena* copy_to = kind == KIND_WDL && owner.wdl_in_memory_ ? owner.wdl_memory_.get() : nullptr;
        auto f = TableFile::open(paths[kind], *index, kind == KIND_WDL ? FileKind::WDL : FileKind::DISTANCE, &error,
                                 true, cancel, copy_to);
        if (!f && cancel && cancel->load()) return nullptr;
        if (!f) {
            owner.refuse(paths[kind].string(), error);
            state[kind].store(FAILED, std::memory_order_release);
            return nullptr;
        }
        std::string wdl_problem;
        for (size_t i = 0; i < f->sections().size(); ++i) {
            const Section& sec = f->sections()[i];
            section_no[int(sec.metric())][sec.side()] = int(i);
            if ((sec.h.flags & FLAG_DRAWS_IN_WDL) && (!wdl || wdl->write_id() != f->write_id()))
                wdl_problem = !wdl ? "leaves its draws to the WDL file, which is missing or refused"
                                   : "leaves its draws to the WDL file, which is not of the same write";
        }
        if (!wdl_problem.empty()) {
            owner.refuse(paths[kind].string(), wdl_problem);
            state[kind].store(FAILED, std::memory_order_release);
            return nullptr;
        }
        if (kind == KIND_WDL && !make_resident(*f, owner.resident_bytes_, owner.resident_budget_, copy_to)) {
            owner.refuse(paths[kind].string(), "corrupt block");
            state[kind].store(FAILED, std::memory_order_release);
            return nullptr;
        }
        files[kind] = std::move(f);
        state[kind].store(OPEN, std::memory_order_release);
        // DTM is probed one move deep (captures, a left-out side): checkpoints in its blocks are
        // worth 4.7 % more memory. Building them decodes the section (0.45 s on KRPvKB's 67 MB):
        // off the caller's path where files open in the background.
        const TableFile* opened = files[kind].get();
        if (kind == KIND_DISTANCE && owner.open_in_background_)
            owner.opener_.post([opened](const std::atomic<bool>& stop) { opened->build_checkpoints(&stop); });
        else if (kind == KIND_DISTANCE && owner.checkpoints_at_open_)
            opened->build_checkpoints();
        return opened;
    }
};

Tablebases::Tablebases() : resident_budget_(RESIDENT_WDL_BUDGET) {}
Tablebases::~Tablebases() { opener_.stop(); }

void Tablebases::open_distance_files_in_background(bool on, uint64_t sync_below_bytes, bool open_cached_at_once) {
    opener_.stop();
    open_in_background_ = on;
    sync_below_bytes_ = sync_below_bytes;
    open_cached_at_once_ = open_cached_at_once;
}

void Tablebases::wait_for_background_opening() const { opener_.wait_idle(); }

const TableFile* Tablebases::distance_file(const Entry& e) const {
    if (!open_in_background_ || e.file_bytes[KIND_DISTANCE] < sync_below_bytes_ ||
        e.state[KIND_DISTANCE].load(std::memory_order_acquire) != UNOPENED)
        return e.open(KIND_DISTANCE, *this);
    if (e.posted.load()) return nullptr;  // under way
    // Checksumming a file that is in the page cache takes tens of milliseconds: do it now, so
    // that the move is chosen by DTM (a file still on disk took seconds).
    if (open_cached_at_once_) {
        MappedFile probe;
        if (probe.open(e.paths[KIND_DISTANCE].string()) && probe.resident_fraction() >= 0.9)
            return e.open(KIND_DISTANCE, *this);
    }
    if (!e.posted.exchange(true))
        opener_.post([this, &e](const std::atomic<bool>& cancel) {
            e.open(KIND_DISTANCE, *this, &cancel);
            if (cancel.load()) e.posted = false;  // not opened: a later probe asks again
        });
    return nullptr;
}

void Tablebases::refuse(const std::string& file, const std::string& problem) const {
    spdlog::error("tablebase {}: {}", file, problem);
    std::lock_guard<std::mutex> lock(errors_mutex_);
    refused_.push_back(file + ": " + problem);
}

void Tablebases::open_wdl_files() const {
    for (const auto& e : entries_) e->open(KIND_WDL, *this);
}

std::vector<std::string> Tablebases::refused_files() const {
    std::lock_guard<std::mutex> lock(errors_mutex_);
    return refused_;
}

std::vector<std::string> Tablebases::set_paths(const std::string& paths) {
    opener_.stop();  // its tasks hold entries
    entries_.clear();
    wdl_memory_ = std::make_unique<HugePageArena>();  // after the files that read the old one
    slots_.clear();
    max_pieces_ = 0;
    resident_bytes_ = 0;
    {
        std::lock_guard<std::mutex> lock(errors_mutex_);
        refused_.clear();
    }
    std::vector<std::string> messages;
    std::map<uint64_t, size_t> by_key;
    std::vector<std::string> folders;
    std::stringstream in(paths);
    for (std::string folder; std::getline(in, folder, ':');)
        if (!folder.empty()) folders.push_back(folder);

    for (const std::string& folder : folders) {
        std::error_code ec;
        if (!std::filesystem::is_directory(folder, ec)) {
            messages.push_back("tablebase folder '" + folder + "' " +
                               (std::filesystem::exists(folder, ec) ? "is not a folder" : "does not exist"));
            continue;
        }
        std::vector<std::pair<std::filesystem::path, uint64_t>> files;  // path, size
        for (auto it = std::filesystem::directory_iterator(folder, ec); !ec && it != std::filesystem::directory_iterator();
             it.increment(ec)) {
            std::error_code size_error;
            const uint64_t bytes = it->file_size(size_error);
            files.emplace_back(it->path(), size_error ? 0 : bytes);
        }
        if (ec) {
            messages.push_back("tablebase folder '" + folder + "' cannot be read: " + ec.message());
            continue;
        }
        std::sort(files.begin(), files.end());
        for (const auto& [path, bytes] : files) {
            const std::string ext = path.extension().string();
            const int kind = ext == WDL_EXTENSION ? KIND_WDL : ext == DISTANCE_EXTENSION ? KIND_DISTANCE : -1;
            if (kind < 0) continue;
            auto material = Material::parse(path.stem().string());
            if (!material || material->total() > MAX_PIECES || material->total() < 3) continue;
            const Material m = material->normalized();
            const uint64_t key = key_of(m);
            auto [it, fresh] = by_key.try_emplace(key, entries_.size());
            if (fresh) {
                entries_.push_back(std::make_unique<Entry>());
                entries_.back()->material = m;
            }
            Entry& e = *entries_[it->second];
            if (e.paths[kind].empty()) {  // the first folder wins
                e.paths[kind] = path;
                e.file_bytes[kind] = bytes;
            }
        }
    }

    // Both colourings of every table go into an open-addressing table, flagged when flipped.
    size_t size = 16;
    while (size < 4 * entries_.size()) size *= 2;
    slots_.assign(size, {0, 0});
    slot_mask_ = size - 1;
    size_t wdl_tables = 0, distance_tables = 0;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const Entry& e = *entries_[i];
        wdl_tables += !e.paths[KIND_WDL].empty();
        distance_tables += !e.paths[KIND_DISTANCE].empty();
        max_pieces_ = std::max(max_pieces_, e.material.total());
        for (bool flip : {false, true}) {
            const uint64_t key = key_of(flip ? e.material.flipped() : e.material);
            if (flip && key == key_of(e.material)) continue;
            uint64_t s = slot_hash(key) & slot_mask_;
            while (slots_[s].second) s = (s + 1) & slot_mask_;
            slots_[s] = {key, uint32_t((i + 1) << 1 | flip)};
        }
    }
    if (!folders.empty())
        messages.push_back("tablebases: " + std::to_string(wdl_tables) + " WDL and " +
                           std::to_string(distance_tables) + " DTM/DTZ tables, up to " + std::to_string(max_pieces_) +
                           " pieces");
    return messages;
}

size_t Tablebases::num_tables() const {
    size_t n = 0;
    for (const auto& e : entries_) n += !e->paths[KIND_WDL].empty();
    return n;
}

std::vector<Material> Tablebases::materials() const {
    std::vector<Material> out;
    for (const auto& e : entries_) out.push_back(e->material);
    return out;
}

const Tablebases::Entry* Tablebases::find(uint64_t key, bool& flipped) const {
    if (slots_.empty()) return nullptr;
    for (uint64_t s = slot_hash(key) & slot_mask_; slots_[s].second; s = (s + 1) & slot_mask_)
        if (slots_[s].first == key) {
            flipped = slots_[s].second & 1;
            return entries_[(slots_[s].second >> 1) - 1].get();
        }
    return nullptr;
}

void Tablebases::report_corrupt_pairs(const Entry& e, const TableFile& f) const {
    if (!e.reported_corrupt_block.exchange(true)) refuse(f.path().string(), "corrupt pair block");
}

bool Tablebases::stored_code(const Entry& e, const TableFile& f, int no, uint64_t at, uint32_t& code) const {
    const Section& s = f.sections()[no];
    code = 0;
    if (s.pairs) {
        if (s.pairs->code_at(at, code)) return true;
        report_corrupt_pairs(e, f);
        return false;
    }
    if (!s.bits()) return true;
    const uint64_t block = at / s.h.block_positions, local = at % s.h.block_positions;
    const uint8_t* data = BlockCache::local().get(f, uint32_t(no), block, bytes_needed(local, s.bits()));
    if (!data) {
        if (!e.reported_corrupt_block.exchange(true)) refuse(f.path().string(), "corrupt block " + std::to_string(block));
        return false;
    }
    code = code_at(data, local, s.bits());
    return true;
}

std::optional<int> Tablebases::stored_wdl(const Entry& e, uint64_t idx, Color stm) const {
    const TableFile* f = e.files[KIND_WDL].get();
    const int no = e.section_no[int(Metric::WDL)][stm];
    const Section& s = f->sections()[no];
    const uint64_t at = s.order.to_storage(idx);
    uint32_t code;
    if (!e.resident_wdl[stm].empty()) code = code_at(e.resident_wdl[stm].data(), at, s.bits());
    else if (!stored_code(e, *f, no, at, code)) return std::nullopt;
    return wdl_of_code(s, code);
}

bool Tablebases::locate(const PieceOn* pieces, int n, Color stm, Located& out) const {
    bool flipped = false;
    out.entry = find(key_of(pieces, n), flipped);
    if (!out.entry) return false;
    out.stm = flipped ? ~stm : stm;
    out.pieces = pieces;
    if (flipped) {  // copied only when the colours change (WDL probes run at every node)
        for (int i = 0; i < n; ++i) out.flipped[i] = {~pieces[i].color, pieces[i].type, flip_rank(pieces[i].square)};
        out.pieces = out.flipped;
    }
    return true;
}

std::optional<int> Tablebases::wdl_within(const PieceOn* pieces, int n, Color stm, int alpha, int beta) const {
    if (n == 2) return 0;
    Located at;
    if (!locate(pieces, n, stm, at) || !at.entry->open(KIND_WDL, *this)) return std::nullopt;
    const Entry* e = at.entry;
    pieces = at.pieces;
    stm = at.stm;
    const uint64_t idx = e->index->encode(placement_for(*e->index, pieces, n));
    const std::optional<int> stored = stored_wdl(*e, idx, stm);
    // The stored WDL is never above the true one, so one at or above beta is a lower bound (beta
    // is at most 2: wdl_of's window, or a successor's, -max(alpha, best)).
    if (!stored || *stored >= beta) return stored;
    const Section& s = e->files[KIND_WDL]->sections()[e->section_no[int(Metric::WDL)][stm]];
    if (!(s.h.flags & FLAG_CAPTURE_RESOLVED)) return stored;  // PROMOTIONS_RESOLVED comes with it

    // The stored value may be low where a capture or a queen promotion achieves more: search the
    // resolving moves (captures of the most valuable capturable piece, as the writer decided),
    // each successor only within the window that can still raise the result.
    TbBoard b;
    b.set(pieces, n);
    const std::optional<int> best = best_resolving_move(
        b, stm, s.h.flags & FLAG_PROMOTIONS_RESOLVED, beta, [&](const PieceOn* after, int k, int so_far) {
            return wdl_within(after, k, ~stm, -beta, -std::max({alpha, *stored, so_far}));
        });
    if (!best) return std::nullopt;
    return std::max(*stored, *best);
}

// The prober makes an array of these for every move a position could have, at every probe that
// bounds moves: no member has an initializer, which cost more than the bounding (bound_moves
// sets every member but `move`, which the caller sets).
struct Tablebases::MoveCandidate {
    static constexpr int8_t NO_WDL = -3;
    TbMove move;
    int bound;   // value_rank from the mover's view
    int8_t wdl;  // the successor's, when the bound came from it; else NO_WDL
    bool exact;  // the bound came from a DTM stored exactly (no MOVES_RESOLVED): `dtm` is its value
    Value dtm;   // the successor's, from its side to move, where `exact`
    bool read;   // the bound came from `code`, the successor's stored DTM code, read from pair blocks
    uint32_t code;
    std::optional<int> known_wdl() const { return wdl == NO_WDL ? std::nullopt : std::optional<int>(wdl); }
};

struct Tablebases::PendingBound {
    MoveCandidate* candidate;
    const Entry* entry;
    const TableFile* file;
    const Section* section;
};

namespace {

// The bound of a move from the DTM stored for the position after it (see bound_moves). Where
// that DTM is stored exactly (a section without MOVES_RESOLVED: the 3-4-piece tables of a set
// rewritten with `tb rewrite --resolve-dtm`, every table the generator writes), sets `exact` and
// `dtm` to its value: the move needs no probe of its own then.
int bound_from_code(const Section& s, uint32_t code, bool draw_safe, bool& exact, Value& dtm) {
    uint16_t symbol;
    if (!s.symbol(0, code, symbol)) return std::numeric_limits<int>::max();  // the exact probe fails
    Value stored = symbol;
    exact = !(s.h.flags & FLAG_MOVES_RESOLVED);
    dtm = stored;
    if (draw_safe && (s.h.flags & FLAG_DRAWS_IN_WDL) && is_win(stored)) stored = VALUE_UNKNOWN;
    return value_rank(value_from_mover(stored));
}

}  // namespace

bool Tablebases::start_bound(const TbBoard& b, Color us, bool draw_safe, MoveCandidate& c, PendingBound& pending,
                             PairsReader::BatchRead& read) const {
    PieceOn after[MAX_PIECES];
    const int k = pieces_after(b, c.move, after);
    const Color side = ~us;
    c.bound = std::numeric_limits<int>::max();
    c.wdl = MoveCandidate::NO_WDL;
    c.exact = false;
    c.read = false;
    if (k == 2) {
        c.bound = 0;
        c.wdl = 0;
        return false;
    }
    Located at;
    if (!locate(after, k, side, at)) return false;
    const Entry* e = at.entry;
    const TableFile* f = distance_file(*e);
    if (!f) return false;
    if (f->left_out_side() == at.stm) {
        const std::optional<int> wdl = wdl_of(after, k, side);
        if (!wdl) return false;
        c.wdl = int8_t(*wdl);
        // The mover's best against a loss is mate at once; against a win the longest loss.
        c.bound = *wdl < 0 ? value_rank(win_in(1)) : *wdl > 0 ? value_rank(loss_in(MAX_DISTANCE)) : 0;
        return false;
    }
    const int no = e->section_no[int(Metric::DTM)][at.stm];
    const Section& s = f->sections()[no];
    const uint64_t stored = s.order.to_storage(e->index->encode(placement_for(*e->index, at.pieces, k)));
    if (!s.pairs) {  // a constant section, or LZ4 blocks (older files): no batch
        uint32_t code;
        if (stored_code(*e, *f, no, stored, code)) c.bound = bound_from_code(s, code, draw_safe, c.exact, c.dtm);
        return false;
    }
    pending = PendingBound{&c, e, f, &s};
    read.reader = &*s.pairs;
    read.position = stored;
    return true;
}

void Tablebases::bound_moves(const TbBoard& b, Color us, bool draw_safe, MoveCandidate* c, int count,
                             PairsReader::BatchRead* extra, int extra_count) const {
    constexpr int MAX_EXTRA = 2;
    PairsReader::BatchRead reads[MAX_TB_MOVES + MAX_EXTRA];
    PendingBound pending[MAX_TB_MOVES];
    int n = 0;
    for (int i = 0; i < count; ++i)
        if (start_bound(b, us, draw_safe, c[i], pending[n], reads[n])) ++n;
    assert(extra_count <= MAX_EXTRA);
    std::copy(extra, extra + extra_count, reads + n);
    PairsReader::read_codes(reads, n + extra_count);
    std::copy(reads + n, reads + n + extra_count, extra);
    for (int i = 0; i < n; ++i) {
        MoveCandidate& c = *pending[i].candidate;
        if (!reads[i].ok) {
            report_corrupt_pairs(*pending[i].entry, *pending[i].file);
            continue;
        }
        c.bound = bound_from_code(*pending[i].section, reads[i].code, draw_safe, c.exact, c.dtm);
        c.read = true;
        c.code = reads[i].code;
    }
}

bool Tablebases::best_of_moves(const TbBoard& b, Color us, MoveCandidate* c, int count, Value& best,
                               bool have_best, RankWindow window) const {
    std::sort(c, c + count, [](const MoveCandidate& x, const MoveCandidate& y) { return x.bound > y.bound; });
    bool failed = false;
    auto lookup = [&](const PieceOn* after, int k, Color side, Value& sdtm, Value& sdtz) {
        sdtz = VALUE_UNKNOWN;
        if (!distances_of(after, k, side, sdtm, nullptr)) failed = true;
    };
    for (int i = 0; i < count; ++i) {
        if (have_best && c[i].bound <= value_rank(best)) break;  // sorted: no move left can do better
        if (have_best && value_rank(best) >= window.hi) break;  // a lower bound at or above the window
        if (c[i].bound <= window.lo) {  // no move left can lift the value above the window
            if (!have_best || c[i].bound > value_rank(best)) best = value_of_rank(c[i].bound);  // an upper bound
            return true;
        }
        const TbMove& m = c[i].move;
        PieceOn after[MAX_PIECES];
        const int k = pieces_after(b, m, after);
        Value sdtm = c[i].dtm;
        if (!c[i].exact && !distances_of(after, k, ~us, sdtm, nullptr, c[i].known_wdl(), c[i].read ? &c[i].code : nullptr,
                                         successor_window(window, have_best, have_best ? value_rank(best) : 0)))
            return false;
        if (m.double_step) {  // the reply may capture en passant
            int unused_wdl = 0;
            improve_with_en_passant(after, k, ~us, Square((m.from + m.to) / 2), m.to, sdtm, unused_wdl, lookup);
            if (failed) return false;
        }
        const Value v = value_from_mover(sdtm);
        if (!have_best || value_rank(v) > value_rank(best)) best = v;
        have_best = true;
    }
    return true;
}

bool Tablebases::distances_of(const PieceOn* pieces, int n, Color stm, Value& dtm, Value* dtz,
                              std::optional<int> wdl, const uint32_t* stored_dtm, RankWindow window) const {
    assert(window.exact() || !dtz);  // a DTZ (and its DTM context) needs the exact DTM
    if (n == 2) {
        dtm = VALUE_UNKNOWN;
        if (dtz) *dtz = VALUE_UNKNOWN;
        return true;
    }
    Located at;
    if (!locate(pieces, n, stm, at)) return false;
    const Entry* e = at.entry;
    const TableFile* f = distance_file(*e);
    if (!f) return false;
    // A side the file leaves out would probe every move: the WDL file first, one probe.
    if (!wdl && f->left_out_side() == at.stm) wdl = wdl_of(pieces, n, stm);
    if (wdl == 0) {  // a draw has no distance; its DTM and DTZ may not even be stored (version 10)
        dtm = VALUE_UNKNOWN;
        if (dtz) *dtz = VALUE_UNKNOWN;
        return true;
    }
    pieces = at.pieces;
    stm = at.stm;
    if (f->left_out_side() == stm) {
        // DTZ from the successors' stored DTZ, read in one batch, and DTM by branch and bound;
        // where a read fails or the WDL is unknown, every successor probed whole.
        if (dtz && wdl && dtz_from_moves(*e, *f, pieces, n, stm, *wdl, *dtz)) return dtm_from_moves(pieces, n, stm, dtm);
        return dtz || !wdl ? distances_from_moves(pieces, n, stm, dtm, dtz) : dtm_from_moves(pieces, n, stm, dtm, window);
    }
    const uint64_t idx = e->index->encode(placement_for(*e->index, pieces, n));
    // A side's DTM and DTZ sections share one storage order (checked at load): one conversion.
    const uint64_t stored = f->sections()[e->section_no[int(Metric::DTM)][stm]].order.to_storage(idx);
    auto read = [&](Metric metric, uint32_t ctx, uint32_t& code, Value& value) {
        const int no = e->section_no[int(metric)][stm];
        uint16_t symbol;
        if (!stored_code(*e, *f, no, stored, code) || !f->sections()[no].symbol(ctx, code, symbol)) return false;
        value = symbol;
        return true;
    };
    uint32_t dtm_code, dtz_code;
    const Section& m = f->sections()[e->section_no[int(Metric::DTM)][stm]];
    if (!(m.h.flags & FLAG_MOVES_RESOLVED)) {
        if (!read(Metric::DTM, 0, dtm_code, dtm)) return false;
    } else {
        // The stored DTM may be low where a capture or promotion achieves more (format version 6):
        // the best of it and those moves, each resolved only if its bound can beat the best so far.
        TbBoard b;
        b.set(pieces, n);
        MoveCandidate leaving[MAX_TB_MOVES];
        int count = 0;
        for_each_leaving_move(b, stm, [&](const TbMove& mv) { leaving[count++].move = mv; });
        // Format version 10: where the WDL file stores a draw, the stored DTM may be anything
        // (the position is a draw) unless a leaving move wins, which then makes it no draw. (A WDL
        // known to be no draw, the probe's common case, needs no second read.) The position's own
        // DTM and WDL codes are read in the moves' batch.
        const bool need_wdl = (m.h.flags & FLAG_DRAWS_IN_WDL) && !wdl;
        const TableFile* wdl_file = e->files[KIND_WDL].get();  // opened before this file, which needs it
        const Section* w = nullptr;  // the WDL section if its code is read in the batch
        if (need_wdl && wdl_file && e->resident_wdl[stm].empty()) {
            const Section& ws = wdl_file->sections()[e->section_no[int(Metric::WDL)][stm]];
            if (ws.pairs) w = &ws;
        }
        PairsReader::BatchRead own[2];  // in pair blocks: the DTM code, then the WDL code
        PairsReader::BatchRead* const own_dtm = m.pairs && !stored_dtm ? &own[0] : nullptr;
        PairsReader::BatchRead* const own_wdl = w ? &own[own_dtm ? 1 : 0] : nullptr;
        if (own_dtm) {
            own_dtm->reader = &*m.pairs;
            own_dtm->position = stored;
        }
        if (own_wdl) {
            own_wdl->reader = &*w->pairs;
            own_wdl->position = w->order.to_storage(idx);
        }
        bound_moves(b, stm, true, leaving, count, own, int(bool(own_dtm)) + int(bool(own_wdl)));
        if (own_dtm) {
            uint16_t symbol;
            if (!own_dtm->ok) report_corrupt_pairs(*e, *f);
            if (!own_dtm->ok || !m.symbol(0, own_dtm->code, symbol)) return false;
            dtm_code = own_dtm->code;
            dtm = symbol;
        } else if (stored_dtm) {
            uint16_t symbol;
            if (!m.symbol(0, *stored_dtm, symbol)) return false;
            dtm_code = *stored_dtm;
            dtm = symbol;
        } else if (!read(Metric::DTM, 0, dtm_code, dtm)) {
            return false;
        }
        bool maybe_draw = false;
        if (need_wdl) {
            if (own_wdl && !own_wdl->ok) report_corrupt_pairs(*e, *wdl_file);
            const std::optional<int> stored_w = !own_wdl   ? stored_wdl(*e, idx, stm)
                                                : own_wdl->ok ? wdl_of_code(*w, own_wdl->code)
                                                              : std::nullopt;
            if (!stored_w) return false;
            maybe_draw = *stored_w == 0;
        }
        if (maybe_draw) {
            // Only a winning move matters. Searched without a bound below: an upper bound that
            // is a win would not tell whether a move wins, and the stored DTM holds anything
            // where none does.
            Value best = VALUE_UNKNOWN;
            if (!best_of_moves(b, stm, leaving, count, best, true, RankWindow{RankWindow::NONE_BELOW, window.hi}))
                return false;
            if (!is_win(best)) dtm = VALUE_UNKNOWN;
            else if (value_rank(best) > value_rank(dtm)) dtm = best;
        } else if (!best_of_moves(b, stm, leaving, count, dtm, true, window)) {
            return false;
        }
        dtm_code = dtm_code_context(m, dtm, dtm_code);
    }
    if (!dtz) return true;
    if (f->version() >= DRAWS_IN_WDL_VERSION && is_draw(dtm)) {  // a draw's DTZ is not stored
        *dtz = VALUE_UNKNOWN;
        return true;
    }
    const Section& z = f->sections()[e->section_no[int(Metric::DTZ)][stm]];
    const uint32_t ctx = z.h.context == uint8_t(Context::DTM_SIGN)   ? uint32_t(sign_context(dtm))
                         : z.h.context == uint8_t(Context::DTM_CODE) ? dtm_code
                                                                     : 0;
    return read(Metric::DTZ, ctx, dtz_code, *dtz);
}

bool Tablebases::distances_from_moves(const PieceOn* pieces, int n, Color stm, Value& dtm, Value* dtz) const {
    TbBoard b;
    b.set(pieces, n);
    // Without DTZ asked for, the successors' DTZ is not read: the DTM does not depend on it.
    bool failed = false;
    // A zeroing move's DTZ depends on its successor's WDL alone (values_from_moves reads only
    // wdl_of_dtz of that DTZ): the successor's DTZ is not probed, only its WDL, and where its
    // side is left out too, its DTM is then found by branch and bound.
    auto zeroing_successor = [&](const PieceOn* after, int k, Color side, Value& sdtm, Value& sdtz) {
        const std::optional<int> wdl = wdl_of(after, k, side);
        if (!wdl) return false;
        sdtz = dtz_of_zeroing_move(-*wdl);  // a DTZ with that WDL
        return distances_of(after, k, side, sdtm, nullptr, wdl);
    };
    auto lookup = [&](const PieceOn* after, int k, Color side, Value& sdtm, Value& sdtz) {  // en passant
        sdtz = VALUE_UNKNOWN;
        if (dtz ? !zeroing_successor(after, k, side, sdtm, sdtz) : !distances_of(after, k, side, sdtm, nullptr))
            failed = true;
    };
    auto prepare = [](const TbMove&) { return uint64_t(0); };
    auto successor = [&](const TbMove& m, uint64_t, Value& sdtm, Value& sdtz) {
        PieceOn after[MAX_PIECES];
        const int k = pieces_after(b, m, after);
        sdtz = VALUE_UNKNOWN;
        if (dtz && m.zeroing(b)) return zeroing_successor(after, k, ~stm, sdtm, sdtz);
        return distances_of(after, k, ~stm, sdtm, dtz ? &sdtz : nullptr);
    };
    Value best_dtz;
    if (!values_from_moves(b, stm, prepare, successor, lookup, dtm, best_dtz) || failed) return false;
    if (dtz) *dtz = best_dtz;
    return true;
}

bool Tablebases::dtz_from_moves(const Entry& e, const TableFile& f, const PieceOn* pieces, int n, Color stm, int wdl,
                                Value& dtz) const {
    const Color them = ~stm;
    const int dtz_no = e.section_no[int(Metric::DTZ)][them], dtm_no = e.section_no[int(Metric::DTM)][them];
    const Section& z = f.sections()[dtz_no];
    // Under a DTM_CODE context a successor's DTZ is read through its exact DTM's code: the stored
    // DTM code, read in the same batch, unless a capture or promotion of the successor may beat it
    // (a MOVES_RESOLVED section), where the successor's DTM is resolved first.
    const bool by_code = z.h.context == uint8_t(Context::DTM_CODE);
    const Section& ms = f.sections()[dtm_no];
    TbBoard b;
    b.set(pieces, n);
    TbMove moves[MAX_TB_MOVES];
    int count = 0;
    for_each_legal_move(b, stm, [&](const TbMove& m) { moves[count++] = m; });
    if (count == 0) {
        dtz = b.in_check(stm) ? loss_in(0) : VALUE_UNKNOWN;
        return true;
    }
    bool failed = false;
    // A successor's five-valued WDL, with its en passant replies after a double step.
    auto successor_wdl = [&](const TbMove& m, const PieceOn* after, int k) {
        std::optional<int> w = wdl_of(after, k, them);
        if (!w) {
            failed = true;
            return 0;
        }
        int v = *w;
        if (m.double_step) {
            Value unused_dtm = VALUE_UNKNOWN;
            improve_with_en_passant(after, k, them, Square((m.from + m.to) / 2), m.to, unused_dtm, v,
                                    [&](const PieceOn* next, int k2, Color side, Value& sdtm, Value& sdtz) {
                                        sdtm = VALUE_UNKNOWN;
                                        const std::optional<int> w2 = wdl_of(next, k2, side);
                                        if (!w2) failed = true;
                                        sdtz = dtz_of_zeroing_move(-w2.value_or(0));  // a DTZ with that WDL
                                    });
        }
        return v;
    };
    Value best = VALUE_UNKNOWN;
    bool have_best = false;
    auto consider = [&](Value v) {
        if (!have_best || value_rank(v) > value_rank(best)) best = v;
        have_best = true;
    };
    // Zeroing moves first: a won position with a zeroing move that keeps the win has DTZ 1, and
    // then no quiet move is read.
    for (int i = 0; i < count && !failed; ++i) {
        if (!moves[i].zeroing(b)) continue;
        PieceOn after[MAX_PIECES];
        const int k = pieces_after(b, moves[i], after);
        consider(dtz_of_zeroing_move(successor_wdl(moves[i], after, k)));
    }
    if (failed) return false;
    if (have_best && best == win_in(1)) {
        dtz = best;
        return true;
    }
    // Quiet moves stay in this table, on the side it stores: their DTZ is read, in one batch. A
    // draw's DTZ may be anything (version 10) and a lost position's successors are all won, so
    // only a won position asks its quiet successors' WDL, to read the lost ones alone.
    struct Quiet {
        PieceOn after[MAX_PIECES];
        int k;
        uint64_t at;
        uint32_t context;
        std::optional<int> wdl;  // the successor's, where asked
    };
    Quiet quiet[MAX_TB_MOVES];
    // Codes in pair blocks go into the batch: the DTZ code, then (by_code) the DTM code, of each
    // quiet successor; the DTM section shares the DTZ's storage order (checked at load).
    PairsReader::BatchRead reads[2 * MAX_TB_MOVES];
    int num_quiet = 0, num_reads = 0, next_read = 0;
    auto queue = [&](const Section& s, uint64_t at) {
        if (!s.pairs) return;
        reads[num_reads].reader = &*s.pairs;
        reads[num_reads++].position = at;
    };
    // The code at `at` of section `no` (`s`): the batch's next read, or read now outside pair blocks.
    auto read_code = [&](const Section& s, int no, uint64_t at, uint32_t& code) {
        if (!s.pairs) return stored_code(e, f, no, at, code);
        const PairsReader::BatchRead& x = reads[next_read++];
        if (!x.ok) report_corrupt_pairs(e, f);
        code = x.code;
        return x.ok;
    };
    for (int i = 0; i < count && !failed; ++i) {
        const TbMove& m = moves[i];
        if (m.zeroing(b)) continue;
        Quiet& q = quiet[num_quiet];
        q.k = pieces_after(b, m, q.after);
        q.context = 2;  // the successor wins (DTM_SIGN)
        q.wdl.reset();
        if (wdl > 0) {
            const int w = successor_wdl(m, q.after, q.k);
            if (w >= 0) continue;  // not a winning move: never the best of a won position
            q.context = 0;
            q.wdl = w;
        }
        if (z.h.context == uint8_t(Context::NONE)) q.context = 0;
        q.at = z.order.to_storage(e.index->encode(placement_for(*e.index, q.after, q.k)));
        queue(z, q.at);
        if (by_code) queue(ms, q.at);
        ++num_quiet;
    }
    if (failed) return false;
    PairsReader::read_codes(reads, num_reads);
    for (int i = 0; i < num_quiet; ++i) {
        Quiet& q = quiet[i];
        uint32_t code;
        if (!read_code(z, dtz_no, q.at, code)) return false;
        if (by_code) {
            uint32_t dtm_code;
            uint16_t stored;
            if (!read_code(ms, dtm_no, q.at, dtm_code) || !ms.symbol(0, dtm_code, stored)) return false;
            // The successor is no draw: its stored DTM is exact unless a capture or promotion of
            // its own may beat it, and then it is resolved (given the code already read).
            Value exact = stored;
            if (ms.h.flags & FLAG_MOVES_RESOLVED) {
                TbBoard sb;
                sb.set(q.after, q.k);
                if (has_leaving_move(sb, them) && !distances_of(q.after, q.k, them, exact, nullptr, q.wdl, &dtm_code))
                    return false;
            }
            q.context = dtm_code_context(ms, exact, dtm_code);
        }
        uint16_t symbol;
        if (!z.symbol(q.context, code, symbol)) return false;
        consider(value_from_mover(symbol));
    }
    dtz = best;
    return true;
}

bool Tablebases::dtm_from_moves(const PieceOn* pieces, int n, Color stm, Value& dtm, RankWindow window) const {
    TbBoard b;
    b.set(pieces, n);
    // The stored codes bound the moves as they are, without draw_safe: this position is won
    // (its best move leads to a loss, whose code is a bound) or lost (every move leads to a win,
    // ditto), so a draw's code, whatever it is, only decides whether its move is resolved, and a
    // draw's exact value never beats a won position's best move.
    MoveCandidate moves[MAX_TB_MOVES];
    int count = 0;
    for_each_legal_move(b, stm, [&](const TbMove& m) { moves[count++].move = m; });
    if (count == 0) {
        dtm = b.in_check(stm) ? loss_in(0) : VALUE_UNKNOWN;
        return true;
    }
    bound_moves(b, stm, false, moves, count);
    return best_of_moves(b, stm, moves, count, dtm, false, window);
}

std::optional<ProbeResult> Tablebases::probe_pieces(const PieceOn* pieces, int n, Color stm, int need) const {
    ProbeResult r;
    Value dtm, dtz;
    // WDL first: the distances of a side a file leaves out start from it.
    std::optional<int> wdl = need & NEED_WDL ? wdl_of(pieces, n, stm) : std::nullopt;
    // Without a WDL file (or with a refused one) the exact DTZ says the WDL: read it then too.
    const bool dtz_for_wdl = (need & NEED_WDL) && !wdl;
    const bool read_dtz = (need & NEED_DTZ) || dtz_for_wdl;
    bool have = false;
    if ((need & (NEED_DTM | NEED_DTZ)) || dtz_for_wdl) have = distances_of(pieces, n, stm, dtm, read_dtz ? &dtz : nullptr, wdl);
    if (have) r.dtm = dtm;
    if (have && (need & NEED_DTZ)) r.dtz = dtz;
    if (!(need & NEED_WDL)) {
        if (!have) return std::nullopt;
        r.wdl = is_win(dtm) ? 2 : is_loss(dtm) ? -2 : 0;  // not asked for; the sign at least is right
        return r;
    }
    if (dtz_for_wdl && have) wdl = wdl_of_dtz(dtz);
    if (!wdl) return std::nullopt;
    r.wdl = *wdl;
    return r;
}

std::optional<ProbeResult> Tablebases::probe_position(const Position& pos, int need) const {
    const int n = pos.count_all();
    if (pos.castling_rights() || n > MAX_PIECES || (n > max_pieces_ && n > 2)) return std::nullopt;
    PieceOn pieces[MAX_PIECES];
    pieces_of(pos, pieces);
    const Color us = pos.side_to_move();
    if (pos.ep_square() == SQ_NONE) return probe_pieces(pieces, n, us, need);

    // An en passant right: the value is the best of the stored position (which has the same
    // moves but the capture) and each legal en passant capture.
    std::optional<ProbeResult> best;
    int other_moves = 0;
    for (Move m : MoveList(pos)) {
        if (m.kind() != Move::EN_PASSANT) {
            ++other_moves;
            continue;
        }
        PieceOn after[MAX_PIECES];
        int k = 0;
        const Square captured = m.to() - pawn_push(us);
        for (int i = 0; i < n; ++i) {
            if (pieces[i].square == captured) continue;
            after[k] = pieces[i];
            if (pieces[i].square == m.from()) after[k].square = m.to();
            ++k;
        }
        const std::optional<ProbeResult> r = probe_pieces(after, k, ~us, need);
        if (!r) return std::nullopt;
        ProbeResult mine;
        mine.wdl = -r->wdl;
        if (r->dtm) mine.dtm = dtm_of_move(*r->dtm);
        if (need & NEED_DTZ) mine.dtz = dtz_of_move(true, r->wdl, VALUE_UNKNOWN);
        if (!best) {
            best = mine;
            continue;
        }
        best->wdl = std::max(best->wdl, mine.wdl);
        best->dtm = better(best->dtm, mine.dtm, value_rank);
        best->dtz = better(best->dtz, mine.dtz, dtz_rank);
    }
    if (other_moves) {
        const std::optional<ProbeResult> stored = probe_pieces(pieces, n, us, need);
        if (!stored) return std::nullopt;
        if (!best) return stored;
        best->wdl = std::max(best->wdl, stored->wdl);
        best->dtm = better(best->dtm, stored->dtm, value_rank);
        best->dtz = better(best->dtz, stored->dtz, dtz_rank);
    }
    return best;
}

std::optional<Value> Tablebases::probe_dtm_within(const Position& pos, RankWindow window) const {
    const int n = pos.count_all();
    if (pos.castling_rights() || pos.ep_square() != SQ_NONE || n > MAX_PIECES || (n > max_pieces_ && n > 2))
        return std::nullopt;
    PieceOn pieces[MAX_PIECES];
    pieces_of(pos, pieces);
    Value dtm;
    if (!distances_of(pieces, n, pos.side_to_move(), dtm, nullptr, std::nullopt, nullptr, window)) return std::nullopt;
    return dtm;
}

std::optional<int> Tablebases::probe_wdl(const Position& pos) const {
    const int n = pos.count_all();
    if (pos.ep_square() != SQ_NONE || n == 2) {
        auto r = probe_position(pos, NEED_WDL);
        return r ? std::optional<int>(r->wdl) : std::nullopt;
    }
    // The search's hot path: no move generation, no allocation.
    if (pos.castling_rights() || n > max_pieces_) return std::nullopt;
    PieceOn pieces[MAX_PIECES];
    pieces_of(pos, pieces);
    if (auto wdl = wdl_of(pieces, n, pos.side_to_move())) return wdl;
    // No WDL file (or a refused one): the DTZ file, if there, knows the WDL too.
    auto r = probe_pieces(pieces, n, pos.side_to_move(), NEED_WDL | NEED_DTZ);
    return r ? std::optional<int>(r->wdl) : std::nullopt;
}

std::optional<Value> Tablebases::probe_dtz(const Position& pos) const {
    auto r = probe_position(pos, NEED_WDL | NEED_DTZ);
    return r ? r->dtz : std::nullopt;
}

std::optional<Value> Tablebases::probe_dtm(const Position& pos) const {
    auto r = probe_position(pos, NEED_DTM);
    return r ? r->dtm : std::nullopt;
}

std::optional<ProbeResult> Tablebases::probe(const Position& pos) const { return probe_position(pos, NEED_ALL); }

Value dtm_of_move(Value after) { return value_from_mover(after); }

Value dtz_of_move(bool zeroing, int wdl_after, Value dtz_after) {
    return zeroing ? dtz_of_zeroing_move(wdl_after) : value_from_mover(dtz_after);
}

std::optional<std::vector<RootMove>> Tablebases::rank_root_moves(const Position& root, bool successor_dtz) const {
    const int n = root.count_all();
    if (root.castling_rights() || n > MAX_PIECES || (n > max_pieces_ && n > 2)) return std::nullopt;
    Position pos = root;
    std::vector<RootMove> moves;
    for (Move m : MoveList(root)) {
        RootMove rm;
        rm.move = m;
        rm.zeroing = root.is_capture(m) || type_of(root.moved_piece(m)) == PAWN;
        pos.do_move(m);
        const std::optional<ProbeResult> after =
            probe_position(pos, rm.zeroing && !successor_dtz ? NEED_WDL | NEED_DTM : NEED_ALL);
        pos.undo_move();
        if (!after) return std::nullopt;
        rm.after = *after;
        rm.wdl = -after->wdl;
        if (after->dtm) rm.dtm = dtm_of_move(*after->dtm);
        if (rm.zeroing) rm.dtz = dtz_of_move(true, after->wdl, VALUE_UNKNOWN);
        else if (after->dtz) rm.dtz = dtz_of_move(false, after->wdl, *after->dtz);
        rm.wdl50 = rm.wdl;
        // A non-zeroing move carries the halfmove clock on: the zeroing must come in time.
        if (!rm.zeroing && rm.dtz && std::abs(rm.wdl) == 2 && root.rule50() + distance_of(*rm.dtz) > 100)
            rm.wdl50 = rm.wdl / 2;
        moves.push_back(rm);
    }
    std::stable_sort(moves.begin(), moves.end(), [](const RootMove& a, const RootMove& b) {
        if (a.wdl50 != b.wdl50) return a.wdl50 > b.wdl50;
        const int da = a.dtm ? value_rank(*a.dtm) : -1000000, db = b.dtm ? value_rank(*b.dtm) : -1000000;
        if (da != db) return da > db;
        const int za = a.dtz ? dtz_rank(*a.dtz) : -1000000, zb = b.dtz ? dtz_rank(*b.dtz) : -1000000;
        return za > zb;
    });
    return moves;
}

}  // namespace pythia::tb
