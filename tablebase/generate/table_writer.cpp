#include "tablebase/generate/table_writer.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <optional>
#include <random>
#include <type_traits>

#include "tablebase/format/file_format.h"
#include "tablebase/format/parallel.h"
#include "tablebase/format/section_encoder.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/forward_values.h"
#include "tablebase/generate/ordered_walk.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/generate/write_check.h"
#include "tablebase/probe/captures.h"

namespace pythia::tb {

namespace {

// Decoded LZ4 block sizes the writer tries for DTM and DTZ: the sections of codes wider than 8
// bits, which the pair codec cannot hold, and the samples on which the DTZ's ways of being read
// are compared. They are probed at the root only.
const std::vector<uint32_t> DISTANCE_BLOCK_BYTES = {4096, 8192, 16384};
// LZ4-HC level. Level 9 searches 256 match candidates per position, level 6 32: on the DTM and
// DTZ streams (KQRvKR) level 6 is about 4 times faster than 9 for a few % more bytes.
constexpr int DISTANCE_LZ4_LEVEL = 6;
// Pair codec blocks of DTM and DTZ sections. They are probed at the root only, a few dozen
// positions per move, so they take larger blocks than WDL's (on KRBvKR's DTM 256-byte blocks
// alone were 5 % smaller than 64-byte ones); the writer keeps the smallest.
const std::vector<uint32_t> DISTANCE_PAIR_BLOCK_BYTES = {64, 128, 256};

}  // namespace

std::array<PositionBits, COLOR_NB> search_capture_resolved(const TableValues& t, const TableSet& subtables,
                                                           int threads) {
    const uint64_t n = t.index.size();
    std::array<PositionBits, COLOR_NB> decided;
    for (Color c : {WHITE, BLACK}) decided[c].assign((n + 63) / 64, 0);
    // Chunks are whole words, so no two workers write one.
    parallel_for(n, threads, 1 << 14, [&](uint64_t begin, uint64_t end, int) {
        for (uint64_t i = begin; i < end; ++i) {
            const bool search[COLOR_NB] = {t.dtz[WHITE][i] != VALUE_ILLEGAL && wdl_of_dtz(t.dtz[WHITE][i]) > -2,
                                           t.dtz[BLACK][i] != VALUE_ILLEGAL && wdl_of_dtz(t.dtz[BLACK][i]) > -2};
            if (!search[WHITE] && !search[BLACK]) continue;
            Placement p;
            if (!t.index.decode(i, p)) continue;
            TbBoard b;
            b.set(t.index, p);
            for (Color us : {WHITE, BLACK}) {
                if (!search[us]) continue;
                const int wdl = wdl_of_dtz(t.dtz[us][i]);
                const std::optional<int> best = best_resolving_move(
                    b, us, false, wdl,
                    [&](const PieceOn* after, int k, int) { return subtables.lookup_wdl(after, k, ~us); });
                if (best && *best >= wdl) set_bit(decided[us].data(), i);
            }
        }
    });
    return decided;
}

std::array<PositionBits, COLOR_NB> search_promotion_resolved(const TableValues& t, const TableSet& subtables,
                                                             int threads) {
    const uint64_t n = t.index.size();
    std::array<PositionBits, COLOR_NB> decided;
    if (!t.index.has_pawns()) return decided;
    for (Color c : {WHITE, BLACK}) decided[c].assign((n + 63) / 64, 0);
    parallel_for(n, threads, 1 << 14, [&](uint64_t begin, uint64_t end, int) {  // whole words per worker
        for (uint64_t i = begin; i < end; ++i) {
            Placement p;
            if (!t.index.decode(i, p)) continue;
            TbBoard b;
            b.set(t.index, p);
            for (Color us : {WHITE, BLACK}) {
                const Bitboard seventh = rank_bb(us == WHITE ? RANK_7 : RANK_2);
                if (t.dtz[us][i] == VALUE_ILLEGAL || !(b.by_color[us] & b.by_type[PAWN] & seventh)) continue;
                const int wdl = wdl_of_dtz(t.dtz[us][i]);
                if (wdl == -2) continue;  // nothing is lower than a loss
                int best = -3;
                for_each_quiet_promotion(b, us, {QUEEN}, [&](const TbMove& m) {
                    PieceOn after[MAX_PIECES];
                    const int k = pieces_after(b, m, after);
                    const std::optional<int> v = subtables.lookup_wdl(after, k, ~us);
                    best = v ? std::max(best, -*v) : -3;  // unknown: leave the position exact
                    return !v || best >= wdl;
                });
                if (best >= wdl) set_bit(decided[us].data(), i);
            }
        }
    });
    return decided;
}

std::array<PositionBits, COLOR_NB> search_moves_resolved_dtm(const TableValues& t, const TableSet& subtables,
                                                             int threads) {
    const uint64_t n = t.index.size();
    std::array<PositionBits, COLOR_NB> decided;
    for (Color c : {WHITE, BLACK}) decided[c].assign((n + 63) / 64, 0);
    parallel_for(n, threads, 1 << 14, [&](uint64_t begin, uint64_t end, int) {  // whole words per worker
        for (uint64_t i = begin; i < end; ++i) {
            if (t.dtm[WHITE][i] == VALUE_ILLEGAL && t.dtm[BLACK][i] == VALUE_ILLEGAL) continue;
            Placement p;
            if (!t.index.decode(i, p)) continue;
            TbBoard b;
            b.set(t.index, p);
            for (Color us : {WHITE, BLACK}) {
                const Value v = t.dtm[us][i];
                if (v == VALUE_ILLEGAL) continue;
                const Value best = leaving_move_dtm(b, us, subtables);
                if (best != VALUE_ILLEGAL && value_rank(best) >= value_rank(v)) set_bit(decided[us].data(), i);
            }
        }
    });
    return decided;
}

namespace {

// A DTM section with FLAG_MOVES_RESOLVED is encoded over keys in the order of value_rank, so
// that the encoder's AT_MOST ("any symbol not above") means "any value no better"; the file's
// symbols are the values again. Keys: a loss in d is d, a draw 0x2000, a win in d 0x4000 + 1023 - d
// (all of the form the encoder counts fastest: distance bits below 1024).
constexpr int MAX_KEYED_DISTANCE = 1023;
uint16_t goodness_key(Value v) {
    if (is_win(v)) return uint16_t(0x4000 + MAX_KEYED_DISTANCE - distance_of(v));
    if (is_loss(v)) return uint16_t(distance_of(v));
    return 0x2000;
}
Value value_of_key(uint16_t key) {
    if (key >= 0x4000) return win_in(0x4000 + MAX_KEYED_DISTANCE - key);
    if (key < 0x2000) return loss_in(key);
    return VALUE_UNKNOWN;
}

// True if every DTM of `dtm` has a goodness key (5-piece tables reach a few hundred plies).
bool keyable(const ValueArray& dtm) {
    for (Value v : dtm)
        if (v != VALUE_ILLEGAL && distance_of(v) > MAX_KEYED_DISTANCE) return false;
    return true;
}

int sign_context(Value dtm) { return is_loss(dtm) ? 0 : is_win(dtm) ? 2 : 1; }

// The cells of a stream stored in `order`: cell_of(index), or cell_of(index, stored position),
// for each stored position of a call's range; prefetch(index) brings what cell_of reads.
template <typename CellOf, typename Prefetch>
CellSource in_order(const StorageOrder& order, CellOf cell_of, Prefetch prefetch) {
    return [&order, cell_of, prefetch](uint64_t begin, uint64_t end, Cell* out) {
        walk_in_order(order, begin, end, prefetch, [&](uint64_t index, uint64_t j) {
            if constexpr (std::is_invocable_v<CellOf, uint64_t, uint64_t>)
                *out++ = cell_of(index, j);
            else
                *out++ = cell_of(index);
        });
    };
}

// The same cells as in_order(order, cell_of, ...) in the index's own order (cell_of taking an
// index only): for counting a stream's symbols, which any order gives alike.
template <typename CellOf>
CellSource in_index_order(CellOf cell_of) {
    return [cell_of](uint64_t begin, uint64_t end, Cell* out) {
        for (uint64_t i = begin; i < end; ++i) *out++ = cell_of(i);
    };
}

// Stretches [begin, end) of stored positions spread over a stream of n: `segments` of
// `positions` each, at the same places for every storage order; the whole stream when it is
// shorter.
using Stretches = std::vector<std::pair<uint64_t, uint64_t>>;
Stretches sample_stretches(uint64_t n, uint64_t segments, uint64_t positions) {
    if (segments * positions >= n) return {{0, n}};
    Stretches out;
    const uint64_t step = n / segments;
    for (uint64_t k = 0; k < segments; ++k) {
        const uint64_t slack = step - std::min(step, positions);
        const uint64_t begin = k * step + (slack ? (k * 0x9E3779B97F4A7C15ull >> 20) % slack : 0);
        out.push_back({begin, std::min(n, begin + positions)});
    }
    return out;
}

// The cells of the stored positions of `stretches` (in `order`) one after the other, over a
// call's range of k: cell_of(index), or cell_of(index, k) for the k-th of them. `stretches` must
// outlive the source.
template <typename CellOf, typename Prefetch>
CellSource in_sample(const StorageOrder& order, const Stretches& stretches, CellOf cell_of, Prefetch prefetch) {
    std::vector<uint64_t> starts;  // the k of each stretch's first position
    uint64_t total = 0;
    for (const auto& [begin, end] : stretches) {
        starts.push_back(total);
        total += end - begin;
    }
    return [&order, &stretches, starts, cell_of, prefetch](uint64_t begin, uint64_t end, Cell* out) {
        size_t s = size_t(std::upper_bound(starts.begin(), starts.end(), begin) - starts.begin()) - 1;
        for (uint64_t k = begin; k < end; ++s) {
            const uint64_t stop = std::min(end, starts[s] + (stretches[s].second - stretches[s].first));
            const uint64_t from = stretches[s].first + (k - starts[s]);
            walk_in_order(order, from, from + (stop - k), prefetch, [&](uint64_t index, uint64_t) {
                if constexpr (std::is_invocable_v<CellOf, uint64_t, uint64_t>)
                    *out++ = cell_of(index, k);
                else
                    *out++ = cell_of(index);
                ++k;
            });
        }
    };
}

// Pairs Re-Pair may make when a sample is only estimated (estimate_pairs): its first stage
// alone, the rounds that recount the whole sample. On KBBvKN's DTM and DTZ the estimates with
// 256, 1024 and 4096 symbols ranked the orders alike, and 256 took a third of the time of 4096.
constexpr uint32_t ESTIMATE_RULES = 256;

// Cells gathered one after the other (a sample's stretches) encoded as one section by `plan`:
// estimated only, or in full.
EncodedSection encode_cells(const std::vector<Cell>& cells, SectionPlan plan, bool estimate) {
    plan.estimate_only = estimate;
    plan.estimate_pair_rules = estimate ? ESTIMATE_RULES : 0;
    return encode_section(
        cells.size(),
        [&](uint64_t begin, uint64_t end, Cell* out) { std::copy(cells.begin() + begin, cells.begin() + end, out); },
        plan);
}

// The stretches of a stream encoded as one section by `plan`: estimated only, or in full.
EncodedSection encode_stretches(const CellSource& source, const Stretches& stretches, SectionPlan plan, bool estimate) {
    std::vector<Cell> cells;
    for (const auto& [begin, end] : stretches) {
        cells.resize(cells.size() + (end - begin));
        source(begin, end, cells.data() + cells.size() - (end - begin));
    }
    return encode_cells(cells, plan, estimate);
}

// The cells of several streams (cell_of(index) each) at the stored positions of `stretches` in
// `order`, gathered in one walk: the streams read the same values (a DTM and its DTZ), and a walk
// in a storage order is bound by its cache misses, one or two a position whatever it reads there.
template <typename Prefetch, typename... CellOf>
std::array<std::vector<Cell>, sizeof...(CellOf)> gather_streams(const StorageOrder& order, const Stretches& stretches,
                                                                Prefetch prefetch, CellOf... cell_of) {
    uint64_t total = 0;
    for (const auto& [begin, end] : stretches) total += end - begin;
    std::array<std::vector<Cell>, sizeof...(CellOf)> cells;
    for (auto& c : cells) c.resize(total);
    uint64_t k = 0;
    for (const auto& [begin, end] : stretches)
        walk_in_order(order, begin, end, prefetch, [&](uint64_t index, uint64_t) {
            size_t stream = 0;
            ((cells[stream++][k] = cell_of(index)), ...);
            ++k;
        });
    return cells;
}

// The estimated bytes of the stretches of a stream (estimate_pairs; LZ4's estimate for codes
// wider than 8 bits), and the number of symbols the sample needed.
struct SampleEstimate {
    uint64_t bytes = 0;
    size_t symbols = 0;
};
SampleEstimate estimate_of(const EncodedSection& e) {
    return {e.header.code_bits ? uint64_t(e.estimated_bytes) : 0, e.symbols.size()};
}
SampleEstimate estimate_sample(const CellSource& source, const Stretches& stretches, const SectionPlan& plan) {
    return estimate_of(encode_stretches(source, stretches, plan, true));
}

// The bytes of a full encoding (what estimate_sample estimates).
uint64_t bytes_of(const EncodedSection& e) { return e.header.code_bits ? encoded_bytes(e) : 0; }

// Samples for choosing a storage order, in rounds: each round estimates the candidates left on
// `segments` stretches of `positions` stored positions, and keeps the smallest `keep`. The
// samples must be long: on KBNvKN's White-to-move DTM a 64 x 32768 sample alone picked an order
// 7 % larger than a 256 x 65536 one's pick. The first round, on short samples, only thins out
// the 120 orders of a 5-piece table with five index digits (a pawn and three other pieces).
struct SampleRound {
    uint64_t segments, positions;  // stretches of stored positions, and positions per stretch
    size_t keep;                   // candidates kept for the next round
    size_t skip_below;             // the round is skipped with at most this many candidates
};
constexpr SampleRound SAMPLE_ROUNDS[] = {
    {16, 8192, 24, 24},
    {64, 32768, 4, 0},
    {256, 65536, 1, 0},
};
// Samples up to this many positions are too short for Re-Pair to keep two threads busy: one
// candidate per thread instead.
constexpr uint64_t SMALL_SAMPLE_POSITIONS = 64 * 32768;

// The storage order chosen for a stream, and what choosing it found out.
struct OrderChoice {
    StorageOrder order;
    // The last round's sample (stored positions; empty if there was no choice to make), and,
    // where the choice is compared with another, the first stream on it in `order`, encoded in
    // full.
    Stretches sample;
    uint64_t sample_positions = 0;
    std::optional<EncodedSection> first_sample;
    // first_sample's bytes scaled to the whole stream (0 without first_sample).
    uint64_t estimate_bytes = 0;
};

// A storage order's choice under way: the candidates left, and what the rounds run so far found.
struct OrderSearch {
    std::vector<std::pair<uint64_t, StorageOrder>> tried;  // (estimate, order), best first after a round
    size_t next_round = 0;                                 // the first of SAMPLE_ROUNDS not run yet
    bool settled = false;                                  // one candidate left, or a round estimated the whole stream
    const SampleRound* last_round = nullptr;               // the last round run, if any
};

// Runs the rounds of SAMPLE_ROUNDS before `until` that `search` has not run: each estimates the
// candidates left on its sample (cell_of as in choose_storage_order) and keeps the best.
template <typename Prefetch, typename FirstCellOf, typename... CellOf>
void run_order_rounds(OrderSearch& search, size_t until, const TableIndex& index, SectionPlan plan, Prefetch prefetch,
                      FirstCellOf first_cell_of, CellOf... cell_of) {
    const uint64_t n = index.size();
    plan.codec = Codec::PAIRS;
    auto estimate = [&](const StorageOrder& order, const SampleRound& round) -> uint64_t {
        const Stretches stretches = sample_stretches(n, round.segments, round.positions);
        uint64_t bytes = 0;
        for (const std::vector<Cell>& cells : gather_streams(order, stretches, prefetch, first_cell_of, cell_of...))
            bytes += estimate_of(encode_cells(cells, plan, true)).bytes;
        return bytes;
    };
    auto& tried = search.tried;
    if (search.next_round == 0 && tried.empty())
        for (const std::vector<int>& perm : all_digit_permutations(index))
            tried.push_back({0, *StorageOrder::from_permutation(index, perm)});
    const int threads = plan.threads;
    for (; search.next_round < std::min(until, std::size(SAMPLE_ROUNDS)) && !search.settled; ++search.next_round) {
        const SampleRound& round = SAMPLE_ROUNDS[search.next_round];
        if (tried.size() == 1) {
            search.settled = true;
            break;
        }
        if (tried.size() <= round.skip_below) continue;
        const bool short_sample = round.segments * round.positions <= SMALL_SAMPLE_POSITIONS;
        plan.threads = short_sample ? 1 : threads;
        parallel_for(tried.size(), short_sample ? threads : 1, 1, [&](uint64_t begin, uint64_t end, int) {
            for (uint64_t k = begin; k < end; ++k) tried[k].first = estimate(tried[k].second, round);
        });
        std::stable_sort(tried.begin(), tried.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        if (spdlog::should_log(spdlog::level::trace)) {
            std::string line;
            for (const auto& [bytes, order] : tried)
                line += fmt::format(" {:.3f}({:x})", double(bytes) / double(tried[0].first), order.field());
            spdlog::trace("{} {} {} round of {} x {}: {} orders, best {} per position, by estimate against the best:{}",
                          index.material().name(), plan.metric == Metric::WDL ? "WDL" : "DTM",
                          plan.side == WHITE ? "w" : "b", round.segments, round.positions, tried.size(),
                          double(tried[0].first) / double(std::min(n, round.segments * round.positions)), line);
        }
        search.last_round = &round;
        if (round.segments * round.positions >= n) {  // the whole stream
            search.settled = true;
            break;
        }
        if (tried.size() > round.keep) tried.resize(round.keep);
    }
}

// The storage order that makes the stream whose cell of index i is cell_of(i) smallest in the
// pair codec, judged by estimates on samples of each candidate order (the same stretches of
// stored positions for every order, spread over the stream): the rounds `search` has not run
// yet, then, if `compared` (the choice is weighed against another side's or variant's), the best
// order's last sample encoded in full.
// With several streams (a DTM and the DTZ stored in its order) the order that makes their sum
// smallest; only the first is encoded in full on the last sample. prefetch(i) brings the values
// that the cells of index i are made from.
template <typename Prefetch, typename FirstCellOf, typename... CellOf>
OrderChoice choose_storage_order(OrderSearch& search, bool compared, const TableIndex& index, SectionPlan plan,
                                 Prefetch prefetch, FirstCellOf first_cell_of, CellOf... cell_of) {
    const uint64_t n = index.size();
    plan.codec = Codec::PAIRS;
    run_order_rounds(search, std::size(SAMPLE_ROUNDS), index, plan, prefetch, first_cell_of, cell_of...);
    // Two sides' (or two variants') streams are compared by this figure, which the cut-short
    // estimates can get wrong by more than their margin (on KBNvKR they left out the side whose
    // DTM and DTZ were 12 % smaller): the winner's last sample is encoded in full for it. With
    // nothing to compare (a pawnless WDL, a side left out), that encode would be thrown away.
    OrderChoice choice;
    choice.order = search.tried[0].second;
    if (const SampleRound* last = search.last_round) {
        choice.sample = sample_stretches(n, last->segments, last->positions);
        choice.sample_positions = std::min(n, last->segments * last->positions);
        if (!compared) return choice;
        choice.first_sample =
            encode_stretches(in_order(choice.order, first_cell_of, prefetch), choice.sample, plan, false);
        choice.estimate_bytes = bytes_of(*choice.first_sample) * n / choice.sample_positions;
    }
    return choice;
}

// The same from the start.
template <typename Prefetch, typename FirstCellOf, typename... CellOf>
OrderChoice choose_storage_order(bool compared, const TableIndex& index, SectionPlan plan, Prefetch prefetch,
                                 FirstCellOf first_cell_of, CellOf... cell_of) {
    OrderSearch search;
    return choose_storage_order(search, compared, index, plan, prefetch, first_cell_of, cell_of...);
}

// True if DTZ and DTM agree on win, draw and loss everywhere (then DTZ can be read by sign).
bool signs_agree(const TableValues& t, Color c, int threads) {
    const auto& dtm = t.dtm[c];
    const auto& dtz = t.dtz[c];
    std::atomic<bool> agree{true};
    parallel_for(dtm.size(), threads, 1 << 20, [&](uint64_t begin, uint64_t end, int) {
        if (!agree.load(std::memory_order_relaxed)) return;
        // Without a branch on the values, which are a coin toss to the branch predictor.
        uint32_t differ = 0;
        for (uint64_t i = begin; i < end; ++i) {
            differ |=
                (dtm[i] != VALUE_ILLEGAL) & ((is_win(dtm[i]) != is_win(dtz[i])) | (is_loss(dtm[i]) != is_loss(dtz[i])));
        }
        if (differ) agree = false;
    });
    return agree;
}

// The sample on which the DTZ's ways of being read are compared (4 M positions, spread over
// the stream like the storage orders' samples).
constexpr uint64_t DTZ_SAMPLE_SEGMENTS = 64, DTZ_SAMPLE_POSITIONS = 65536;

// DTZ of one side, stored in the order of its DTM section `dtm`: the cheapest of three ways to
// read it (directly, through the DTM's sign where draws need nothing stored, through the DTM's
// whole code), judged by estimates on `estimate_on`. The cells are source_of(cell_of), over
// `positions` of them (the whole stream, or a sample of it that `dtm` was encoded on); cell_of
// takes an index and the position in `dtm`. Of `dtm` it reads the codes, the symbols and the
// header's flags, code bits and symbol count (its compression may run meanwhile).
template <typename SourceOf>
EncodedSection encode_dtz(const TableValues& t, Color c, const EncodedSection& dtm, uint64_t positions,
                          const Stretches& estimate_on, SourceOf source_of, int threads) {
    const auto& dtz = t.dtz[c];
    const auto& dtmv = t.dtm[c];
    struct Option {
        Context context;
        uint32_t contexts;
        CellSource source;
        CellSource counted;  // the whole stream's cells in index order, where they need no DTM code
    };
    const bool whole = positions == t.index.size();
    std::vector<Option> options;
    // Stored in the DTM's order, so that the DTM code of a stored position is at the same place.
    // A draw's DTZ is not stored: the reader answers a draw wherever the DTM is one.
    auto direct = [&](uint64_t i) {
        return dtz[i] == VALUE_ILLEGAL || is_draw(dtmv[i]) ? Cell{Cell::FREE, 0, 0} : Cell{Cell::EXACT, dtz[i], 0};
    };
    options.push_back({Context::NONE, 1, source_of(direct), whole ? in_index_order(direct) : CellSource{}});
    // DTM and DTZ agree on win, draw and loss (write_table_files checks it).
    auto by_sign = [&](uint64_t i) {
        const Value m = dtmv[i];
        return m == VALUE_ILLEGAL || is_draw(m) ? Cell{Cell::FREE, 0, 1}
                                                : Cell{Cell::EXACT, dtz[i], uint16_t(sign_context(m))};
    };
    options.push_back({Context::DTM_SIGN, 3, source_of(by_sign), whole ? in_index_order(by_sign) : CellSource{}});
    // Where the DTM leaves captures and promotions to the reader, the context is the code of the
    // exact DTM, which the reader has resolved by then (the stored code may hold a lower value).
    const bool resolved = dtm.header.flags & FLAG_MOVES_RESOLVED;
    const CodeByValue exact_codes = resolved ? lowest_code_by_value(dtm.symbols) : CodeByValue{};
    if (dtm.header.code_bits > 0 && dtm.header.code_bits <= 8)
        options.push_back(
            {Context::DTM_CODE,
             dtm.header.num_symbols,
             source_of([&](uint64_t i, uint64_t j) {
                 if (dtz[i] == VALUE_ILLEGAL || is_draw(dtmv[i])) return Cell{Cell::FREE, 0, 0};
                 const int exact = resolved ? code_of_value(exact_codes, dtmv[i]) : -1;
                 return Cell{Cell::EXACT, dtz[i], uint16_t(exact >= 0 ? uint32_t(exact) : dtm.code_of(j))};
             }),
             {}});
    auto plan_for = [&](const Option& o) {
        SectionPlan p{Metric::DTZ, c, o.context, o.contexts};
        p.block_bytes = DISTANCE_BLOCK_BYTES;
        p.threads = threads;
        p.level = DISTANCE_LZ4_LEVEL;
        p.codec = Codec::PAIRS;
        p.pair_block_bytes = DISTANCE_PAIR_BLOCK_BYTES;
        return p;
    };
    // Every option is estimated on the same sample (a symbol costs two bytes of the header);
    // only the best one is encoded.
    size_t best = 0;
    uint64_t best_bytes = 0;
    for (size_t k = 0; k < options.size(); ++k) {
        const SampleEstimate e = estimate_sample(options[k].source, estimate_on, plan_for(options[k]));
        const uint64_t bytes = e.bytes + 2 * e.symbols;
        if (k == 0 || bytes < best_bytes) {
            best = k;
            best_bytes = bytes;
        }
    }
    EncodedSection s = encode_section(positions, options[best].source, plan_for(options[best]), options[best].counted);
    s.codes.clear();
    s.codes.shrink_to_fit();
    return s;
}

class FileWriter {
public:
    explicit FileWriter(std::filesystem::path path) : path_(std::move(path)) {
        temp_ = path_;
        temp_ += ".tmp" + std::to_string(getpid());
    }
    ~FileWriter() {
        if (fd_ >= 0) ::close(fd_);
        if (!done_) std::filesystem::remove(temp_, ignored_);
    }

    bool write(FileKind kind, const Material& m, uint64_t positions, uint64_t write_id,
               std::vector<EncodedSection>& sections, const TableStatistics* stats, std::string* error) {
        // Header layout: fixed part, section descriptors, symbol tables, statistics.
        std::vector<uint8_t> header(sizeof(FileHeader) + sections.size() * sizeof(SectionHeader));
        auto align = [](std::vector<uint8_t>& v, size_t a) { v.resize((v.size() + a - 1) / a * a); };
        for (EncodedSection& s : sections) {
            align(header, 8);
            s.header.symbols_offset = uint32_t(header.size());
            const uint8_t* p = reinterpret_cast<const uint8_t*>(s.symbols.data());
            header.insert(header.end(), p, p + s.symbols.size() * 2);
        }
        FileHeader h{};
        std::memcpy(h.magic, FILE_MAGIC, sizeof h.magic);
        h.version = FORMAT_VERSION;
        h.kind = uint32_t(kind);
        const std::string name = m.name();
        std::memcpy(h.material, name.data(), std::min(name.size(), sizeof h.material - 1));
        h.positions = positions;
        h.num_sections = uint32_t(sections.size());
        h.write_id = write_id;
        if (stats) {
            align(header, 8);
            h.stats_offset = uint32_t(header.size());
            h.stats_size = sizeof(TableStatistics);
            const uint8_t* p = reinterpret_cast<const uint8_t*>(stats);
            header.insert(header.end(), p, p + sizeof *stats);
        }
        align(header, 64);
        h.header_size = uint32_t(header.size());

        // Payload layout: per LZ4 section its block offsets, its dictionary, its blocks; per
        // PAIRS section the codec's payload, from a multiple of 64 bytes (its blocks then sit
        // on cache lines).
        uint64_t at = header.size();
        for (EncodedSection& s : sections) {
            if (s.header.code_bits == 0) continue;
            if (s.header.codec == uint8_t(Codec::PAIRS)) {  // the codec's payload, on a cache line
                at = (at + 63) / 64 * 64;
                s.header.offsets_offset = at;
                s.header.compressed_bytes = s.data.size();
                blocks_at_.push_back(at);
                at += s.data.size();
                continue;
            }
            s.header.offsets_offset = at;
            at += 8 * (s.block_ends.size() + 1);
            s.header.dict_offset = at;
            at += s.dictionary.size();
            s.header.compressed_bytes = at - s.header.offsets_offset + s.data.size();
            blocks_at_.push_back(at);
            at += s.data.size();
        }
        h.file_size = at;

        fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd_ < 0) return fail(error, std::string("cannot create: ") + std::strerror(errno));
        XXH3_state_t* state = XXH3_createState();
        XXH3_64bits_reset(state);
        bool ok = seek_write(header.data(), header.size(), nullptr);  // placeholder, rewritten below
        size_t k = 0;
        uint64_t written = header.size();
        for (const EncodedSection& s : sections) {
            if (s.header.code_bits == 0 || !ok) continue;
            const uint64_t base = blocks_at_[k++];
            if (s.header.codec == uint8_t(Codec::PAIRS)) {
                const std::vector<uint8_t> padding(base - written, 0);
                ok = seek_write(padding.data(), padding.size(), state) &&
                     seek_write(s.data.data(), s.data.size(), state);
                written = base + s.data.size();
                continue;
            }
            written = base + s.data.size();
            std::vector<uint64_t> offsets{base};
            for (uint64_t e : s.block_ends) offsets.push_back(base + e);
            ok = seek_write(offsets.data(), offsets.size() * 8, state) &&
                 seek_write(s.dictionary.data(), s.dictionary.size(), state) &&
                 seek_write(s.data.data(), s.data.size(), state);
        }
        h.payload_hash = XXH3_64bits_digest(state);
        XXH3_freeState(state);
        if (!ok) return fail(error, std::string("cannot write: ") + std::strerror(errno));

        for (size_t i = 0; i < sections.size(); ++i)
            std::memcpy(header.data() + sizeof(FileHeader) + i * sizeof(SectionHeader), &sections[i].header,
                        sizeof(SectionHeader));
        std::memcpy(header.data(), &h, sizeof h);
        h.header_hash = XXH3_64bits(header.data(), header.size());
        std::memcpy(header.data(), &h, sizeof h);
        if (pwrite(fd_, header.data(), header.size(), 0) != ssize_t(header.size()) || fsync(fd_) != 0)
            return fail(error, std::string("cannot write: ") + std::strerror(errno));
        ::close(fd_);
        fd_ = -1;
        return true;
    }

    bool commit(std::string* error) {
        std::error_code ec;
        std::filesystem::rename(temp_, path_, ec);
        if (ec) return fail(error, "cannot rename " + temp_.string() + ": " + ec.message());
        done_ = true;
        return true;
    }

private:
    bool fail(std::string* error, const std::string& message) {
        if (error) *error = path_.string() + ": " + message;
        return false;
    }
    bool seek_write(const void* data, size_t n, XXH3_state_t* hash) {
        if (hash && n) XXH3_64bits_update(hash, data, n);
        const char* p = static_cast<const char*>(data);
        while (n) {
            ssize_t w = ::write(fd_, p, n);
            if (w <= 0) return false;
            p += w;
            n -= size_t(w);
        }
        return true;
    }

    std::filesystem::path path_, temp_;
    int fd_ = -1;
    bool done_ = false;
    std::error_code ignored_;
    std::vector<uint64_t> blocks_at_;
};

// Positions (bit per index) where an encoded WDL section (its codes still there) stores a draw.
PositionBits stored_wdl_draws(const TableIndex& index, const EncodedSection& s, int threads) {
    const StorageOrder order = *StorageOrder::from_field(index, s.header.storage_order);
    PositionBits draws((index.size() + 63) / 64, 0);
    parallel_for(index.size(), threads, 1 << 16, [&](uint64_t begin, uint64_t end, int) {  // whole words per worker
        for (uint64_t i = begin; i < end; ++i)
            if (s.symbols[s.code_of(order.to_storage(i))] == wdl_symbol(0)) set_bit(draws.data(), i);
    });
    return draws;
}

// Of two ways to store a table's values, the one whose sample (choose_storage_order's
// `estimate_bytes`) is this much larger than the other's is not encoded at all; closer than
// that, both are, and the smaller kept. Samples misjudge two sides by several %: on KBBvKN a
// 4 M-position sample put White's DTM and DTZ 8 % below Black's, and White's were 6 % larger.
constexpr double CLEARLY_LARGER = 1.15;
// The same for a side's DTM and DTZ judged before the last round of their storage orders (the
// best order's cut-short estimate on the second sample, DTZ read directly): the estimates may
// misjudge the sides' full samples by more than CLEARLY_LARGER, so the margin is wider.
constexpr double SIDES_CLEARLY_APART = 1.5;
// A pawn side's two WDL variants differ only where queen promotions decide, and their samples
// are the same stretches: within this ratio the samples' ranking is taken as it is (on KRPvKR,
// 0.9 % apart on the samples and 0.7 % encoded, the same way round), since either way the
// section is about as large, and encoding the runner-up too took a quarter of the writer.
constexpr double WDL_VARIANTS_TIE = 1.02;

// Runs f(WHITE) and f(BLACK) at the same time. A section's encoding ends on one thread (Re-Pair
// one pair at a time, the Huffman code, the packing), so two sections side by side keep both
// cores busy; each still splits its parallel stages over all the writer's threads.
template <typename F>
void for_both_sides(F&& f) {
    auto black = std::async(std::launch::async, [&f] { f(BLACK); });
    f(WHITE);
    black.get();
}

// The WDL sections of both sides: captures (and, where it pays, queen promotions) resolved when
// the subtables are at hand. With `draws`, also where each section stores a draw.
std::vector<EncodedSection> encode_wdl_sections(const TableValues& t, const GenerationInfo& info, int threads,
                                                std::array<PositionBits, COLOR_NB>* draws, WrittenBounds* bounds) {
    const uint64_t n = t.index.size();
    const Material& m = t.index.material();
    std::vector<EncodedSection> wdl;
    // The generator's own records where they are there, else a search of the moves.
    const bool recorded = !t.capture_resolved[WHITE].empty();
    std::array<PositionBits, COLOR_NB> searched;  // stays empty without subtables: WDL exact
    if (info.subtables && !recorded) searched = search_capture_resolved(t, *info.subtables, threads);
    const bool promotions = info.subtables && t.index.has_pawns();
    std::array<PositionBits, COLOR_NB> promoted_searched;
    if (promotions && t.promotion_resolved[WHITE].empty())
        promoted_searched = search_promotion_resolved(t, *info.subtables, threads);
    std::array<EncodedSection, COLOR_NB> chosen;
    for_both_sides([&](Color c) {
        const PositionBits& decided = info.subtables && recorded ? t.capture_resolved[c] : searched[c];
        const PositionBits& promoted =
            !t.promotion_resolved[c].empty() ? t.promotion_resolved[c] : promoted_searched[c];
        const auto& dtz = t.dtz[c];
        SectionPlan plan{Metric::WDL, c};
        plan.flags = info.subtables ? FLAG_CAPTURE_RESOLVED : 0;
        plan.threads = threads;
        plan.codec = Codec::PAIRS;
        auto cell_of = [&](bool with_promotions) {
            return [&, with_promotions](uint64_t i) {
                const uint16_t v = wdl_symbol(wdl_of_dtz(dtz[i]));
                const bool low =
                    (!decided.empty() && test_bit(decided, i)) || (with_promotions && test_bit(promoted, i));
                return dtz[i] == VALUE_ILLEGAL ? Cell{Cell::FREE, 0, 0}
                       : low                   ? Cell{Cell::AT_MOST, v, 0}
                                               : Cell{Cell::EXACT, v, 0};
            };
        };
        auto plan_of = [&](bool with_promotions) {
            SectionPlan p = plan;
            if (with_promotions) p.flags |= FLAG_PROMOTIONS_RESOLVED;
            return p;
        };
        // Leaving the promotions to the prober shrinks the pawn's side of some tables a lot
        // (KQvKP's by 75 %) but makes others larger, where the promotions decide positions the
        // filling had no trouble with: each way's order and sample bytes, then the smaller
        // encoded (both, and the smaller kept, where the samples are between a tie and clearly
        // apart).
        const bool any_promoted =
            promotions && std::any_of(promoted.begin(), promoted.end(), [](uint64_t w) { return w; });
        OrderChoice choice[2];
        bool encode_way[2] = {true, any_promoted};
        const auto start = std::chrono::steady_clock::now();
        for (bool with : {false, true})
            if (info.compact && encode_way[with])
                choice[with] =
                    choose_storage_order(any_promoted, t.index, plan_of(with), prefetch_of(dtz), cell_of(with));
        const uint64_t estimate[2] = {choice[0].estimate_bytes, choice[1].estimate_bytes};
        spdlog::debug("{} WDL {}: orders chosen in {:.1f} s, estimates {} and {} (with queen promotions)", m.name(),
                      c == WHITE ? "w" : "b",
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), estimate[0],
                      estimate[1]);
        if (any_promoted && estimate[0] && estimate[1]) {
            const double larger = double(std::max(estimate[0], estimate[1]));
            const double smaller = double(std::min(estimate[0], estimate[1]));
            if (larger > CLEARLY_LARGER * smaller || larger <= WDL_VARIANTS_TIE * smaller)
                encode_way[estimate[1] < estimate[0] ? 0 : 1] = false;
        }
        auto encode = [&](bool with) {
            EncodedSection e = encode_section(n, in_order(choice[with].order, cell_of(with), prefetch_of(dtz)),
                                              plan_of(with), in_index_order(cell_of(with)));
            e.header.storage_order = choice[with].order.field();
            return e;  // its codes are dropped once the section is chosen
        };
        EncodedSection& section = chosen[c];
        section = encode(!encode_way[0]);
        if (encode_way[0] && encode_way[1]) {
            EncodedSection with = encode(true);
            const uint64_t bytes_without = encoded_bytes(section), bytes_with = encoded_bytes(with);
            spdlog::debug("{} WDL {}: {} bytes with captures resolved, {} with queen promotions too", m.name(),
                          c == WHITE ? "w" : "b", bytes_without, bytes_with);
            if (bytes_with < bytes_without) section = std::move(with);
        }
        if (draws) (*draws)[c] = stored_wdl_draws(t.index, section, threads);
        release(section.codes);
        if (bounds && (section.header.flags & FLAG_CAPTURE_RESOLVED)) {
            bounds->wdl_capture[c] = decided;
            if (section.header.flags & FLAG_PROMOTIONS_RESOLVED) bounds->wdl_promotion[c] = promoted;
        }
    });
    for (EncodedSection& section : chosen) wdl.push_back(std::move(section));
    return wdl;
}

// The DTM and DTZ sections: both sides, or the smaller one in the compact form. With `wdl_draws`
// (where the WDL file stores a draw) and a resolved DTM, draws are left to the WDL file.
std::vector<EncodedSection> encode_distance_sections(const TableValues& t, const GenerationInfo& info, int threads,
                                                     const std::array<PositionBits, COLOR_NB>* wdl_draws,
                                                     WrittenBounds* bounds) {
    const uint64_t n = t.index.size();
    const std::string name = t.index.material().name();
    // Exact for every legal position, unless resolved. A side's DTZ is stored in the order of
    // its DTM, which can be its context.
    const bool resolve_dtm = info.compact && info.subtables && keyable(t.dtm[WHITE]) && keyable(t.dtm[BLACK]);
    // The generator's record where it is there, else a search of the moves.
    std::array<PositionBits, COLOR_NB> searched;
    const bool recorded = !t.moves_resolved_dtm[WHITE].empty();
    if (resolve_dtm && !recorded) searched = search_moves_resolved_dtm(t, *info.subtables, threads);
    const PositionBits* const resolved[COLOR_NB] = {recorded ? &t.moves_resolved_dtm[WHITE] : &searched[WHITE],
                                                    recorded ? &t.moves_resolved_dtm[BLACK] : &searched[BLACK]};
    SectionPlan plans[COLOR_NB];
    std::array<const PositionBits*, COLOR_NB> draws{};
    for (Color c : {WHITE, BLACK}) {
        SectionPlan& plan = plans[c];
        plan = SectionPlan{Metric::DTM, c};
        plan.block_bytes = DISTANCE_BLOCK_BYTES;
        plan.threads = threads;
        plan.level = DISTANCE_LZ4_LEVEL;
        plan.codec = Codec::PAIRS;
        plan.pair_block_bytes = DISTANCE_PAIR_BLOCK_BYTES;
        if (!resolve_dtm) continue;
        plan.flags = FLAG_MOVES_RESOLVED;
        // A draw that the WDL file stores as a draw: the reader answers a draw there (no capture
        // or promotion wins, or it would not be a draw), whatever the DTM holds.
        if (wdl_draws &&
            std::any_of((*wdl_draws)[c].begin(), (*wdl_draws)[c].end(), [](uint64_t w) { return w != 0; })) {
            draws[c] = &(*wdl_draws)[c];
            plan.flags |= FLAG_DRAWS_IN_WDL;
        }
    }
    // The DTM stream of side c: values, or goodness keys where captures and promotions resolve.
    auto dtm_cell = [&](Color c) {
        return [&, c](uint64_t i) {
            const Value v = t.dtm[c][i];
            if (!resolve_dtm) return v == VALUE_ILLEGAL ? Cell{Cell::FREE, 0, 0} : Cell{Cell::EXACT, v, 0};
            if (v != VALUE_ILLEGAL && draws[c] && is_draw(v) && test_bit(*draws[c], i)) return Cell{Cell::FREE, 0, 0};
            return v == VALUE_ILLEGAL          ? Cell{Cell::FREE, 0, 0}
                   : test_bit(*resolved[c], i) ? Cell{Cell::AT_MOST, goodness_key(v), 0}
                                               : Cell{Cell::EXACT, goodness_key(v), 0};
        };
    };
    // The orders first. An order that suits the exact DTM suits its DTZ too, but one chosen for a
    // resolved DTM alone may not (KQvKP's DTZ doubled): then the order is judged by both streams,
    // and the estimate is of both.
    // Where both sides are stored from (resolve_dtm), a side whose estimate before the last
    // round is over SIDES_CLEARLY_APART times the other's goes no further: no last round, no
    // sample encoded, no section.
    OrderChoice choice[COLOR_NB];
    OrderSearch search[COLOR_NB];
    bool left_out[COLOR_NB] = {false, false};
    double order_seconds[COLOR_NB] = {};
    auto orders = [&](bool finish) {
        for_both_sides([&](Color c) {
            if (!info.compact || left_out[c]) return;
            const auto start = std::chrono::steady_clock::now();
            auto dtz_cell = [&](uint64_t i) {
                return t.dtm[c][i] == VALUE_ILLEGAL ? Cell{Cell::FREE, 0, 0} : Cell{Cell::EXACT, t.dtz[c][i], 0};
            };
            const auto prefetch = prefetch_of(t.dtm[c], t.dtz[c]);
            if (!finish)
                run_order_rounds(search[c], std::size(SAMPLE_ROUNDS) - 1, t.index, plans[c], prefetch, dtm_cell(c),
                                 dtz_cell);
            else if (resolve_dtm)
                choice[c] = choose_storage_order(search[c], !left_out[WHITE] && !left_out[BLACK], t.index, plans[c],
                                                 prefetch, dtm_cell(c), dtz_cell);
            else
                choice[c] = choose_storage_order(search[c], false, t.index, plans[c], prefetch, dtm_cell(c));
            order_seconds[c] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        });
    };
    if (resolve_dtm) {
        orders(false);
        const OrderSearch &w = search[WHITE], &b = search[BLACK];
        if (!w.settled && !b.settled && w.last_round && w.last_round == b.last_round) {
            const double ew = double(w.tried[0].first), eb = double(b.tried[0].first);
            left_out[WHITE] = ew > SIDES_CLEARLY_APART * eb;
            left_out[BLACK] = eb > SIDES_CLEARLY_APART * ew;
            for (Color c : {WHITE, BLACK})
                if (left_out[c])
                    spdlog::debug("{} DTM {}: left out before the last round, estimates {} and {}", name,
                                  c == WHITE ? "w" : "b", w.tried[0].first, b.tried[0].first);
        }
    }
    orders(true);
    for (Color c : {WHITE, BLACK})
        if (info.compact && !left_out[c])
            spdlog::debug("{} DTM {}: order chosen in {:.1f} s", name, c == WHITE ? "w" : "b", order_seconds[c]);
    // Each side's DTM and DTZ on its order's last sample, in full and as they would be stored: a
    // side whose sample is clearly larger is not encoded at all (encoding both sides' DTM and DTZ
    // was about half the writer's time on KBNPvK). The DTZ's way of being read counts: on
    // KRPvKR's samples the sides' DTM and a DTZ read directly were 10 % apart, as stored 30 %.
    std::array<EncodedSection, COLOR_NB> dtm, dtz;
    uint64_t estimate[COLOR_NB] = {};
    for_both_sides([&](Color c) {
        OrderChoice& ch = choice[c];
        if (!ch.first_sample || !resolve_dtm) return;  // no side to leave out
        EncodedSection& d = *ch.first_sample;
        if (resolve_dtm)
            for (uint16_t& s : d.symbols) s = value_of_key(s);
        const Stretches whole_sample{{0, ch.sample_positions}};
        const auto prefetch = prefetch_of(t.dtm[c], t.dtz[c]);
        EncodedSection z = encode_dtz(
            t, c, d, ch.sample_positions, whole_sample,
            [&](auto cell_of) { return in_sample(ch.order, ch.sample, cell_of, prefetch); }, threads);
        estimate[c] = (bytes_of(d) + bytes_of(z)) * n / ch.sample_positions;
    });
    if (estimate[WHITE] && estimate[BLACK])
        spdlog::debug("{}: DTM and DTZ samples scaled to the table: w {}, b {}", name, estimate[WHITE],
                      estimate[BLACK]);
    bool encode_side[COLOR_NB] = {!left_out[WHITE], !left_out[BLACK]};
    if (info.compact && resolve_dtm && estimate[WHITE] && estimate[BLACK]) {
        if (double(estimate[WHITE]) > CLEARLY_LARGER * double(estimate[BLACK])) encode_side[WHITE] = false;
        if (double(estimate[BLACK]) > CLEARLY_LARGER * double(estimate[WHITE])) encode_side[BLACK] = false;
    }
    // Each side's DTM, then its DTZ (which may take the DTM's codes as its context). With one
    // side, its DTM's codes are compressed while its DTZ is encoded: the pair codec's second
    // stage runs on one thread, and on KRPvKQ half of the side's 71 s kept one core idle. (With
    // two sides, the sides keep both cores busy, and four encodes at once would pass the
    // writer's memory.)
    const auto encode_start = std::chrono::steady_clock::now();
    const bool one_side = encode_side[WHITE] != encode_side[BLACK];
    for_both_sides([&](Color c) {
        if (!encode_side[c]) return;
        const StorageOrder& order = choice[c].order;
        const auto prefetch = prefetch_of(t.dtm[c], t.dtz[c]);
        SectionPlan plan = plans[c];
        plan.defer_compression = one_side;
        dtm[c] =
            encode_section(n, in_order(order, dtm_cell(c), prefetch_of(t.dtm[c])), plan, in_index_order(dtm_cell(c)));
        if (resolve_dtm)
            for (uint16_t& s : dtm[c].symbols) s = value_of_key(s);
        // finish_section writes only the compressed fields, which encode_dtz does not read.
        std::future<void> compressed;
        if (one_side) compressed = std::async(std::launch::async, [&] { finish_section(dtm[c], plan); });
        dtz[c] = encode_dtz(
            t, c, dtm[c], n, sample_stretches(n, DTZ_SAMPLE_SEGMENTS, DTZ_SAMPLE_POSITIONS),
            [&](auto cell_of) { return in_order(order, cell_of, prefetch); }, threads);
        if (compressed.valid()) compressed.get();
    });
    for (Color c : {WHITE, BLACK})
        if (encode_side[c]) dtm[c].header.storage_order = dtz[c].header.storage_order = choice[c].order.field();
    std::vector<EncodedSection> dist;  // DTM sections before DTZ sections, White before Black
    for (auto* sections : {&dtm, &dtz})
        for (Color c : {WHITE, BLACK})
            if (encode_side[c]) dist.push_back(std::move((*sections)[c]));
    spdlog::debug("{} DTM and DTZ of {} side(s) encoded in {:.1f} s", name, dist.size() / 2,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - encode_start).count());
    for (auto& s : dist) release(s.codes);
    if (info.compact && dist.size() == 4) {
        // Keep the side whose DTM and DTZ take fewer bytes; the reader recovers the other.
        uint64_t bytes[COLOR_NB] = {};
        for (const auto& s : dist) bytes[s.header.side] += encoded_bytes(s);
        const Color dropped = bytes[BLACK] > bytes[WHITE] ? BLACK : WHITE;
        spdlog::debug("{}: both sides encoded: estimates {} and {}, bytes {} and {}", name, estimate[WHITE],
                      estimate[BLACK], bytes[WHITE], bytes[BLACK]);
        std::erase_if(dist, [&](const EncodedSection& s) { return s.header.side == dropped; });
    }
    if (bounds && resolve_dtm)
        for (const auto& s : dist)
            if (s.header.metric == uint8_t(Metric::DTM)) bounds->dtm_moves[s.header.side] = *resolved[s.header.side];
    return dist;
}

}  // namespace

