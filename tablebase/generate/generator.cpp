#include "tablebase/generate/generator.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <thread>

#include <spdlog/spdlog.h>

#include "tablebase/generate/process_group.h"
#include "tablebase/probe/move_values.h"

namespace pythia::tb {

namespace {

constexpr uint8_t ESCAPE = 0xFF;  // counter value of a position that can never be lost

// Number of board symmetries that leave the position unchanged (1 or 2 for pawnless tables,
// whose canonical white king square lies in the a1-d1-d4 triangle). Only a reflection in a
// diagonal through the white king can fix a position.
int stabilizer_size(const PieceOn* pieces, int n) {
    const Square wk = pieces[0].square;
    // The reflection in a1-h8 (transform 4) or in a8-h1 (transform 7).
    const int t = file_of(wk) == rank_of(wk) ? 4 : file_of(wk) + rank_of(wk) == 7 ? 7 : -1;
    if (t < 0) return 1;
    for (int i = 0; i < n; ++i) {
        const Square to = transform_square(pieces[i].square, t);
        bool found = false;
        for (int j = 0; j < n && !found; ++j)
            found = pieces[j].square == to && pieces[j].color == pieces[i].color && pieces[j].type == pieces[i].type;
        if (!found) return 1;
    }
    return 2;
}

bool on_a_diagonal(Square s) { return file_of(s) == rank_of(s) || file_of(s) + rank_of(s) == 7; }

// True if the black king stands on the diagonal through the white king that stabilizer_size
// reflects in; otherwise the position has no symmetry (the black king is not fixed).
bool kings_on_one_diagonal(Square wk, Square bk) {
    if (file_of(wk) == rank_of(wk)) return file_of(bk) == rank_of(bk);
    return file_of(wk) + rank_of(wk) == 7 && file_of(bk) + rank_of(bk) == 7;
}

// Positions in the solver's lists: slice-relative index, whether it is lost (so that the
// frontier need not read the value back from a cold cache line) and the side to move. Id is
// uint32_t where the slice has fewer than 2^30 positions (every table of up to five pieces) and
// uint64_t beyond: 32-bit ids halve the lists, which hold hundreds of megabytes in a 5-piece
// table, and the batches of predecessors the solver keeps in cache.
template <typename Id>
inline Id position_id(uint64_t r, Color stm, bool lost) {
    return Id(r << 2 | uint64_t(lost) << 1 | stm);
}

// Sorts position ids (by index) in passes of 11 bits over the low `bits` bits (three passes
// for 32-bit ids); O(n), unlike std::sort.
template <typename Id>
inline void radix_sort(std::vector<Id>& v, std::vector<Id>& scratch, int bits) {
    scratch.resize(v.size());
    for (int shift = 0; shift < bits; shift += 11) {
        size_t counts[2049] = {};
        for (Id x : v) ++counts[((x >> shift) & 2047) + 1];
        for (int i = 0; i < 2048; ++i) counts[i + 1] += counts[i];
        for (Id x : v) scratch[counts[(x >> shift) & 2047]++] = x;
        v.swap(scratch);
    }
}

// The solver takes frontier positions in batches (see solve()), and a position has at most this
// many un-moves: a king's 8 and at most four other pieces of one side, a queen's 27 each.
constexpr size_t BATCH = 64;
constexpr size_t MAX_UNMOVES = 8 + 4 * 27;

// With pawns, a pawn move keeps the kings or mirrors the board left to right (the orientation
// follows the pawns). Runs of whole ranks of the white king's square (a slice's king pairs are
// white king x 64 + black king) are closed under that mirror: a process then looks up only its
// own king pairs of earlier slices and needs no other process's values. The board has 8 ranks.
constexpr int MAX_MIRROR_CLOSED_RUNS = 8;

// A position whose value may change because one of its successors was just decided.
template <typename Id>
struct PredecessorOf {
    Id r;             // slice-relative index
    uint8_t mover;    // side to move in the predecessor
    uint8_t winning;  // the predecessor wins by this move (the successor is lost)
    uint8_t weight;   // its symmetry weight for the move counter
};

// A position's state while its slice is solved: its value and how many of its moves are not
// yet known to lose (ESCAPE: it can never be lost). One cache line access per update.
struct Cell {
    Value value;
    uint8_t count;
    // DTZ only (initialise_range): the best WDL the resolving captures reach, 3 + it in the low
    // nibble (0: none), and that of the quiet queen promotions in the high nibble.
    uint8_t resolving;
};

// One metric's solving state for a slice.
template <typename Id>
struct MetricState {
    Cell* cells[COLOR_NB];              // the slice's working values and counters
    Value* output[COLOR_NB];            // where the final values of the slice go
    uint64_t* resolved[COLOR_NB] = {};  // DTZ only: the table's capture_resolved bits
    uint64_t* promoted[COLOR_NB] = {};  // DTZ only, tables with pawns: its promotion_resolved bits
    // DTM only: the best DTM a capture or promotion reaches from each position of the slice
    // (VALUE_ILLEGAL: none), and the table's moves_resolved_dtm bits, set where it is the DTM.
    Value* leaving[COLOR_NB] = {};
    uint64_t* leaving_resolved[COLOR_NB] = {};
    // solve() only: a bit per cell of the slice, set where the value can no longer change
    // (illegal or final), so that such a predecessor is passed over without reading its cell.
    uint64_t* settled[COLOR_NB] = {};
    std::vector<std::vector<Id>> buckets;  // pending positions by distance
    std::vector<Id> mates;                 // finalised at distance 0
    // Shared among processes: predecessors owned by each other process, as raw records, until
    // the round's exchange.
    std::vector<std::vector<uint8_t>> outgoing;
    uint64_t sent_bytes = 0, exchanges = 0;  // what the exchanges carried, for the debug line

