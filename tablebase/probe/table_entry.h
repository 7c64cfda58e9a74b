// The prober's own view of a table: its files, opened lazily and lock-free, and the small helpers
// that the parts of the prober share (tablebases.cpp: files and WDL; distance_probe.cpp: DTM and
// DTZ with the moves the files leave to the reader; root_ranking.cpp). Not for use elsewhere.
#pragma once

#include "tablebase/probe/tablebases.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <limits>
#include <map>
#include <sstream>

#include "engine/core/mapped_file.h"
#include "engine/core/movegen.h"
#include "tablebase/format/block_cache.h"
#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/probe/captures.h"
#include "tablebase/probe/move_values.h"
#include "tablebase/probe/successor_values.h"

namespace pythia::tb {

namespace prober {

enum : uint8_t { UNOPENED, OPEN, FAILED };
constexpr int KIND_WDL = 0, KIND_DISTANCE = 1;

// WDL sections this small are decoded whole when their file is opened and kept in memory
// (shared by all threads): the captures the prober searches lead into the smaller tables, and
// their probes then cost a memory read instead of a block decode. All 3- and 4-piece WDL
// tables together take about 30 MB decoded.
constexpr uint64_t RESIDENT_WDL_BYTES = 4 << 20;               // per section
constexpr uint64_t RESIDENT_WDL_BUDGET = uint64_t(256) << 20;  // per Tablebases

// Piece counts by colour and type, 4 bits each: a table's key, read straight off a position.
inline uint64_t key_of(const Material& m) {
    uint64_t k = 0;
    for (Color c : {WHITE, BLACK})
        for (int pt = PAWN; pt <= KING; ++pt) k += uint64_t(m.count(c, PieceType(pt))) << (4 * (c * 8 + pt));
    return k;
}
inline uint64_t key_of(const PieceOn* pieces, int n) {
    uint64_t k = 0;
    for (int i = 0; i < n; ++i) k += uint64_t(1) << (4 * (pieces[i].color * 8 + pieces[i].type));
    return k;
}
// The slot table is masked to its low bits, so the hash must mix every count into them: the
// black counts sit in the key's bits 36-59, which a product alone carries only into higher bits
// (`key * K >> 20` ignored them: a lookup probed 14.6 slots on average on the 3-5-piece set).
inline uint64_t slot_hash(uint64_t key) { return ((key ^ (key >> 31)) * 0x9E3779B97F4A7C15ull) >> 40; }

inline int sign_context(Value dtm) { return is_loss(dtm) ? 0 : is_win(dtm) ? 2 : 1; }

// The context of a DTZ read through DTM codes (Context::DTM_CODE): where the DTM section leaves
// captures and promotions to the reader, the lowest code of the exact DTM (the writer's rule,
// encode_dtz), else the code stored.
inline uint32_t dtm_code_context(const Section& dtm_section, Value exact_dtm, uint32_t stored_code) {
    if (!(dtm_section.h.flags & FLAG_MOVES_RESOLVED)) return stored_code;
    const int code = code_of_value(dtm_section.code_by_value, exact_dtm);
    return code >= 0 ? uint32_t(code) : stored_code;
}

// Orders DTZ values the same way, wins under the 50-move rule before cursed ones.
inline int dtz_rank(Value v) {
    return wdl_of_dtz(v) * 10000 + (is_win(v) ? -distance_of(v) : is_loss(v) ? distance_of(v) : 0);
}

template <typename Rank>
std::optional<Value> better(std::optional<Value> a, std::optional<Value> b, Rank rank) {
    if (!a || !b) return std::nullopt;
    return rank(*b) > rank(*a) ? b : a;
}

// A WDL section's value for `code`.
inline std::optional<int> wdl_of_code(const Section& s, uint32_t code) {
    uint16_t symbol;
    if (!s.symbol(0, code, symbol)) return std::nullopt;
    return int(symbol) - 2;
}

inline int pieces_of(const Position& pos, PieceOn* out) {
    int n = 0;
    for (Bitboard b = pos.pieces(); b && n < MAX_PIECES;) {
        const Square s = pop_lsb(b);
        const Piece p = pos.piece_on(s);
        out[n++] = {color_of(p), type_of(p), s};
    }
    return n;
}

}  // namespace prober

using namespace prober;

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
        // worth their memory. Building them decodes the section (0.45 s on KRPvKB's DTM): off
        // the caller's path where files open in the background.
        const TableFile* opened = files[kind].get();
        if (kind == KIND_DISTANCE && owner.open_in_background_)
            owner.opener_.post([opened](const std::atomic<bool>& stop) { opened->build_checkpoints(&stop); });
        else if (kind == KIND_DISTANCE && owner.checkpoints_at_open_)
            opened->build_checkpoints();
        return opened;
    }
};

}  // namespace pythia::tb