bool write_table_files(const TableValues& t, const std::filesystem::path& dir, const GenerationInfo& info,
                       std::string* error, WrittenBounds* bounds) {
    if (bounds) *bounds = {};
    const auto start = std::chrono::steady_clock::now();
    const int threads = std::max(1, info.threads);
    const uint64_t n = t.index.size();
    const Material& m = t.index.material();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        if (error) *error = dir.string() + ": cannot create the folder: " + ec.message();
        return false;
    }

    // The reader takes a draw's DTZ from its DTM, which needs them to agree.
    for (Color c : {WHITE, BLACK})
        if (!signs_agree(t, c, threads)) {
            if (error) *error = m.name() + ": DTM and DTZ disagree on win, draw or loss: not written";
            return false;
        }
    TableStatistics stats = compute_statistics(t, threads);
    stats.generation_seconds = info.seconds;
    stats.generation_threads = uint32_t(info.threads);

    const bool draws_in_wdl = info.compact;
    std::array<PositionBits, COLOR_NB> draws;
    std::vector<EncodedSection> wdl = encode_wdl_sections(t, info, threads, draws_in_wdl ? &draws : nullptr, bounds);
    const auto wdl_done = std::chrono::steady_clock::now();
    spdlog::debug("{}: WDL sections encoded in {:.1f} s", m.name(),
                  std::chrono::duration<double>(wdl_done - start).count());
    std::vector<EncodedSection> dist =
        encode_distance_sections(t, info, threads, draws_in_wdl ? &draws : nullptr, bounds);
    spdlog::debug("{}: DTM and DTZ sections encoded in {:.1f} s", m.name(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - wdl_done).count());

    stats.write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats.written_unix_time =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    const uint64_t write_id = std::random_device{}() ^ (uint64_t(std::random_device{}()) << 32) ^
                              uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());

    FileWriter wdl_file(table_file_path(dir, m, FileKind::WDL));
    FileWriter dist_file(table_file_path(dir, m, FileKind::DISTANCE));
    return wdl_file.write(FileKind::WDL, m, n, write_id, wdl, &stats, error) &&
           dist_file.write(FileKind::DISTANCE, m, n, write_id, dist, nullptr, error) && wdl_file.commit(error) &&
           dist_file.commit(error);
}

}  // namespace pythia::tb
