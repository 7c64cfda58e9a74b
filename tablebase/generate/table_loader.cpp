#include "tablebase/generate/table_loader.h"

#include <atomic>

#include "tablebase/format/parallel.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/forward_values.h"
#include "tablebase/probe/tb_board.h"

namespace pythia::tb {

namespace {

bool fail(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
}

// Opens one file of a table, with the path in any message.
std::unique_ptr<TableFile> open_file(const std::filesystem::path& dir, const TableIndex& index, FileKind kind,
                                     std::string* error) {
    const auto path = table_file_path(dir, index.material(), kind);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        fail(error, path.string() + ": not found");
        return nullptr;
    }
    std::string why;
    auto f = TableFile::open(path, index, kind, &why);
    if (!f) fail(error, path.string() + ": " + why);
    return f;
}

int sign_context(Value dtm) { return is_loss(dtm) ? 0 : is_win(dtm) ? 2 : 1; }

// Decodes a whole section into `out`; for DTZ, `dtm` and `dtm_codes` give the context.
bool decode_section(const TableFile& f, const Section& s, ValueArray& out, const ValueArray* dtm,
                    std::vector<uint8_t>* codes_out, const std::vector<uint8_t>* dtm_codes, int threads) {
    const uint64_t n = f.positions();
    out.resize(n);
    if (codes_out) codes_out->resize(n);
    std::atomic<bool> ok{true};
    // A draw's DTZ is not stored: the DTM (exact by now) says it.
    const bool draws_by_dtm = s.metric() == Metric::DTZ;
    auto store = [&](uint64_t i, uint32_t code) {
        if (draws_by_dtm && is_draw((*dtm)[i])) {
            out[i] = VALUE_UNKNOWN;
            return true;
        }
        uint32_t ctx = 0;
        if (s.h.context == uint8_t(Context::DTM_SIGN))
            ctx = uint32_t(sign_context((*dtm)[i]));
        else if (s.h.context == uint8_t(Context::DTM_CODE))
            ctx = (*dtm_codes)[i];
        uint16_t symbol;
        if (!s.symbol(ctx, code, symbol)) return false;
        out[i] = symbol;
        if (codes_out) (*codes_out)[i] = uint8_t(code);  // DTM_CODE contexts need codes of at most 8 bits
        return true;
    };
    if (s.bits() == 0) {
        parallel_for(n, threads, 1 << 20, [&](uint64_t begin, uint64_t end, int) {
            for (uint64_t i = begin; i < end; ++i)
                if (!store(i, 0)) ok = false;
        });
        return ok;
    }
    // Positions are stored in the section's order: walk stored positions, each with its index.
    if (s.pairs) {  // decoded whole first (its blocks have no fixed positions to store from)
        std::vector<uint8_t> packed((n * s.bits() + 7) / 8, 0);
        if (!f.decode_section(s, packed.data(), threads)) return false;
        parallel_for(n, threads, 1 << 20, [&](uint64_t begin, uint64_t end, int) {
            StorageOrder::Cursor at(s.order, begin);
            for (uint64_t j = begin; j < end; ++j, at.next())
                if (!store(at.index(), code_at(packed.data(), j, s.bits()))) ok = false;
        });
        return ok;
    }
    parallel_for(s.h.num_blocks, threads, 16, [&](uint64_t begin, uint64_t end, int) {
        std::vector<uint8_t> buffer(s.block_bytes);
        for (uint64_t b = begin; b < end && ok; ++b) {
            const uint32_t size = f.block_size(s, b);
            if (f.decode_block(s, b, buffer.data(), size) != int(size)) {
                ok = false;
                return;
            }
            const uint64_t first = b * s.h.block_positions;
            const uint64_t last = std::min(n, first + s.h.block_positions);
            StorageOrder::Cursor at(s.order, first);
            for (uint64_t j = first; j < last; ++j, at.next())
                if (!store(at.index(), code_at(buffer.data(), j - first, s.bits()))) ok = false;
        }
    });
    return ok;
}

// What reading `sides` of a DTM/DTZ file takes.
struct ReadPlan {
    bool recover = false;  // a side the file leaves out: recovered from the other one, read for it
    bool resolve = false;  // a DTM section read leaves what captures and promotions achieve to the reader
    uint8_t read = 0;      // the sides decoded from the file
};

ReadPlan read_plan(const TableFile& f, uint8_t sides) {
    ReadPlan plan;
    const std::optional<Color> left_out = f.left_out_side();
    plan.recover = left_out && (sides & (1 << *left_out));
    plan.read = plan.recover ? uint8_t((sides & ~(1 << *left_out)) | (1 << ~*left_out)) : sides;
    // Such a DTM is completed from the subtables before its DTZ is read (which may be read by
    // the sign of the exact DTM).
    for (Color c : {WHITE, BLACK})
        if (plan.read & (1 << c))
            plan.resolve = plan.resolve || (f.find(Metric::DTM, c)->h.flags & FLAG_MOVES_RESOLVED);
    return plan;
}

}  // namespace

