#include "tablebase/generator.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "tablebase/tb_board.h"

namespace pythia::tb {

namespace {

constexpr uint8_t ESCAPE = 0xFF;  // counter value of a position that can never be lost

// The value of a move's successor as seen by the mover, one ply further away.
Value dtm_from_mover(Value successor) {
    if (is_loss(successor)) return win_in(distance_of(successor) + 1);
    if (is_win(successor)) return loss_in(distance_of(successor) + 1);
    return VALUE_UNKNOWN;
}

// Orders DTM values from the side to move's view: quick wins, then draws, then slow losses.
int dtm_rank(Value v) {
    if (is_win(v)) return 100000 - distance_of(v);
    if (is_loss(v)) return -100000 + distance_of(v);
    return 0;
}

// Number of board symmetries that leave the position unchanged (1 or 2 for pawnless tables,
// whose canonical white king square lies in the a1-d1-d4 triangle). Only a reflection in a
// diagonal through the white king can fix a position.
int stabilizer_size(const PieceOn* pieces, int n) {
    Square wk = pieces[0].square;
    int t = file_of(wk) == rank_of(wk) ? 4 : file_of(wk) + rank_of(wk) == 7 ? 7 : -1;
    if (t < 0) return 1;
    for (int i = 0; i < n; ++i) {
        Square image = transform_square(pieces[i].square, t);
        bool found = false;
        for (int j = 0; j < n && !found; ++j)
            found = pieces[j].square == image && pieces[j].color == pieces[i].color && pieces[j].type == pieces[i].type;
        if (!found) return 1;
    }
    return 2;
}

// One metric's solving state for a slice.
struct Metric {
    Value* values[COLOR_NB];
    uint8_t* counts[COLOR_NB];
    std::vector<std::vector<uint32_t>> buckets;  // pending positions by distance
    std::vector<uint32_t> mates;                 // finalised at distance 0

    void schedule(uint32_t pos, int distance) {
        if (buckets.size() <= size_t(distance)) buckets.resize(distance + 1);
        buckets[distance].push_back(pos);
    }
};

class Generator {
public:
    Generator(const Material& material, const TableSet& subtables, const GenerationOptions& options)
        : table_(std::make_shared<TableValues>(material)),
          index_(table_->index),
          subtables_(subtables),
          options_(options) {}

    std::shared_ptr<TableValues> run() {
        const uint64_t size = index_.size();
        for (Color c : {WHITE, BLACK}) {
            table_->dtm[c].assign(size, VALUE_ILLEGAL);
            table_->dtz[c].assign(size, VALUE_ILLEGAL);
        }
        const uint64_t slice_size = index_.slice_size();
        counts_dtm_[WHITE].resize(slice_size);
        counts_dtm_[BLACK].resize(slice_size);
        counts_dtz_[WHITE].resize(slice_size);
        counts_dtz_[BLACK].resize(slice_size);

        for (int slice = 0; slice < index_.num_slices(); ++slice) {
            const uint64_t base = uint64_t(slice) * slice_size;
            Metric dtm, dtz;
            for (Color c : {WHITE, BLACK}) {
                dtm.values[c] = table_->dtm[c].data() + base;
                dtz.values[c] = table_->dtz[c].data() + base;
                dtm.counts[c] = counts_dtm_[c].data();
                dtz.counts[c] = counts_dtz_[c].data();
            }
            initialise_slice(base, dtm, dtz);
            solve(base, dtm);
            solve(base, dtz);
        }
        return table_;
    }

private:
    // Values of a successor position: in this table (an earlier slice) or in a subtable.
    void lookup(const PieceOn* pieces, int n, Color stm, Value& dtm, Value& dtz) const {
        Material m;
        for (int i = 0; i < n; ++i)
            m.set_count(pieces[i].color, pieces[i].type, m.count(pieces[i].color, pieces[i].type) + 1);
        if (m == index_.material()) {
            uint64_t idx = index_.encode(placement_for(index_, pieces, n));
            dtm = table_->dtm[stm][idx];
            dtz = table_->dtz[stm][idx];
            return;
        }
        if (!subtables_.lookup(pieces, n, stm, dtm, dtz))
            throw std::runtime_error("generating " + index_.material().name() + " needs table " +
                                     m.normalized().name() + ", which is not loaded");
    }

