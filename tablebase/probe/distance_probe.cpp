// DTM and DTZ probes: a stored value where the file has it, else the best of the moves the file
// leaves to the reader (captures, promotions, the side to move it leaves out), by alpha-beta.
#include "tablebase/probe/table_entry.h"

namespace pythia::tb {

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
// that DTM is stored exactly (a section without MOVES_RESOLVED: the 3-4-piece tables), sets `exact` and
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
    if (!s.pairs) {  // a constant section, or LZ4 blocks (codes of more than 8 bits): no batch
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

bool Tablebases::best_of_moves(const TbBoard& b, Color us, MoveCandidate* c, int count, Value& best, bool have_best,
                               RankWindow window) const {
    std::sort(c, c + count, [](const MoveCandidate& x, const MoveCandidate& y) { return x.bound > y.bound; });
    bool failed = false;
    auto lookup = [&](const PieceOn* after, int k, Color side, Value& sdtm, Value& sdtz) {
        sdtz = VALUE_UNKNOWN;
        if (!distances_of(after, k, side, sdtm, nullptr)) failed = true;
    };
    for (int i = 0; i < count; ++i) {
        if (have_best && c[i].bound <= value_rank(best)) break;  // sorted: no move left can do better
        if (have_best && value_rank(best) >= window.hi) break;   // a lower bound at or above the window
        if (c[i].bound <= window.lo) {                           // no move left can lift the value above the window
            if (!have_best || c[i].bound > value_rank(best)) best = value_of_rank(c[i].bound);  // an upper bound
            return true;
        }
        const TbMove& m = c[i].move;
        PieceOn after[MAX_PIECES];
        const int k = pieces_after(b, m, after);
        Value sdtm = c[i].dtm;
        if (!c[i].exact &&
            !distances_of(after, k, ~us, sdtm, nullptr, c[i].known_wdl(), c[i].read ? &c[i].code : nullptr,
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

bool Tablebases::distances_of(const PieceOn* pieces, int n, Color stm, Value& dtm, Value* dtz, std::optional<int> wdl,
                              const uint32_t* stored_dtm, RankWindow window) const {
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
    if (wdl == 0) {  // a draw has no distance; its DTM and DTZ may not even be stored
        dtm = VALUE_UNKNOWN;
        if (dtz) *dtz = VALUE_UNKNOWN;
        return true;
    }
    pieces = at.pieces;
    stm = at.stm;
    if (f->left_out_side() == stm) {
        // DTZ from the successors' stored DTZ, read in one batch, and DTM by branch and bound;
        // where a read fails or the WDL is unknown, every successor probed whole.
        if (dtz && wdl && dtz_from_moves(*e, *f, pieces, n, stm, *wdl, *dtz))
            return dtm_from_moves(pieces, n, stm, dtm);
        return dtz || !wdl ? distances_from_moves(pieces, n, stm, dtm, dtz)
                           : dtm_from_moves(pieces, n, stm, dtm, window);
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
        // The stored DTM may be low where a capture or promotion achieves more :
        // the best of it and those moves, each resolved only if its bound can beat the best so far.
        TbBoard b;
        b.set(pieces, n);
        MoveCandidate leaving[MAX_TB_MOVES];
        int count = 0;
        for_each_leaving_move(b, stm, [&](const TbMove& mv) { leaving[count++].move = mv; });
        // Where the WDL file stores a draw, the stored DTM may be anything
        // (the position is a draw) unless a leaving move wins, which then makes it no draw. (A WDL
        // known to be no draw, the probe's common case, needs no second read.) The position's own
        // DTM and WDL codes are read in the moves' batch.
        const bool need_wdl = (m.h.flags & FLAG_DRAWS_IN_WDL) && !wdl;
        const TableFile* wdl_file = e->files[KIND_WDL].get();  // opened before this file, which needs it
        const Section* w = nullptr;                            // the WDL section if its code is read in the batch
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
            const std::optional<int> stored_w = !own_wdl      ? stored_wdl(*e, idx, stm)
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
            if (!is_win(best))
                dtm = VALUE_UNKNOWN;
            else if (value_rank(best) > value_rank(dtm))
                dtm = best;
        } else if (!best_of_moves(b, stm, leaving, count, dtm, true, window)) {
            return false;
        }
        dtm_code = dtm_code_context(m, dtm, dtm_code);
    }
    if (!dtz) return true;
    if (is_draw(dtm)) {  // a draw's DTZ is not stored
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
    // draw's DTZ may be anything and a lost position's successors are all won, so
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

}  // namespace pythia::tb
