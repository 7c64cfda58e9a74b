#include "tablebase/generation_driver.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

namespace pythia::tb {

size_t table_memory(const TableValues& t) {
    size_t bytes = 0;
    for (Color c : {WHITE, BLACK}) bytes += (t.dtm[c].size() + t.dtz[c].size()) * sizeof(Value);
    return bytes;
}

std::vector<GeneratedTable> generate_tables(const std::vector<Material>& requested, const TableStore& store,
                                            const DriverOptions& options) {
    const std::vector<Material> order = with_dependencies(requested);
    std::vector<GeneratedTable> report;

    // Which tables still have to be generated, and which of those need each table.
    std::vector<bool> needs_generation(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        std::string why;
        needs_generation[i] = !store.present(order[i], &why);
        if (needs_generation[i] && !why.empty() && options.progress)
            options.progress(order[i].name() + ": " + why + ", generating it again");
    }
    auto still_needed = [&](const Material& m, size_t from) {
        for (size_t j = from; j < order.size(); ++j) {
            if (!needs_generation[j]) continue;
            auto succ = order[j].successors();
            if (std::find(succ.begin(), succ.end(), m) != succ.end()) return true;
        }
        return false;
    };

    std::map<std::string, std::shared_ptr<const TableValues>> in_memory;
    for (size_t i = 0; i < order.size(); ++i) {
        const Material& m = order[i];
        if (!needs_generation[i]) {
            report.push_back({m.name(), 0, true});
            continue;
        }
        // Drop what no remaining table needs, then make sure every successor is at hand.
        for (auto it = in_memory.begin(); it != in_memory.end();) {
            if (still_needed(it->second->index.material(), i)) ++it;
            else it = in_memory.erase(it);
        }
        TableSet subtables;
        for (const Material& s : m.successors()) {
            if (s.total() <= 2) continue;
            auto it = in_memory.find(s.name());
            if (it == in_memory.end()) {
                std::string error;
                auto loaded = store.load(s, &error);
                if (!loaded) throw std::runtime_error("cannot load " + s.name() + " for " + m.name() + ": " + error);
                it = in_memory.emplace(s.name(), loaded).first;
            }
            subtables.add(it->second);
        }

        GenerationOptions go;
        go.threads = options.threads;
        go.progress = options.progress;
        const auto start = std::chrono::steady_clock::now();
        std::shared_ptr<TableValues> table = generate_table(m, subtables, go);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        store.save(*table, subtables, seconds, options.threads);
        report.push_back({m.name(), seconds, false});
        if (options.progress) options.progress(m.name() + ": generated in " + std::to_string(seconds) + " s");

        // Keep the new table if a later one needs it and it fits the budget.
        size_t used = 0;
        for (auto& [name, t] : in_memory) used += table_memory(*t);
        if (still_needed(m, i + 1) && used + table_memory(*table) <= options.memory_budget)
            in_memory.emplace(m.name(), std::move(table));
    }
    return report;
}

}  // namespace pythia::tb
