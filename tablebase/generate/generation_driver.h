// Generating a set of tables: dependency order, skipping tables already stored, keeping the
// tables the next ones need in memory (within a budget) and loading the others from storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tablebase/generate/generator.h"

namespace pythia::tb {

// Where tables live between runs (the file layer provides these).
struct TableStore {
    // True if the table is stored and passes its checks; `why` says what is wrong otherwise.
    std::function<bool(const Material&, std::string* why)> present;
    // The values of a stored table for the sides to move in `sides` (bits 1 << WHITE,
    // 1 << BLACK; the others left empty), held for conversions (keep_for_conversions), or
    // nullptr with `error` set. `subtables`: the tables it converts into, with the sides
    // Material::successor_sides names, when `reading_needs` said reading it needs them.
    std::function<std::shared_ptr<TableValues>(const Material&, uint8_t sides, const TableSet* subtables,
                                               std::string* error)>
        load;
    // Optional: whether `load` needs the subtables to read `sides` of a table (one stored with
    // one side to move, or with DTM left to captures and promotions). False with `error` set if
    // the table cannot be read. Absent: never.
    std::function<bool(const Material&, uint8_t sides, bool& needs, std::string* error)> reading_needs;
    // Optional: checks a freshly generated table against what needs its subtables (those it was
    // generated from), on the driver's thread right after its generation; throws if it fails.
    // What `save` does later needs the table alone, so the write in flight holds no subtables.
    std::function<void(const TableValues&, const TableSet& subtables, int threads)> check;
    // Stores a freshly generated table, on the writes' thread; throws on failure.
    std::function<void(const TableValues&, double generation_seconds, int threads)> save;
    // Optional: keeps a table that leaves memory while a later table still needs it somewhere
    // `load` reads it back faster than from its files (spill_file.h); must not throw.
    std::function<void(const TableValues&)> spill;
    // Optional: no later table needs this one any more (what `spill` kept can go).
    std::function<void(const Material&)> forget;
    // Tables `spill` kept before this run started (by a run that was stopped), which `load`
    // reads back from there: forgotten, like the run's own, once no later table needs them.
    std::vector<Material> spilled_before;
};

size_t default_memory_budget();

// Tables of at least this many positions (those of five pieces) that a later table needs are
// spilled right after their writes even when they stay in memory, so that a run stopped and
// started again reads them from spill files: from its own files, such a table recovers a side
// and resolves its captures by search (a resumed run once spent 70 min loading KPPvKP's
// subtables). The ones of four pieces load from their files in a fraction of a second.
constexpr uint64_t SPILL_AHEAD_POSITIONS = uint64_t(1) << 24;

struct DriverOptions {
    int threads = 1;
    // Spill ahead (with a store that spills) the tables needed later from this size on.
    uint64_t spill_ahead_positions = SPILL_AHEAD_POSITIONS;
    // Bytes for everything the driver holds at once: the tables kept for later ones, the next
    // table's generation and the writes queued (estimates; default: 2/3 of physical memory).
    size_t memory_budget = default_memory_budget();
    std::function<void(const std::string&)> progress;
    // Called once before the first generation with the tables that will be generated, in order.
    std::function<void(const std::vector<Material>&)> plan;
    // Makes one table from its subtables (default: generate_table). `tb generate --dry-run`
    // puts in one that only sizes the arrays, to plan the memory and the loads of a run.
    std::function<std::shared_ptr<const TableValues>(const Material&, const TableSet&, const GenerationOptions&)>
        generate;
};

struct GeneratedTable {
    std::string name;
    double seconds = 0;  // 0 when skipped
    bool skipped = false;
};

// Generates `requested` and everything they depend on, in dependency order. Throws
// std::runtime_error when a table cannot be generated or stored.
std::vector<GeneratedTable> generate_tables(const std::vector<Material>& requested, const TableStore& store,
                                            const DriverOptions& options);

// Bytes of memory a generated table occupies.
size_t table_memory(const TableValues& t);
// Bytes a write uses besides the table's values (one write runs at a time).
size_t writer_memory(uint64_t positions);
// Bytes of a table held for conversions with the sides to move in `sides` (a DTM and a bit a
// position and side).
size_t loaded_table_memory(const Material& m, uint8_t sides);
// Bytes of a table's values from its generation to the end of its write.
size_t table_values_memory(const Material& m);
// Bytes a table's generation uses besides its values and its subtables.
size_t generation_memory(const Material& m);

// The loads before a table's generation: each table it converts into that the driver does not
// hold with the sides it needs, and before each the tables its reading needs (a table stored with
// one side to move recovers the other from the tables it converts into, and one with DTM left to
// captures resolves them), planned the same way.
struct PlannedLoad {
    Material material;
    uint8_t sides = 0;      // every side asked of it
    bool through = false;   // read with its own subtables, loaded before it
    bool subtable = false;  // one the table converts into: kept once the loads are done
    bool again = false;     // loaded before and let go of to stay within the budget: read from its spill file
    // Once this load is done: tables the loads need no more, let go of; and tables a later load
    // reads through again, spilled and let go of (loaded again, `again`, before that load).
    std::vector<std::string> release_after, spill_after;
};
struct LoadPlan {
    std::vector<PlannedLoad> loads;  // in order: each after what it reads through
    size_t peak_bytes = 0;      // the most the loads hold at once, the working memory of the load under way included
    size_t subtable_bytes = 0;  // what they leave: the subtables loaded
};
// `held(m, sides)`: whether the driver holds m with those sides. `reads_through(m, sides)`:
// whether reading them needs m's subtables (it throws if it cannot tell). Tables read through
// are held from their load to the last load that reads through them; where that would take the
// loads past `budget` and `can_spill`, the one read through again latest is spilled and loaded
// again before that (a pawn-against-pawn table's promotions read through a grid of tables: KPPvKP
// held 16 five-piece pawn tables at once, 28 GiB). Past the budget all the same when what the
// load under way needs exceeds it.
LoadPlan plan_loads(const Material& table, const std::function<bool(const Material&, uint8_t)>& held,
                    const std::function<bool(const Material&, uint8_t)>& reads_through, size_t budget = SIZE_MAX,
                    bool can_spill = false);

// A table kept in memory between generations, as the budget sees it.
struct KeptTable {
    std::string name;
    size_t bytes = 0;
    bool needed_next = false;    // a subtable of the next table: never dropped
    size_t next_use = SIZE_MAX;  // where the next table that needs it is in the order
};

// The kept tables to drop until they and `other_bytes` (the next generation, the write in
// flight) fit `budget`: the one needed again latest first (Belady's rule: a dropped table is
// loaded back when needed, which recovers a side and resolves moves, 114 s for KRPvKR's four
// 5-piece subtables), the largest first among those needed equally late. Stops short when
// only tables the next one needs are left.
std::vector<std::string> tables_to_drop(std::vector<KeptTable> kept, size_t other_bytes, size_t budget);

}  // namespace pythia::tb