    // Takes over another (per-thread) state's scheduled positions: moved where this state has
    // none at that distance, appended otherwise (in a 5-piece table these lists hold hundreds
    // of megabytes, and this runs on one thread per metric).
    void absorb(MetricState& other) {
        take(mates, other.mates);
        if (buckets.size() < other.buckets.size()) buckets.resize(other.buckets.size());
        for (size_t d = 0; d < other.buckets.size(); ++d) take(buckets[d], other.buckets[d]);
    }
    static void take(std::vector<Id>& to, std::vector<Id>& from) {
        if (to.empty())
            to.swap(from);
        else
            to.insert(to.end(), from.begin(), from.end());
        std::vector<Id>().swap(from);
    }

    void schedule(Id pos, int distance) {
        if (buckets.size() <= size_t(distance)) buckets.resize(distance + 1);
        buckets[distance].push_back(pos);
    }
};

// How to look up the successor of a conversion: which table, whether colours are exchanged,
// the side to move there, and for each of the target table's slots, the slot of this table
// the piece comes from.
struct ConversionPlan {
    const TableValues* table = nullptr;  // nullptr: bare kings, a draw
    bool flip = false;
    Color stm = WHITE;  // the opponent of the mover, in the target's colours
    int n = 0;
    int8_t source[MAX_PIECES] = {};
};

template <typename Id>
class Generator {
    using Metric = MetricState<Id>;
    using Predecessor = PredecessorOf<Id>;

public:
    Generator(const Material& material, const TableSet& subtables, const GenerationOptions& options)
        : table_(std::make_shared<TableValues>(material)),
          index_(table_->index),
          subtables_(subtables),
          options_(options),
          group_(options.group) {
        // Each process owns a contiguous run of every slice's king pairs (all of them when alone).
        ranks_ = group_ ? group_->size() : 1;
        rank_ = group_ ? group_->rank() : 0;
        if (ranks_ > 65535) throw std::runtime_error("more than 65535 processes for one table");
        pair_size_ = index_.king_pair_size();
        const std::vector<uint64_t> runs = king_pair_runs(index_, ranks_);
        owner_of_pair_.resize(runs.back());
        for (int p = 0; p < ranks_; ++p) {
            owned_.push_back(runs[p] * pair_size_);
            for (uint64_t k = runs[p]; k < runs[p + 1]; ++k) owner_of_pair_[k] = uint16_t(p);
        }
        owned_.push_back(index_.slice_size());
    }