bool reading_needs_subtables(const std::filesystem::path& dir, const Material& material, uint8_t sides, bool& needs,
                             std::string* error) {
    const TableIndex index(material.normalized());
    auto f = open_file(dir, index, FileKind::DISTANCE, error);
    if (!f) return false;
    const ReadPlan plan = read_plan(*f, sides);
    needs = plan.recover || plan.resolve;
    return true;
}

bool table_files_valid(const std::filesystem::path& dir, const Material& material, std::string* why) {
    const TableIndex index(material.normalized());
    std::error_code ec;
    if (!std::filesystem::exists(table_file_path(dir, index.material(), FileKind::WDL), ec) &&
        !std::filesystem::exists(table_file_path(dir, index.material(), FileKind::DISTANCE), ec)) {
        if (why) why->clear();  // not generated yet: nothing wrong to report
        return false;
    }
    auto wdl = open_file(dir, index, FileKind::WDL, why);
    if (!wdl) return false;
    auto dist = open_file(dir, index, FileKind::DISTANCE, why);
    if (!dist) return false;
    if (wdl->write_id() != dist->write_id())
        return fail(why, table_file_path(dir, index.material(), FileKind::WDL).string() +
                             ": does not belong to the same write as its DTM/DTZ file");
    return true;
}

std::shared_ptr<TableValues> load_table_values(const std::filesystem::path& dir, const Material& material,
                                               std::string* error, int threads, uint8_t sides, LoadFor purpose,
                                               const TableSet* subtables, std::optional<Color>* recovered) {
    if (threads <= 0) threads = default_threads();
    if (recovered) recovered->reset();
    auto table = std::make_shared<TableValues>(material.normalized());
    const TableIndex& index = table->index;
    auto f = open_file(dir, index, FileKind::DISTANCE, error);
    if (!f) return nullptr;
    const std::optional<Color> left_out = f->left_out_side();
    const ReadPlan plan = read_plan(*f, sides);
    const bool recover = plan.recover, resolve = plan.resolve;
    const uint8_t read = plan.read;
    std::vector<uint8_t> dtm_codes;
    std::vector<Color> loaded;
    for (Color c : {WHITE, BLACK})
        if (sides & (1 << c)) loaded.push_back(c);
    if ((recover || resolve) && !subtables) {
        fail(error, f->path().string() +
                        (recover ? ": stores one side to move; recovering the other needs "
                                 : ": leaves DTM to captures and promotions; reading it needs ") +
                        "the tables it converts into, which were not given");
        return nullptr;
    }
    for (Color c : {WHITE, BLACK}) {
        if (!(read & (1 << c))) continue;
        const Section* dtm = f->find(Metric::DTM, c);
        const Section* dtz = f->find(Metric::DTZ, c);
        const bool by_code = dtz->h.context == uint8_t(Context::DTM_CODE);
        bool ok = decode_section(*f, *dtm, table->dtm[c], nullptr, by_code ? &dtm_codes : nullptr, nullptr, threads);
        if (ok && (dtm->h.flags & FLAG_MOVES_RESOLVED)) {
            PositionBits wdl_draws;
            if (dtm->h.flags & FLAG_DRAWS_IN_WDL) {  // draws read from the WDL file
                std::string why;
                if (!stored_wdl_draws(dir, material, c, f->write_id(), wdl_draws, &why, threads)) {
                    fail(error, f->path().string() + ": leaves its draws to the WDL file; " + why);
                    return nullptr;
                }
            }
            resolve_leaving_moves(*table, c, *subtables, threads, wdl_draws.empty() ? nullptr : &wdl_draws);
            if (by_code) {  // the DTZ's context is the exact DTM's code where it has one
                const ValueArray& v = table->dtm[c];
                parallel_for(v.size(), threads, 1 << 20, [&](uint64_t begin, uint64_t end, int) {
                    for (uint64_t i = begin; i < end; ++i)
                        if (const int code = code_of_value(dtm->code_by_value, v[i]); code >= 0)
                            dtm_codes[i] = uint8_t(code);
                });
            }
        }
        if (!ok || !decode_section(*f, *dtz, table->dtz[c], &table->dtm[c], nullptr, &dtm_codes, threads)) {
            fail(error, f->path().string() + ": corrupt data");
            return nullptr;
        }
    }
    f.reset();
    if (recover) {
        recover_side(*table, *left_out, *subtables, threads);
        if (recovered) *recovered = *left_out;
        if (!(sides & (1 << ~*left_out))) {  // read only for this
            release(table->dtm[~*left_out]);
            release(table->dtz[~*left_out]);
        }
    }
    if (purpose == LoadFor::CONVERSIONS) {
        keep_for_conversions(*table, threads);
        return table;
    }
    // Don't-care entries were stored as whatever compressed best: mark them illegal again,
    // exactly as the generator does (no position, or the side not to move in check).
    parallel_for(index.size(), threads, 1 << 16, [&](uint64_t begin, uint64_t end, int) {
        for (uint64_t i = begin; i < end; ++i) {
            Placement p;
            if (!index.decode(i, p)) {
                for (Color c : loaded) table->dtm[c][i] = table->dtz[c][i] = VALUE_ILLEGAL;
                continue;
            }
            TbBoard b;
            b.set(index, p);
            for (Color c : loaded)
                if (b.in_check(~c)) table->dtm[c][i] = table->dtz[c][i] = VALUE_ILLEGAL;
        }
    });
    return table;
}

