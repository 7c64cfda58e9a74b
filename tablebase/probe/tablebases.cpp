#include "tablebase/probe/tablebases.h"

#include "tablebase/probe/table_entry.h"

namespace pythia::tb {

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
    // What a user can do about it: every refused file is made again by the generator.
    const std::filesystem::path path(file);
    const std::string line = file + ": " + problem + "; generate it again with: pythia tb generate " +
                             path.stem().string() + " --dir " + path.parent_path().string();
    spdlog::error("tablebase {}", line);
    std::lock_guard<std::mutex> lock(errors_mutex_);
    refused_.push_back(line);
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
        for (auto it = std::filesystem::directory_iterator(folder, ec);
             !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
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
        messages.push_back("tablebases: " + std::to_string(wdl_tables) + " WDL and " + std::to_string(distance_tables) +
                           " DTM/DTZ tables, up to " + std::to_string(max_pieces_) + " pieces");
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
        if (!e.reported_corrupt_block.exchange(true))
            refuse(f.path().string(), "corrupt block " + std::to_string(block));
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
    if (!e.resident_wdl[stm].empty())
        code = code_at(e.resident_wdl[stm].data(), at, s.bits());
    else if (!stored_code(e, *f, no, at, code))
        return std::nullopt;
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

std::optional<ProbeResult> Tablebases::probe_pieces(const PieceOn* pieces, int n, Color stm, int need) const {
    ProbeResult r;
    Value dtm, dtz;
    // WDL first: the distances of a side a file leaves out start from it.
    std::optional<int> wdl = need & NEED_WDL ? wdl_of(pieces, n, stm) : std::nullopt;
    // Without a WDL file (or with a refused one) the exact DTZ says the WDL: read it then too.
    const bool dtz_for_wdl = (need & NEED_WDL) && !wdl;
    const bool read_dtz = (need & NEED_DTZ) || dtz_for_wdl;
    bool have = false;
    if ((need & (NEED_DTM | NEED_DTZ)) || dtz_for_wdl)
        have = distances_of(pieces, n, stm, dtm, read_dtz ? &dtz : nullptr, wdl);
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

}  // namespace pythia::tb