    std::shared_ptr<TableValues> run() {
        prepare_plans();
        if (index_.slice_size() > (std::numeric_limits<Id>::max() >> 2) + 1)
            throw std::logic_error(index_.material().name() + ": slices too large for the solver's position ids");
        const uint64_t size = index_.size();
        // Nothing is written here: every slice's initialisation writes all its cells and its
        // solve all its output values, on both threads, so the pages are first touched there.
        const uint64_t slice_size = index_.slice_size();
        for (Color c : {WHITE, BLACK}) {
            table_->dtm[c].resize(size);
            table_->dtz[c].resize(size);
            table_->capture_resolved[c].assign((size + 63) / 64, 0);
            table_->moves_resolved_dtm[c].assign((size + 63) / 64, 0);
            if (index_.has_pawns()) table_->promotion_resolved[c].assign((size + 63) / 64, 0);
            cells_dtm_[c].resize(slice_size);
            cells_dtz_[c].resize(slice_size);
            leaving_dtm_[c].resize(slice_size);
        }

        const auto start = std::chrono::steady_clock::now();
        auto last_report = start;
        double initialise_seconds = 0, solve_seconds[2] = {};
        uint64_t sent_bytes = 0, exchanges = 0;  // shared among processes: what this one sent the others
        for (int slice = 0; slice < index_.num_slices(); ++slice) {
            const uint64_t base = uint64_t(slice) * slice_size;
            Metric dtm, dtz;
            for (Color c : {WHITE, BLACK}) {
                dtm.output[c] = table_->dtm[c].data() + base;
                dtz.output[c] = table_->dtz[c].data() + base;
                dtm.cells[c] = cells_dtm_[c].data();
                dtz.cells[c] = cells_dtz_[c].data();
                dtz.resolved[c] = table_->capture_resolved[c].data();
                dtm.leaving[c] = leaving_dtm_[c].data();
                dtm.leaving_resolved[c] = table_->moves_resolved_dtm[c].data();
                if (index_.has_pawns()) dtz.promoted[c] = table_->promotion_resolved[c].data();
            }
            const auto slice_start = std::chrono::steady_clock::now();
            initialise_slice(base, dtm, dtz);
            const auto solve_start = std::chrono::steady_clock::now();
            initialise_seconds += std::chrono::duration<double>(solve_start - slice_start).count();
            // The two metrics are independent: solve them side by side (one after the other when
            // shared among processes, whose exchanges are collective calls of one thread).
            run_parallel(options_.threads >= 2 && !group_ ? 2 : 1, 2, [&](int which) {
                const auto metric_start = std::chrono::steady_clock::now();
                solve(base, which == 0 ? dtm : dtz);
                solve_seconds[which] +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - metric_start).count();
            });
            if (group_) gather_slice(base);
            sent_bytes += dtm.sent_bytes + dtz.sent_bytes;
            exchanges += dtm.exchanges + dtz.exchanges;

            auto now = std::chrono::steady_clock::now();
            if (options_.progress &&
                (now - last_report > std::chrono::seconds(5) || slice + 1 == index_.num_slices())) {
                last_report = now;
                double seconds = std::chrono::duration<double>(now - start).count();
                options_.progress(index_.material().name() + ": slice " + std::to_string(slice + 1) + "/" +
                                  std::to_string(index_.num_slices()) + ", " + std::to_string(int(seconds)) + " s");
            }
        }
        spdlog::debug("{}: initialisation {:.1f} s, solving DTM {:.1f} s and DTZ {:.1f} s ({})",
                      index_.material().name(), initialise_seconds, solve_seconds[0], solve_seconds[1],
                      group_ ? "one after the other" : "side by side");
        if (group_)
            spdlog::debug("{}: rank {} of {} sent {:.1f} MB of king un-moves in {} exchanges", index_.material().name(),
                          rank_, ranks_, double(sent_bytes) / 1e6, exchanges);
        return table_;
    }

private:
    // Runs job(0..jobs-1) on up to `threads` threads; rethrows the first exception.
    template <typename Job>
    static void run_parallel(int threads, int jobs, Job&& job) {
        if (threads <= 1 || jobs <= 1) {
            for (int j = 0; j < jobs; ++j) job(j);
            return;
        }
        std::vector<std::thread> pool;
        std::vector<std::exception_ptr> errors(jobs);
        for (int j = 0; j < jobs; ++j)
            pool.emplace_back([&, j] {
                try {
                    job(j);
                } catch (...) {
                    errors[j] = std::current_exception();
                }
            });
        for (auto& t : pool) t.join();
        for (auto& e : errors)
            if (e) std::rethrow_exception(e);
    }

    // Shared among processes: the slice's values from every process, for process 0's writer
    // (with the bits it needs). A pawn table's later slices look up this one's (pawn moves): in
    // runs closed under the mirror a process finds its own there; otherwise (more than 8
    // processes) every process gets every value.
    void gather_slice(uint64_t base) {
        const uint64_t n = index_.slice_size();
        std::vector<uint64_t> offsets;
        for (uint64_t o : owned_) offsets.push_back(base + o);
        const bool root_only = !index_.has_pawns() || ranks_ <= MAX_MIRROR_CLOSED_RUNS;
        for (Color c : {WHITE, BLACK}) {
            group_->gather(table_->dtm[c].data(), sizeof(Value), offsets, root_only);
            group_->gather(table_->dtz[c].data(), sizeof(Value), offsets, root_only);
            const uint64_t first = base / 64, words = (base + n + 63) / 64 - first;
            for (PositionBits* bits :
                 {&table_->capture_resolved[c], &table_->moves_resolved_dtm[c], &table_->promotion_resolved[c]})
                if (!bits->empty()) group_->or_words(bits->data() + first, words, true);
        }
    }

