#include "tablebase/generate/write_check.h"

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <stdexcept>

#include "engine/core/position.h"
#include "tablebase/format/parallel.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/ordered_walk.h"
#include "tablebase/generate/table_statistics.h"
#include "tablebase/generate/verifier.h"
#include "tablebase/probe/move_values.h"
#include "tablebase/probe/table_entry.h"
#include "tablebase/probe/tablebases.h"
#include "tablebase/probe/tb_board.h"

namespace pythia::tb {

namespace {

// Mismatches of one pass, counted by all workers, with a few examples.
class Findings {
public:
    void add(uint64_t n, std::vector<std::string>& examples) {
        std::lock_guard<std::mutex> lock(mutex_);
        count_ += n;
        for (auto& e : examples)
            if (examples_.size() < 10) examples_.push_back(std::move(e));
    }
    uint64_t count() const { return count_; }
    void move_examples_to(std::vector<std::string>& out) {
        for (auto& e : examples_)
            if (out.size() < 10) out.push_back(std::move(e));
    }

private:
    std::mutex mutex_;
    uint64_t count_ = 0;
    std::vector<std::string> examples_;
};

// Calls check(index, codes) for every stored position of `sections`, which share a storage
// order (a side's DTM and DTZ), in that order, on all threads, with each section's code there,
// having called prefetch(index) a few positions earlier (the values it compares lie far apart in
// that order: the walk is bound by those cache misses, so sections that read the same values are
// compared in one walk). Adds to `compared` the positions check counts (per chunk: one shared
// counter per position kept the two cores fighting over its cache line). False if a section does
// not decode.
template <size_t N, typename Prefetch, typename Check>
bool for_each_stored(const TableFile& f, const std::array<const Section*, N>& sections, int threads,
                     std::atomic<uint64_t>& compared, Prefetch&& prefetch, Check&& check) {
    const uint64_t n = f.positions();
    const StorageOrder& order = sections[0]->order;
    std::array<std::vector<uint8_t>, N> packed;
    for (size_t k = 0; k < N; ++k) {
        const Section& s = *sections[k];
        if (s.order.field() != order.field())  // TableFile::open refuses such a file
            throw std::logic_error("for_each_stored: sections in different storage orders");
        packed[k].assign(s.bits() ? (n * s.bits() + 7) / 8 : 0, 0);
        if (s.bits() && !f.decode_section(s, packed[k].data(), threads)) return false;
    }
    parallel_for(n, threads, 1 << 18, [&](uint64_t begin, uint64_t end, int) {
        uint64_t count = 0;
        walk_in_order(order, begin, end, prefetch, [&](uint64_t i, uint64_t j) {
            std::array<uint32_t, N> codes;
            for (size_t k = 0; k < N; ++k) {
                const int bits = sections[k]->bits();
                codes[k] = bits ? code_at(packed[k].data(), j, bits) : 0u;
            }
            count += check(i, codes);
        });
        compared.fetch_add(count, std::memory_order_relaxed);
    });
    return true;
}

// Step 1 for one table: every section against the values in memory. Returns false with
// `problem` set if a file cannot be opened or a section cannot be decoded.
bool compare_sections(const std::filesystem::path& staging, const TableValues& t, const WrittenBounds& bounds,
                      int threads, WriteCheck& out) {
    const TableIndex& index = t.index;
    const Material& m = index.material();
    std::unique_ptr<TableFile> files[2];
    for (FileKind kind : {FileKind::WDL, FileKind::DISTANCE}) {
        std::string why;
        const auto path = table_file_path(staging, m, kind);
        auto& f = files[kind == FileKind::WDL ? 0 : 1];
        f = TableFile::open(path, index, kind, &why);
        if (!f) {
            out.problem = path.string() + ": " + why;
            return false;
        }
    }
    const TableFile &wdl_file = *files[0], &dist_file = *files[1];
    Findings findings;
    std::atomic<uint64_t> compared{0};
    const uint64_t words = (index.size() + 63) / 64;

    // WDL: no higher than the exact value; lower only where a resolving move achieves it.
    std::array<PositionBits, COLOR_NB> wdl_draws;  // where the file stores a draw (for DTM)
    for (Color c : {WHITE, BLACK}) {
        const Section* s = wdl_file.find(Metric::WDL, c);
        wdl_draws[c].assign(words, 0);
        std::vector<std::atomic<uint64_t>> draws(words);
        const bool captures = s->h.flags & FLAG_CAPTURE_RESOLVED, promotions = s->h.flags & FLAG_PROMOTIONS_RESOLVED;
        const bool ok = for_each_stored(
            wdl_file, std::array{s}, threads, compared, prefetch_of(t.dtz[c]),
            [&](uint64_t i, const std::array<uint32_t, 1>& codes) -> uint64_t {
                const uint32_t code = codes[0];
                uint16_t symbol = 0;
                const bool known = s->symbol(0, code, symbol);
                if (known && symbol == wdl_symbol(0))
                    draws[i >> 6].fetch_or(uint64_t(1) << (i & 63), std::memory_order_relaxed);
                const Value dtz = t.dtz[c][i];
                if (dtz == VALUE_ILLEGAL) return false;
                const int exact = wdl_of_dtz(dtz), stored = int(symbol) - 2;
                if (known && stored == exact) return true;
                const bool low_allowed =
                    (captures && !bounds.wdl_capture[c].empty() && test_bit(bounds.wdl_capture[c], i)) ||
                    (promotions && !bounds.wdl_promotion[c].empty() && test_bit(bounds.wdl_promotion[c], i));
                if (known && symbol <= 4 && stored < exact && low_allowed) return true;
                std::vector<std::string> e{index_fen(index, i, c) + ": WDL file stores " +
                                           (known ? std::to_string(stored) : "an undefined code") + ", the value is " +
                                           std::to_string(exact)};
                findings.add(1, e);
                return true;
            });
        if (!ok) {
            out.problem = wdl_file.path().string() + ": a WDL section does not decode";
            return false;
        }
        for (uint64_t w = 0; w < words; ++w) wdl_draws[c][w] = draws[w].load(std::memory_order_relaxed);
    }

    // DTM and DTZ of each side the file stores.
    for (Color c : {WHITE, BLACK}) {
        const Section* dtm = dist_file.find(Metric::DTM, c);
        const Section* dtz = dist_file.find(Metric::DTZ, c);
        if (!dtm || !dtz) continue;  // the left-out side: step 2 probes it
        const bool resolved = dtm->h.flags & FLAG_MOVES_RESOLVED, draws_in_wdl = dtm->h.flags & FLAG_DRAWS_IN_WDL;
        const bool by_code = dtz->h.context == uint8_t(Context::DTM_CODE);
        auto check_dtm = [&](uint64_t i, uint32_t code) {
            const Value exact = t.dtm[c][i];
            if (exact == VALUE_ILLEGAL) return false;
            uint16_t stored = 0;
            const bool known = dtm->symbol(0, code, stored);
            if (known && stored == exact) return true;
            if (draws_in_wdl && is_draw(exact) && test_bit(wdl_draws[c], i)) return true;
            if (known && resolved && !bounds.dtm_moves[c].empty() && test_bit(bounds.dtm_moves[c], i) &&
                value_rank(stored) <= value_rank(exact))
                return true;
            std::vector<std::string> e{index_fen(index, i, c) + ": DTM stored " +
                                       (known ? describe(stored) : "as an undefined code") + ", the value is " +
                                       describe(exact)};
            findings.add(1, e);
            return true;
        };
        // The DTZ's context as the reader takes it: the sign or the code of the exact DTM (where
        // a code holds it; the stored code otherwise).
        auto check_dtz = [&](uint64_t i, uint32_t code, uint32_t dtm_code) {
            const Value exact = t.dtz[c][i], m = t.dtm[c][i];
            if (exact == VALUE_ILLEGAL || is_draw(m)) return false;  // a draw's DTZ is the DTM's
            uint32_t ctx = 0;
            if (dtz->h.context == uint8_t(Context::DTM_SIGN)) {
                ctx = uint32_t(sign_context(m));
            } else if (by_code) {
                const int exact_code = resolved ? code_of_value(dtm->code_by_value, m) : -1;
                ctx = exact_code >= 0 ? uint32_t(exact_code) : dtm_code;
            }
            uint16_t stored = 0;
            if (dtz->symbol(ctx, code, stored) && stored == exact) return true;
            std::vector<std::string> e{index_fen(index, i, c) + ": DTZ stored " + describe(stored) + ", the value is " +
                                       describe(exact)};
            findings.add(1, e);
            return true;
        };
        const bool ok =
            for_each_stored(dist_file, std::array{dtm, dtz}, threads, compared, prefetch_of(t.dtm[c], t.dtz[c]),
                            [&](uint64_t i, const std::array<uint32_t, 2>& codes) -> uint64_t {
                                return uint64_t(check_dtm(i, codes[0])) + check_dtz(i, codes[1], codes[0]);
                            });
        if (!ok) {
            out.problem = dist_file.path().string() + ": a DTM or DTZ section does not decode";
            return false;
        }
    }
    out.decoded = compared;
    out.decode_mismatches = findings.count();
    findings.move_examples_to(out.examples);
    return true;
}

// Step 2: the prober on up to PROBER_SAMPLE legal positions per side, chosen by `seed`.
void probe_sample(const std::filesystem::path& staging, const std::filesystem::path& dir, const TableValues& t,
                  uint64_t seed, WriteCheck& out) {
    Tablebases tables;
    tables.set_paths(staging.string() + ":" + dir.string());
    const TableIndex& index = t.index;
    std::mt19937_64 random(seed ^ 0x5EED);
    const uint64_t n = index.size();
    std::vector<std::string> examples;
    uint64_t mismatches = 0;
    for (Color us : {WHITE, BLACK}) {
        uint64_t probed = 0;
        for (uint64_t tries = 0; probed < PROBER_SAMPLE && tries < 8 * PROBER_SAMPLE; ++tries) {
            const uint64_t i = random() % n;
            if (t.dtz[us][i] == VALUE_ILLEGAL) continue;
            const std::string fen = index_fen(index, i, us);
            Position pos;
            if (!pos.set_fen(fen)) continue;  // cannot happen for a legal entry; not a value to compare
            ++probed;
            const std::optional<ProbeResult> r = tables.probe(pos);
            const int wdl = wdl_of_dtz(t.dtz[us][i]);
            if (r && r->wdl == wdl && r->dtz == t.dtz[us][i] && r->dtm == t.dtm[us][i]) continue;
            ++mismatches;
            if (examples.size() < 5)
                examples.push_back(fen + ": the prober answers " +
                                   (r ? "WDL " + std::to_string(r->wdl) + ", DTZ " +
                                            (r->dtz ? describe(*r->dtz) : "none") + ", DTM " +
                                            (r->dtm ? describe(*r->dtm) : "none")
                                      : std::string("nothing")) +
                                   "; the values are WDL " + std::to_string(wdl) + ", DTZ " + describe(t.dtz[us][i]) +
                                   ", DTM " + describe(t.dtm[us][i]));
        }
        out.probed += probed;
    }
    out.probe_mismatches = mismatches;
    for (auto& e : examples)
        if (out.examples.size() < 10) out.examples.push_back(std::move(e));
}

}  // namespace

std::string WriteCheck::summary() const {
    if (!problem.empty()) return "FAILED: " + problem;
    return std::string(ok ? "ok" : "FAILED") + ": " + std::to_string(decoded) + " stored values decoded, " +
           std::to_string(decode_mismatches) + " wrong; " + std::to_string(probed) + " positions probed, " +
           std::to_string(probe_mismatches) + " wrong; " + std::to_string(sampled) + " checked against their moves, " +
           std::to_string(inconsistent) + " inconsistent";
}

MovesSample check_moves_sample(const TableValues& table, const TableSet& subtables, int threads, uint64_t seed) {
    const auto start = std::chrono::steady_clock::now();
    const VerifyReport r = verify_table(table, subtables, threads, 3, CONSISTENCY_SAMPLE, seed);
    MovesSample sample;
    sample.sampled = r.positions;
    sample.inconsistent = r.mismatches;
    for (const auto& e : r.examples)
        if (sample.examples.size() < 10) sample.examples.push_back(e);
    sample.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::debug("{}: a sample checked against its moves in {:.2f} s", table.index.material().name(), sample.seconds);
    return sample;
}

WriteCheck check_written_table(const std::filesystem::path& staging, const std::filesystem::path& dir,
                               const TableValues& table, const WrittenBounds& bounds, const MovesSample& moves,
                               int threads, uint64_t seed) {
    WriteCheck check;
    const std::string name = table.index.material().name();
    auto start = std::chrono::steady_clock::now();
    auto lap = [&](const char* what) {
        const auto now = std::chrono::steady_clock::now();
        spdlog::debug("{}: {} in {:.2f} s", name, what, std::chrono::duration<double>(now - start).count());
        start = now;
    };
    if (!compare_sections(staging, table, bounds, threads, check)) return check;
    lap("every section decoded and compared");
    probe_sample(staging, dir, table, seed, check);
    lap("a sample probed");
    check.sampled = moves.sampled;
    check.inconsistent = moves.inconsistent;
    for (const auto& e : moves.examples)
        if (check.examples.size() < 10) check.examples.push_back(e);
    check.ok = check.decode_mismatches == 0 && check.probe_mismatches == 0 && check.inconsistent == 0;
    return check;
}

}  // namespace pythia::tb