bool load_wdl_symbols(const std::filesystem::path& dir, const Material& material, std::array<ValueArray, COLOR_NB>& out,
                      std::array<uint8_t, COLOR_NB>& flags, std::string* error, int threads) {
    if (threads <= 0) threads = default_threads();
    const TableIndex index(material.normalized());
    auto f = open_file(dir, index, FileKind::WDL, error);
    if (!f) return false;
    for (Color c : {WHITE, BLACK}) {
        const Section* s = f->find(Metric::WDL, c);
        if (!s || !decode_section(*f, *s, out[c], nullptr, nullptr, nullptr, threads))
            return fail(error, f->path().string() + ": corrupt data");
        flags[c] = s->h.flags;
    }
    return true;
}

bool stored_wdl_draws(const std::filesystem::path& dir, const Material& material, Color side, uint64_t write_id,
                      PositionBits& out, std::string* error, int threads) {
    if (threads <= 0) threads = default_threads();
    const TableIndex index(material.normalized());
    auto f = open_file(dir, index, FileKind::WDL, error);
    if (!f) return false;
    if (f->write_id() != write_id)
        return fail(error, f->path().string() + ": does not belong to the same write as its DTM/DTZ file");
    const Section* s = f->find(Metric::WDL, side);
    ValueArray symbols;
    if (!s || !decode_section(*f, *s, symbols, nullptr, nullptr, nullptr, threads))
        return fail(error, f->path().string() + ": corrupt data");
    out.assign((symbols.size() + 63) / 64, 0);
    parallel_for(symbols.size(), threads, 1 << 16, [&](uint64_t begin, uint64_t end, int) {  // whole words per worker
        for (uint64_t i = begin; i < end; ++i)
            if (symbols[i] == wdl_symbol(0)) set_bit(out.data(), i);
    });
    return true;
}

}  // namespace pythia::tb