    // Initialises this process's part of a slice in chunks, one per thread; each chunk schedules
    // into its own lists.
    void initialise_slice(uint64_t base, Metric& dtm, Metric& dtz) const {
        const uint64_t lo = owned_[rank_], n = owned_[rank_ + 1] - lo;
        const int chunks = std::max(1, std::min<int>(options_.threads, int(n / 4096) + 1));
        std::vector<Metric> local_dtm(chunks, dtm), local_dtz(chunks, dtz);
        run_parallel(chunks, chunks, [&](int c) {
            initialise_range(base, lo + n * c / chunks, lo + n * (c + 1) / chunks, local_dtm[c], local_dtz[c]);
        });
        run_parallel(options_.threads >= 2 ? 2 : 1, 2, [&](int which) {
            Metric& to = which == 0 ? dtm : dtz;
            for (Metric& from : which == 0 ? local_dtm : local_dtz) to.absorb(from);
        });
    }

    static int promo_index(PieceType promo) { return promo == NO_PIECE_TYPE ? 0 : QUEEN - promo + 1; }

    // One plan per (captured slot, moving slot, promotion): every conversion of this table.
    void prepare_plans() {
        const int n = index_.num_slots();
        for (int captured = -1; captured < n; ++captured)
            for (int mover = 0; mover < n; ++mover)
                for (PieceType promo : {NO_PIECE_TYPE, QUEEN, ROOK, BISHOP, KNIGHT}) {
                    if (captured == mover || (captured >= 0 && index_.slot(captured).type == KING)) continue;
                    // A piece never captures one of its own side: no plan (and no table) for that.
                    if (captured >= 0 && index_.slot(captured).color == index_.slot(mover).color) continue;
                    // Nor does a promotion capture a pawn (no pawn stands on a last rank).
                    if (promo != NO_PIECE_TYPE && captured >= 0 && index_.slot(captured).type == PAWN) continue;
                    if (promo != NO_PIECE_TYPE && index_.slot(mover).type != PAWN) continue;
                    ConversionPlan& plan = plans_[captured + 1][mover][promo_index(promo)];
                    PieceOn after[MAX_PIECES];
                    int8_t from_slot[MAX_PIECES];
                    int k = 0;
                    Material m;
                    for (int i = 0; i < n; ++i) {
                        if (i == captured) continue;
                        PieceType t = i == mover && promo != NO_PIECE_TYPE ? promo : index_.slot(i).type;
                        after[k] = {index_.slot(i).color, t, SQ_A1};
                        from_slot[k++] = int8_t(i);
                        m.set_count(index_.slot(i).color, t, m.count(index_.slot(i).color, t) + 1);
                    }
                    plan.n = k;
                    if (k == 2) continue;  // bare kings
                    plan.flip = !m.is_normalized();
                    const Material target = m.normalized();
                    plan.table = target == index_.material() ? table_.get() : subtables_.find(target);
                    if (!plan.table)
                        throw std::runtime_error("generating " + index_.material().name() + " needs table " +
                                                 target.name() + ", which is not loaded");
                    plan.stm = plan.flip ? index_.slot(mover).color : ~index_.slot(mover).color;
                    if (plan.table != table_.get() && plan.table->dtm[plan.stm].empty())
                        throw std::runtime_error("generating " + index_.material().name() + " needs table " +
                                                 target.name() + " with " + (plan.stm == WHITE ? "White" : "Black") +
                                                 " to move, which is not loaded");
                    // Each piece goes to the next free slot of its (colour, type) group.
                    const TableIndex& ti = plan.table->index;
                    bool used[MAX_PIECES] = {};
                    for (int j = 0; j < k; ++j) {
                        Color c = plan.flip ? ~after[j].color : after[j].color;
                        for (int t = 0; t < ti.num_slots(); ++t)
                            if (!used[t] && ti.slot(t).color == c && ti.slot(t).type == after[j].type) {
                                used[t] = true;
                                plan.source[t] = from_slot[j];
                                break;
                            }
                    }
                }
    }

    // Values after a conversion `m` from placement p, for the opponent of the mover.
    void lookup_conversion(const Placement& p, const TbMove& m, Value& dtm, Value& dtz) const {
        const ConversionPlan& plan = plans_[m.captured_slot + 1][m.slot][promo_index(m.promotion)];
        if (!plan.table) {
            dtm = dtz = VALUE_UNKNOWN;
            return;
        }
        Placement q;
        for (int t = 0; t < plan.n; ++t) {
            int s = plan.source[t];
            Square sq = s == m.slot ? m.to : p[s];
            q[t] = plan.flip ? flip_rank(sq) : sq;
        }
        const uint64_t idx = plan.table->index.encode(q);
        dtm = plan.table->dtm[plan.stm][idx];
        dtz = plan.table->dtz_at(plan.stm, idx);  // a subtable may be held for conversions
    }

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