    // The value, for the side to move, of the position after a double step, where the side to
    // move may also capture en passant: the better of the stored position and the captures.
    void with_en_passant(const PieceOn* after, int n, Color stm, Square ep_square, Square pawn_sq, Value& dtm,
                         int& wdl) const {
        TbBoard z;
        z.n = n;
        for (int i = 0; i < n; ++i) z.pieces[i] = after[i];
        z.rebuild();
        Bitboard capturers = pawn_attacks(~stm, ep_square) & z.by_color[stm] & z.by_type[PAWN];
        if (!capturers) return;

        bool any_ep = false;
        Value best_dtm = VALUE_UNKNOWN;
        int best_wdl = -3;
        while (capturers) {
            Square from = pop_lsb(capturers);
            Bitboard occ = (z.all ^ square_bb(from) ^ square_bb(pawn_sq)) | square_bb(ep_square);
            if (z.attacked(z.king(stm), ~stm, occ, square_bb(pawn_sq))) continue;
            PieceOn next[MAX_PIECES];
            int k = 0;
            for (int i = 0; i < n; ++i) {
                if (after[i].square == pawn_sq) continue;
                next[k] = after[i];
                if (after[i].square == from) next[k].square = ep_square;
                ++k;
            }
            Value sdtm, sdtz;
            lookup(next, k, ~stm, sdtm, sdtz);
            Value v = dtm_from_mover(sdtm);
            if (!any_ep || dtm_rank(v) > dtm_rank(best_dtm)) best_dtm = v;
            best_wdl = std::max(best_wdl, -wdl_of_dtz(sdtz));
            any_ep = true;
        }
        if (!any_ep) return;
        // Without its en passant right the position may have had no move at all.
        bool other_moves = for_each_legal_move(z, stm, [](const TbMove&) {}) > 0;
        if (!other_moves || dtm_rank(best_dtm) > dtm_rank(dtm)) dtm = best_dtm;
        if (!other_moves || best_wdl > wdl) wdl = best_wdl;
    }

    void initialise_slice(uint64_t base, Metric& dtm, Metric& dtz) {
        const uint64_t n = index_.slice_size();
        const bool pawnless = !index_.has_pawns();
        for (uint64_t r = 0; r < n; ++r) {
            Placement p;
            if (!index_.decode(base + r, p)) {
                for (Color c : {WHITE, BLACK}) {
                    dtm.values[c][r] = dtz.values[c][r] = VALUE_ILLEGAL;
                    dtm.counts[c][r] = dtz.counts[c][r] = 0;
                }
                continue;
            }
            TbBoard b;
            b.set(index_, p);
            for (Color us : {WHITE, BLACK}) {
                dtm.counts[us][r] = dtz.counts[us][r] = 0;
                if (b.in_check(~us)) {
                    dtm.values[us][r] = dtz.values[us][r] = VALUE_ILLEGAL;
                    continue;
                }
                int count = 0;
                bool escape = false;
                int win_dtm = 0, seed_dtm = 0, win_dtz = 0, seed_dtz = 0;
                auto better_win = [](int& w, int d) { w = w == 0 ? d : std::min(w, d); };
                int moves = for_each_legal_move(b, us, [&](const TbMove& m) {
                    PieceOn after[MAX_PIECES];
                    int k = pieces_after(b, m, after);
                    if (!m.zeroing(b)) {
                        count += pawnless ? stabilizer_size(after, k) : 1;
                        return;
                    }
                    Value sdtm, sdtz;
                    lookup(after, k, ~us, sdtm, sdtz);
                    int wdl = wdl_of_dtz(sdtz);  // the opponent's
                    if (m.double_step) {
                        // The opponent's view: negate, improve with en passant, negate back.
                        Value opp_dtm = sdtm;
                        with_en_passant(after, k, ~us, Square((m.from + m.to) / 2), m.to, opp_dtm, wdl);
                        sdtm = opp_dtm;
                    }
                    if (is_loss(sdtm)) better_win(win_dtm, distance_of(sdtm) + 1);
                    else if (is_win(sdtm)) seed_dtm = std::max(seed_dtm, distance_of(sdtm) + 1);
                    else escape = true;
                    switch (wdl) {
                    case -2: better_win(win_dtz, 1); break;
                    case -1: better_win(win_dtz, 101); break;
                    case 1: seed_dtz = std::max(seed_dtz, 101); break;
                    case 2: seed_dtz = std::max(seed_dtz, 1); break;
                    default: break;
                    }
                });
                const uint32_t pos = uint32_t(r * 2 + us);
                if (moves == 0) {
                    if (b.in_check(us)) {
                        dtm.values[us][r] = dtz.values[us][r] = loss_in(0);
                        dtm.mates.push_back(pos);
                        dtz.mates.push_back(pos);
                    } else {
                        dtm.values[us][r] = dtz.values[us][r] = VALUE_UNKNOWN;  // stalemate
                        dtm.counts[us][r] = dtz.counts[us][r] = ESCAPE;
                    }
                    continue;
                }
                if (count >= ESCAPE) throw std::logic_error("move counter overflow");
                const uint8_t c = escape ? ESCAPE : uint8_t(count);
                dtm.counts[us][r] = dtz.counts[us][r] = c;
                set_initial(dtm, r, us, pos, win_dtm, seed_dtm, c);
                set_initial(dtz, r, us, pos, win_dtz, seed_dtz, c);
            }
        }
    }

