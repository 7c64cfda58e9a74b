#include "tablebase/generate/table_cache.h"

#include <algorithm>
#include <cstdint>

#include "tablebase/generate/generation_driver.h"

namespace pythia::tb {

TableCache::TableCache(std::filesystem::path dir, std::vector<Material> order, int threads, size_t budget)
    : dir_(std::move(dir)), order_(std::move(order)), threads_(threads), budget_(budget) {}

size_t TableCache::next_use(const Material& m, size_t from) const {
    for (size_t j = from; j < order_.size(); ++j) {
        const auto successors = order_[j].successors();
        if (std::find(successors.begin(), successors.end(), m) != successors.end()) return j;
    }
    return SIZE_MAX;
}

void TableCache::make_room(size_t position) {
    for (auto it = kept_.begin(); it != kept_.end();)
        it = next_use(it->second.table->index.material(), position) == SIZE_MAX ? kept_.erase(it) : std::next(it);
    const Material& next = order_[position];
    // The check holds the table's DTM and DTZ of both sides and its WDL symbols (12 bytes a
    // position), and the subtables it has still to read.
    size_t next_bytes = size_t(TableIndex(next.normalized()).size()) * 12;
    for (const auto& [s, sides] : next.successor_sides()) {
        if (s.total() <= 2) continue;
        auto it = kept_.find(s.name());
        if (it == kept_.end() || (it->second.sides & sides) != sides) next_bytes += loaded_table_memory(s, sides);
    }
    std::vector<KeptTable> candidates;
    for (const auto& [name, k] : kept_) {
        const size_t use = next_use(k.table->index.material(), position);
        candidates.push_back({name, table_memory(*k.table), use == position, use});
    }
    for (const std::string& name : tables_to_drop(candidates, next_bytes, budget_)) kept_.erase(name);
}

std::shared_ptr<const TableValues> TableCache::get(const Material& m, uint8_t sides, std::string* error) {
    auto it = kept_.find(m.name());
    if (it != kept_.end() && (it->second.sides & sides) == sides) return it->second.table;
    const uint8_t read = it != kept_.end() ? uint8_t(sides | it->second.sides) : sides;
    bool needs = false;
    if (!reading_needs_subtables(dir_, m, read, needs, error)) return nullptr;
    TableSet subtables;
    if (needs)
        for (const auto& [s, s_sides] : m.successor_sides()) {
            if (s.total() <= 2) continue;  // bare kings: a draw, no table
            std::string why;
            auto t = get(s, s_sides, &why);
            if (!t) {
                if (error) *error = "reading " + m.name() + " needs " + s.name() + ": " + why;
                return nullptr;
            }
            subtables.add(std::move(t));
        }
    std::shared_ptr<const TableValues> table =
        load_table_values(dir_, m, error, threads_, read, LoadFor::CONVERSIONS, needs ? &subtables : nullptr);
    if (!table) return nullptr;
    ++reads_;
    kept_[m.name()] = {table, read};  // make_room lets go of it before the next table if none needs it
    return table;
}

bool TableCache::subtables(size_t position, TableSet& out, std::string* error) {
    for (const auto& [s, sides] : order_[position].successor_sides()) {
        if (s.total() <= 2) continue;
        auto t = get(s, sides, error);
        if (!t) return false;
        out.add(std::move(t));
    }
    return true;
}

void TableCache::offer(size_t position, std::shared_ptr<const TableValues> table) {
    const Material& m = table->index.material();
    if (next_use(m, position + 1) != SIZE_MAX) kept_[m.name()] = {std::move(table), 3};
}

bool load_subtables(const std::filesystem::path& dir, const Material& material, TableSet& out, std::string* error,
                    int threads) {
    TableCache cache(dir, {material}, threads, SIZE_MAX);
    return cache.subtables(0, out, error);
}

std::shared_ptr<TableValues> load_table_with_subtables(const std::filesystem::path& dir, const Material& material,
                                                       std::string* error, int threads, uint8_t sides,
                                                       LoadFor purpose) {
    bool needs = false;
    if (!reading_needs_subtables(dir, material, sides, needs, error)) return nullptr;
    TableSet subtables;
    if (needs && !load_subtables(dir, material, subtables, error, threads)) {
        if (error) *error = "reading " + material.name() + " needs the tables it converts into: " + *error;
        return nullptr;
    }
    return load_table_values(dir, material, error, threads, sides, purpose, needs ? &subtables : nullptr);
}

}  // namespace pythia::tb