    void initialise_range(uint64_t base, uint64_t begin, uint64_t end, Metric& dtm, Metric& dtz) const {
        const bool pawnless = !index_.has_pawns();
        for (uint64_t r = begin; r < end; ++r) {
            Placement p;
            if (!index_.decode(base + r, p)) {
                for (Color c : {WHITE, BLACK}) {
                    dtm.cells[c][r] = dtz.cells[c][r] = Cell{VALUE_ILLEGAL, 0, 0};
                    dtm.leaving[c][r] = VALUE_ILLEGAL;
                }
                continue;
            }
            TbBoard b;
            b.set(index_, p);
            const Legality legality[COLOR_NB] = {Legality(b, WHITE), Legality(b, BLACK)};
            for (Color us : {WHITE, BLACK}) {
                dtm.cells[us][r].count = dtz.cells[us][r].count = 0;
                dtz.cells[us][r].resolving = 0;
                Value& leaving = dtm.leaving[us][r];
                leaving = VALUE_ILLEGAL;
                if (legality[~us].in_check()) {
                    dtm.cells[us][r].value = dtz.cells[us][r].value = VALUE_ILLEGAL;
                    continue;
                }
                const Legality& legal = legality[us];
                int count = 0;
                bool escape = false;
                int win_dtm = 0, seed_dtm = 0, win_dtz = 0, seed_dtz = 0;
                // The WDL files rely on the captures of the most valuable capturable piece
                // (captures.h): the best WDL they reach, recorded here instead of searched again
                // by the writer.
                int top_victim = NO_PIECE_TYPE, best_capture = -3, best_promotion = -3;
                auto better_win = [](int& w, int d) { w = w == 0 ? d : std::min(w, d); };
                // Symmetric successors (pawnless, white king on a diagonal) weigh more; see solve().
                // Only positions with both kings on one diagonal can be symmetric.
                auto weigh_each = [&](int slot, Square to) {
                    if (!pawnless) return false;
                    if (slot == 0) return to == SQ_NONE || kings_on_one_diagonal(to, p[1]);
                    if (slot == 1 && to != SQ_NONE) return kings_on_one_diagonal(p[0], to);
                    return slot == 1 ? on_a_diagonal(p[0]) : kings_on_one_diagonal(p[0], p[1]);
                };
                auto quiet_weight = [&](int slot, Square to) {
                    PieceOn after[MAX_PIECES];
                    for (int j = 0; j < b.n; ++j)
                        after[j] = {b.pieces[j].color, b.pieces[j].type, j == slot ? to : p[j]};
                    return stabilizer_size(after, b.n);
                };
                int moves = scan_legal_moves(b, us, legal, count, weigh_each, quiet_weight, [&](const TbMove& m) {
                    Value sdtm, sdtz;
                    lookup_conversion(p, m, sdtm, sdtz);
                    int wdl = wdl_of_dtz(sdtz);  // the opponent's
                    // A capture or promotion leaves the table: the writer's resolved DTM
                    // (captures.h, best_leaving_move_dtm) takes the best of these.
                    if (m.captured_slot >= 0 || m.promotion != NO_PIECE_TYPE) {
                        const Value mine = value_from_mover(sdtm);
                        if (leaving == VALUE_ILLEGAL || value_rank(mine) > value_rank(leaving)) leaving = mine;
                    }
                    if (m.captured_slot >= 0) {
                        const int victim = b.pieces[m.captured_slot].type;
                        if (victim > top_victim) top_victim = victim, best_capture = -3;
                        if (victim == top_victim) best_capture = std::max(best_capture, -wdl);
                    } else if (m.promotion == QUEEN) {
                        best_promotion = std::max(best_promotion, -wdl);
                    }
                    if (m.double_step) {
                        PieceOn after[MAX_PIECES];
                        const int k = pieces_after(b, m, after);
                        improve_with_en_passant(after, k, ~us, Square((m.from + m.to) / 2), m.to, sdtm, wdl,
                                                [this](const PieceOn* pcs, int np, Color side, Value& a, Value& b) {
                                                    lookup(pcs, np, side, a, b);
                                                });
                    }
                    if (is_loss(sdtm))
                        better_win(win_dtm, distance_of(sdtm) + 1);
                    else if (is_win(sdtm))
                        seed_dtm = std::max(seed_dtm, distance_of(sdtm) + 1);
                    else
                        escape = true;
                    switch (wdl) {
                        case -2:
                            better_win(win_dtz, 1);
                            break;
                        case -1:
                            better_win(win_dtz, 101);
                            break;
                        case 1:
                            seed_dtz = std::max(seed_dtz, 101);
                            break;
                        case 2:
                            seed_dtz = std::max(seed_dtz, 1);
                            break;
                        default:
                            break;
                    }
                });
                const Id pos = position_id<Id>(r, us, false);
                if (moves == 0) {
                    if (legal.in_check()) {
                        dtm.cells[us][r].value = dtz.cells[us][r].value = loss_in(0);
                        dtm.mates.push_back(position_id<Id>(r, us, true));
                        dtz.mates.push_back(position_id<Id>(r, us, true));
                    } else {
                        dtm.cells[us][r] = dtz.cells[us][r] = Cell{VALUE_UNKNOWN, ESCAPE, 0};  // stalemate
                    }
                    continue;
                }
                if (top_victim != NO_PIECE_TYPE) dtz.cells[us][r].resolving = uint8_t(3 + best_capture);
                if (best_promotion > -3) dtz.cells[us][r].resolving |= uint8_t((3 + best_promotion) << 4);
                if (count >= ESCAPE) throw std::logic_error("move counter overflow");
                const uint8_t c = escape ? ESCAPE : uint8_t(count);
                dtm.cells[us][r].count = dtz.cells[us][r].count = c;
                set_initial(dtm, r, us, pos, win_dtm, seed_dtm, c);
                set_initial(dtz, r, us, pos, win_dtz, seed_dtz, c);
            }
        }
    }