    static void set_initial(Metric& m, uint64_t r, Color us, uint32_t pos, int win, int seed, uint8_t count) {
        if (win) {
            m.values[us][r] = Value(KIND_PENDING_WIN | win);
            m.schedule(pos, win);
        } else if (count == 0) {
            // Only conversions, all of them losing: lost as slowly as the slowest allows.
            m.values[us][r] = Value(KIND_PENDING_LOSS | seed);
            m.schedule(pos, seed);
        } else {
            m.values[us][r] = seed ? Value(KIND_LOSS_SEED | seed) : VALUE_UNKNOWN;
        }
    }

    // Retrograde solving of one metric in a slice, by increasing distance.
    void solve(uint64_t base, Metric& m) {
        const bool pawnless = !index_.has_pawns();
        std::vector<uint32_t> frontier = std::move(m.mates), next;
        for (int d = 0; d < int(m.buckets.size()) || !frontier.empty(); ++d) {
            // Pending values of distance d are final now: nothing shorter was found.
            if (d < int(m.buckets.size())) {
                for (uint32_t pos : m.buckets[d]) {
                    Value& v = m.values[pos & 1][pos >> 1];
                    if (v == Value(KIND_PENDING_WIN | d)) v = win_in(d);
                    else if (v == Value(KIND_PENDING_LOSS | d)) v = loss_in(d);
                    else continue;
                    frontier.push_back(pos);
                }
                std::vector<uint32_t>().swap(m.buckets[d]);
            }
            next.clear();
            for (uint32_t pos : frontier) {
                const Color stm = Color(pos & 1);
                const uint64_t r = pos >> 1;
                const bool lost = is_loss(m.values[stm][r]);
                Placement p;
                index_.decode(base + r, p);
                TbBoard b;
                b.set(index_, p);
                const Color mover = ~stm;  // the side that moved into this position
                for (int i = 0; i < b.n; ++i) {
                    if (b.pieces[i].color != mover || b.pieces[i].type == PAWN) continue;
                    const Square at = b.pieces[i].square;
                    Bitboard origins = attacks_bb(b.pieces[i].type, at, b.all) & ~b.all;
                    if (b.pieces[i].type == KING) origins &= ~king_attacks(b.king(stm));  // kings never touch
                    while (origins) {
                        Placement q = p;
                        q[i] = pop_lsb(origins);
                        const uint64_t qr = index_.encode(q) - base;
                        Value& v = m.values[mover][qr];
                        if (v == VALUE_ILLEGAL) continue;
                        const Value kind = v & KIND_MASK;
                        if (lost) {
                            // The predecessor wins by moving here.
                            if (kind == VALUE_UNKNOWN || kind == KIND_LOSS_SEED ||
                                (kind == KIND_PENDING_WIN && distance_of(v) > d + 1)) {
                                v = win_in(d + 1);
                                next.push_back(uint32_t(qr * 2 + mover));
                            }
                        } else if (kind == VALUE_UNKNOWN || kind == KIND_LOSS_SEED) {
                            // One more of the predecessor's moves is known to lose.
                            uint8_t& c = m.counts[mover][qr];
                            if (c == ESCAPE) continue;
                            int weight = 1;
                            if (pawnless) {
                                PieceOn pcs[MAX_PIECES];
                                for (int j = 0; j < b.n; ++j) pcs[j] = {b.pieces[j].color, b.pieces[j].type, q[j]};
                                weight = stabilizer_size(pcs, b.n);
                            }
                            if (c < weight)
                                throw std::logic_error("move counter underflow in " + index_.material().name());
                            c = uint8_t(c - weight);
                            if (c) continue;
                            int loss = std::max(d + 1, kind == KIND_LOSS_SEED ? distance_of(v) : 0);
                            if (loss == d + 1) {
                                v = loss_in(loss);
                                next.push_back(uint32_t(qr * 2 + mover));
                            } else {
                                v = Value(KIND_PENDING_LOSS | loss);
                                m.schedule(uint32_t(qr * 2 + mover), loss);
                            }
                        }
                    }
                }
            }
            std::swap(frontier, next);
        }
        // Whatever is undecided now is a draw.
        const uint64_t n = index_.slice_size();
        for (Color c : {WHITE, BLACK})
            for (uint64_t r = 0; r < n; ++r) {
                Value& v = m.values[c][r];
                if (v != VALUE_ILLEGAL && !is_final(v)) v = VALUE_UNKNOWN;
            }
    }

    std::shared_ptr<TableValues> table_;
    const TableIndex& index_;
    const TableSet& subtables_;
    GenerationOptions options_;
    std::vector<uint8_t> counts_dtm_[COLOR_NB], counts_dtz_[COLOR_NB];
};

}  // namespace

std::shared_ptr<TableValues> generate_table(const Material& material, const TableSet& subtables,
                                            const GenerationOptions& options) {
    return Generator(material.normalized(), subtables, options).run();
}

}  // namespace pythia::tb
