// Tables read back from a folder while a list of its tables is checked (`tb verify`): each
// table is read once and kept while a later table of the list converts into it, within a memory
// budget. Without it every table read its subtables again, and each of those one-sided
// subtables again the tables it needs to recover its other side: with pawns, chains of
// promotions read the same 5-piece tables many times over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tablebase/format/table_set.h"
#include "tablebase/generate/table_loader.h"

namespace pythia::tb {

class TableCache {
public:
    // `order`: the tables that will be checked, in that order. `budget`: bytes for the tables
    // kept and the next table's check together (default_memory_budget() in tb verify).
    TableCache(std::filesystem::path dir, std::vector<Material> order, int threads, size_t budget);

    // Before the table at `position` of the order is checked: lets go of every table no table
    // from there on converts into, then, while what is kept and that table's check (its own
    // values and the subtables it still has to read) exceed the budget, of the one needed again
    // latest. Those it converts into stay.
    void make_room(size_t position);

    // Every table the table at `position` converts into (Material::successor_sides), with the
    // sides it looks each up with, read through the cache (with what they need themselves to
    // be read). False with the loader's message naming the file if one is missing or refused.
    bool subtables(size_t position, TableSet& out, std::string* error);

    // Offers a table read whole for the check at `position` (every position, both sides to
    // move): kept if a later table converts into it.
    void offer(size_t position, std::shared_ptr<const TableValues> table);

    size_t reads() const { return reads_; }  // tables this cache read from the folder

private:
    struct Kept {
        std::shared_ptr<const TableValues> table;
        uint8_t sides = 0;
    };
    std::shared_ptr<const TableValues> get(const Material& m, uint8_t sides, std::string* error);
    // Where the next table from `from` on that converts into m is in the order (SIZE_MAX: none).
    size_t next_use(const Material& m, size_t from) const;

    std::filesystem::path dir_;
    std::vector<Material> order_;
    int threads_;
    size_t budget_;
    std::map<std::string, Kept> kept_;
    size_t reads_ = 0;
};

// For a table read on its own (tools, tests): every table `material` converts into
// (Material::successor_sides), with the sides it looks each up with, read from `dir` through a
// TableCache (with what they need themselves to be read). False with the loader's message
// naming the file if one is missing or refused.
bool load_subtables(const std::filesystem::path& dir, const Material& material, TableSet& out,
                    std::string* error = nullptr, int threads = 0);

// load_table_values for a table read on its own: the subtables reading it needs
// (reading_needs_subtables) are read first, by load_subtables.
std::shared_ptr<TableValues> load_table_with_subtables(const std::filesystem::path& dir, const Material& material,
                                                       std::string* error = nullptr, int threads = 0, uint8_t sides = 3,
                                                       LoadFor purpose = LoadFor::EVERY_POSITION);

}  // namespace pythia::tb