    static void set_initial(Metric& m, uint64_t r, Color us, Id pos, int win, int seed, uint8_t count) {
        if (win) {
            m.cells[us][r].value = Value(KIND_PENDING_WIN | win);
            m.schedule(pos, win);
        } else if (count == 0) {
            // Only conversions, all of them losing: lost as slowly as the slowest allows.
            m.cells[us][r].value = Value(KIND_PENDING_LOSS | seed);
            m.schedule(pos, seed);
        } else {
            m.cells[us][r].value = seed ? Value(KIND_LOSS_SEED | seed) : VALUE_UNKNOWN;
        }
    }

    // Retrograde solving of one metric in a slice, by increasing distance.
    void solve(uint64_t base, Metric& m) const {
        const bool pawnless = !index_.has_pawns();
        std::vector<Id> frontier = std::move(m.mates), next, scratch;
        // Filled by plain stores (a push_back's capacity test per un-move cost 8 % of the solve).
        std::vector<Predecessor> preds(BATCH * MAX_UNMOVES);
        // Two thirds to three quarters of all predecessor updates (KQvKR, KBNvK, KRPvK) found an
        // illegal or already final cell: a cache miss for nothing. The settled bits are 32
        // times denser than the cells, so they mostly come from the cache.
        const uint64_t n = index_.slice_size(), lo = owned_[rank_], hi = owned_[rank_ + 1];
        // The bits a position id of this slice may use: what the radix sort orders by.
        const int id_bits = sizeof(Id) == 4 ? 32 : 64 - __builtin_clzll((n - 1) << 2 | 3);
        std::vector<uint64_t> settled[COLOR_NB];
        for (Color c : {WHITE, BLACK}) {
            settled[c].assign((n + 63) / 64, 0);
            m.settled[c] = settled[c].data();
            for (uint64_t r = lo; r < hi; ++r) {
                const Value v = m.cells[c][r].value;
                if (v == VALUE_ILLEGAL || is_final(v)) set_bit(settled[c].data(), r);
            }
        }
        m.outgoing.assign(ranks_, {});
        std::vector<uint8_t> received;
        for (int d = 0;; ++d) {
            if (!group_ && d >= int(m.buckets.size()) && frontier.empty()) break;
            // Pending values of distance d are final now: nothing shorter was found.
            if (d < int(m.buckets.size())) {
                for (Id pos : m.buckets[d]) {
                    Value& v = m.cells[pos & 1][pos >> 2].value;
                    if (v == Value(KIND_PENDING_WIN | d))
                        v = win_in(d);
                    else if (v == Value(KIND_PENDING_LOSS | d))
                        v = loss_in(d), pos |= 2;
                    else
                        continue;
                    set_bit(m.settled[pos & 1], pos >> 2);
                    frontier.push_back(pos);
                }
                std::vector<Id>().swap(m.buckets[d]);
            }
            next.clear();
            // In index order, neighbouring frontier positions share cache lines and pages.
            if (frontier.size() > 65536) radix_sort(frontier, scratch, id_bits);
            // The frontier is worked through in batches: first every predecessor's index is
            // computed and its settled bit prefetched; then those not settled are kept and their
            // cells prefetched; then they are updated, in the same order. The updates are random
            // accesses into large arrays; prefetching a batch keeps many cache misses in flight.
            // The updates of one distance commute (a win is set once, a counter only falls), so
            // neither their order nor the rounds of an exchange change a value.
            uint64_t rounds = 1;
            if (group_) {
                // Every process takes each distance and round in step, until none has anything
                // left: one collective call a distance besides the rounds' exchanges (a pawn
                // table's thousands of slices make that count).
                uint64_t left[2] = {(frontier.size() + EXCHANGE_ROUND - 1) / EXCHANGE_ROUND,
                                    uint64_t(d + 1 < int(m.buckets.size()))};
                group_->max(left, 2);
                if (!left[0] && !left[1]) break;
                rounds = left[0];
            }
            for (uint64_t round = 0; round < rounds; ++round) {
                const size_t begin = group_ ? std::min(frontier.size(), round * EXCHANGE_ROUND) : 0;
                const size_t end = group_ ? std::min(frontier.size(), begin + EXCHANGE_ROUND) : frontier.size();
                for (size_t start = begin; start < end; start += BATCH) {
                    Predecessor* out = preds.data();
                    const size_t batch_end = std::min(end, start + BATCH);
                    for (size_t f = start; f < batch_end; ++f)
                        out = collect_predecessors(base, m, frontier[f], pawnless, out);
                    update_batch(m, preds.data(), out, d, next);
                }
                if (!group_) continue;
                // The un-moves other processes found into this one's king pairs, in batches.
                for (const auto& o : m.outgoing) m.sent_bytes += o.size();
                ++m.exchanges;
                group_->all_to_all(m.outgoing, received);
                for (auto& o : m.outgoing) o.clear();
                const size_t count = received.size() / sizeof(Predecessor);
                for (size_t start = 0; start < count; start += preds.size()) {
                    const size_t k = std::min(preds.size(), count - start);
                    std::memcpy(preds.data(), received.data() + start * sizeof(Predecessor), k * sizeof(Predecessor));
                    update_batch(m, preds.data(), preds.data() + k, d, next);
                }
            }
            std::swap(frontier, next);
        }
        for (Color c : {WHITE, BLACK}) m.settled[c] = nullptr;
        // Whatever is undecided now is a draw. For DTZ, also mark the legal positions, lost ones
        // excepted (nothing is lower than a loss), whose resolving captures, or quiet queen
        // promotions, reach their final WDL; only the DTZ thread writes these bits, and slices
        // are solved one after another.
        for (Color c : {WHITE, BLACK})
            for (uint64_t r = lo; r < hi; ++r) {
                const Cell& cell = m.cells[c][r];
                const Value v = cell.value;
                const Value out = v != VALUE_ILLEGAL && !is_final(v) ? VALUE_UNKNOWN : v;
                m.output[c][r] = out;
                if (m.leaving_resolved[c] && out != VALUE_ILLEGAL) {
                    const Value leaving = m.leaving[c][r];
                    if (leaving != VALUE_ILLEGAL && value_rank(leaving) >= value_rank(out))
                        set_bit(m.leaving_resolved[c], base + r);
                }
                if (m.resolved[c] && cell.resolving && v != VALUE_ILLEGAL) {
                    const int wdl = wdl_of_dtz(out);
                    const int capture = cell.resolving & 15, promotion = cell.resolving >> 4;
                    if (wdl > -2 && capture && capture - 3 >= wdl) set_bit(m.resolved[c], base + r);
                    if (m.promoted[c] && wdl > -2 && promotion && promotion - 3 >= wdl)
                        set_bit(m.promoted[c], base + r);
                }
            }
    }

    // Updates the predecessors [first, last): those not settled are kept, their cells prefetched,
    // then updated in order.
    void update_batch(Metric& m, Predecessor* first, const Predecessor* last, int d, std::vector<Id>& next) const {
        Predecessor* kept = first;
        for (const Predecessor* pr = first; pr != last; ++pr)
            if (!test_bit(m.settled[pr->mover], pr->r)) {
                __builtin_prefetch(&m.cells[pr->mover][pr->r], 1);
                *kept++ = *pr;
            }
        for (const Predecessor* pr = first; pr != kept; ++pr) update_predecessor(m, *pr, d, next);
    }

    // Appends the predecessors of a frontier position (un-moves of the side that just moved,
    // without uncapturing; pawns never move inside a slice) and prefetches their settled bits.
    // Shared among processes, a king's un-move into another process's king pairs goes to
    // m.outgoing for it instead (the other pieces' un-moves keep the king pair).
    Predecessor* collect_predecessors(uint64_t base, Metric& m, Id pos, bool pawnless, Predecessor* out) const {
        const Color stm = Color(pos & 1);
        const uint64_t r = pos >> 2;
        const bool lost = pos & 2;
        Placement p;
        index_.decode(base + r, p);
        TbBoard b;
        b.set(index_, p);
        const Color mover = ~stm;
        for (int i = 0; i < b.n; ++i) {
            if (b.pieces[i].color != mover || b.pieces[i].type == PAWN) continue;
            const Square at = b.pieces[i].square;
            Bitboard origins = attacks_bb(b.pieces[i].type, at, b.all) & ~b.all;
            if (b.pieces[i].type == KING) origins &= ~king_attacks(b.king(stm));  // kings never touch
            while (origins) {
                const Square to = pop_lsb(origins);
                const uint64_t qr = index_.encode_moved(base + r, p, i, to) - base;
                uint8_t weight = 1;
                // Only a reflection in a diagonal through the white king can fix a position.
                const Square wk = i == 0 ? to : p[0], bk = i == 1 ? to : p[1];
                if (pawnless && !lost && kings_on_one_diagonal(wk, bk)) {
                    PieceOn pcs[MAX_PIECES];
                    for (int j = 0; j < b.n; ++j) pcs[j] = {b.pieces[j].color, b.pieces[j].type, j == i ? to : p[j]};
                    weight = uint8_t(stabilizer_size(pcs, b.n));
                }
                if (i < 2 && ranks_ > 1) {
                    const int owner = owner_of_pair_[qr / pair_size_];
                    if (owner != rank_) {
                        const Predecessor record{Id(qr), uint8_t(mover), uint8_t(lost), weight};
                        auto& o = m.outgoing[owner];
                        o.resize(o.size() + sizeof record);
                        std::memcpy(o.data() + o.size() - sizeof record, &record, sizeof record);
                        continue;
                    }
                }
                __builtin_prefetch(&m.settled[mover][qr >> 6]);
                *out++ = {Id(qr), uint8_t(mover), uint8_t(lost), weight};
            }
        }
        return out;
    }

    void update_predecessor(Metric& m, const Predecessor& pr, int d, std::vector<Id>& next) const {
        const Color mover = Color(pr.mover);
        Cell& cell = m.cells[mover][pr.r];
        Value& v = cell.value;
        if (v == VALUE_ILLEGAL) return;
        const Value kind = v & KIND_MASK;
        const Id won = position_id<Id>(pr.r, mover, false), lost = position_id<Id>(pr.r, mover, true);
        if (pr.winning) {
            // The predecessor wins by moving here.
            if (kind == VALUE_UNKNOWN || kind == KIND_LOSS_SEED ||
                (kind == KIND_PENDING_WIN && distance_of(v) > d + 1)) {
                v = win_in(d + 1);
                set_bit(m.settled[mover], pr.r);
                next.push_back(won);
            }
            return;
        }
        if (kind != VALUE_UNKNOWN && kind != KIND_LOSS_SEED) return;
        // One more of the predecessor's moves is known to lose.
        uint8_t& c = cell.count;
        if (c == ESCAPE) return;
        if (c < pr.weight) throw std::logic_error("move counter underflow in " + index_.material().name());
        c = uint8_t(c - pr.weight);
        if (c) return;
        const int loss = std::max(d + 1, kind == KIND_LOSS_SEED ? distance_of(v) : 0);
        if (loss == d + 1) {
            v = loss_in(loss);
            set_bit(m.settled[mover], pr.r);
            next.push_back(lost);
        } else {
            v = Value(KIND_PENDING_LOSS | loss);
            m.schedule(won, loss);  // the loss flag is added when the pending value becomes final
        }
    }

    std::shared_ptr<TableValues> table_;
    const TableIndex& index_;
    const TableSet& subtables_;
    GenerationOptions options_;
    ProcessGroup* group_ = nullptr;  // shared among processes, or alone (nullptr)
    int rank_ = 0, ranks_ = 1;
    uint64_t pair_size_ = 1;               // positions per king pair in a slice
    std::vector<uint64_t> owned_;          // process p owns [owned_[p], owned_[p + 1]) of every slice
    std::vector<uint16_t> owner_of_pair_;  // the process that owns each king pair of a slice
    // The slice's cells and leaving values: only this process's part is ever touched, so its
    // memory falls with the number of processes.
    std::vector<Cell, UninitialisedAllocator<Cell>> cells_dtm_[COLOR_NB], cells_dtz_[COLOR_NB];
    std::vector<Value, UninitialisedAllocator<Value>> leaving_dtm_[COLOR_NB];  // Metric::leaving of the slice
    ConversionPlan plans_[MAX_PIECES + 1][MAX_PIECES][5];
};

}  // namespace

std::vector<uint64_t> king_pair_runs(const TableIndex& index, int processes) {
    const uint64_t pairs = index.slice_size() / index.king_pair_size();
    const bool by_king_rank = index.has_pawns() && processes <= MAX_MIRROR_CLOSED_RUNS;
    std::vector<uint64_t> runs;
    for (int p = 0; p < processes; ++p)
        runs.push_back(by_king_rank ? uint64_t(8 * p / processes) * 8 * 64 : pairs * uint64_t(p) / uint64_t(processes));
    runs.push_back(pairs);
    return runs;
}

bool needs_wide_position_ids(uint64_t slice_size) { return slice_size > (uint64_t(1) << 30); }

std::shared_ptr<TableValues> generate_table(const Material& material, const TableSet& subtables,
                                            const GenerationOptions& options) {
    const Material m = material.normalized();
    if (options.wide_ids || needs_wide_position_ids(TableIndex(m).slice_size()))
        return Generator<uint64_t>(m, subtables, options).run();
    return Generator<uint32_t>(m, subtables, options).run();
}

}  // namespace pythia::tb
