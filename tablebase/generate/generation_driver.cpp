#include "tablebase/generate/generation_driver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <unistd.h>

namespace pythia::tb {

size_t table_memory(const TableValues& t) {
    size_t bytes = 0;
    for (Color c : {WHITE, BLACK})
        bytes +=
            (t.dtm[c].size() + t.dtz[c].size()) * sizeof(Value) +
            (t.capture_resolved[c].size() + t.promotion_resolved[c].size() + t.cursed[c].size()) * sizeof(uint64_t);
    return bytes;
}

// Bytes a write in flight uses besides the table: per section its codes and compressed blocks,
// and two encodes at once (the two sides' sections, or one side's DTM compressed while its DTZ
// is encoded), each with the pair codec's symbols (2 bytes a position) and its second stage;
// then the check's decoded section and the DTZ's contexts with the bounds the writer leaves
// (bits). Measured: KRPvKB's write took the process from 7.0 to 13.9 GiB, 18.5 bytes a
// position. Writes run one at a time, so only one uses it.
size_t writer_memory(uint64_t positions) { return size_t(positions) * 19; }

size_t loaded_table_memory(const Material& m, uint8_t sides) {
    return size_t(TableIndex(m.normalized()).size()) * 17 / 8 * size_t(__builtin_popcount(sides));
}

// Bytes a load uses for a while besides the table it gives: the sides it reads and the one it
// recovers (DTM and DTZ, 4 bytes a position and side) before they are held for conversions,
// and the DTM's codes a DTZ section is read by (a byte). Measured: KBPvKP's loads took the
// process 0.17 GiB past a plan that counted 8 bytes.
size_t load_working_memory(const Material& m) { return size_t(TableIndex(m.normalized()).size()) * 10; }

// Bytes of a table's values from its generation to the end of its write: DTM and DTZ of both
// sides, and the capture bits.
size_t table_values_memory(const Material& m) {
    return size_t(TableIndex(m.normalized()).size()) * (4 * sizeof(Value) + 1);
}

// Bytes a generation uses besides the values: per slice the cells of both metrics and sides, 4
// bytes each, with the lists of scheduled positions counted as much again (a bound), or twice as
// much where the slice needs 64-bit position ids.
size_t generation_memory(const Material& m) {
    const uint64_t slice = TableIndex(m.normalized()).slice_size();
    return size_t(slice) * (needs_wide_position_ids(slice) ? 48 : 32);
}

size_t default_memory_budget() {
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page_size <= 0) return size_t(12) << 30;
    return size_t(pages) / 3 * 2 * size_t(page_size);
}

namespace {

// The process's resident memory in bytes (0 where /proc cannot tell): logged beside the
// driver's own accounting, so that a run shows what the estimates miss.
size_t resident_bytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long size = 0, resident = 0;
    const bool ok = std::fscanf(f, "%lu %lu", &size, &resident) == 2;
    std::fclose(f);
    return ok ? size_t(resident) * size_t(sysconf(_SC_PAGE_SIZE)) : 0;
}

std::string gib(size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(size_t(1) << 30));
    return text;
}

}  // namespace

std::vector<std::string> tables_to_drop(std::vector<KeptTable> kept, size_t other_bytes, size_t budget) {
    std::sort(kept.begin(), kept.end(), [](const KeptTable& a, const KeptTable& b) {
        return a.next_use != b.next_use ? a.next_use > b.next_use : a.bytes > b.bytes;
    });
    size_t total = other_bytes;
    for (const KeptTable& k : kept) total += k.bytes;
    std::vector<std::string> dropped;
    for (const KeptTable& k : kept) {
        if (total <= budget) break;
        if (k.needed_next) continue;
        total -= k.bytes;
        dropped.push_back(k.name);
    }
    return dropped;
}

LoadPlan plan_loads(const Material& table, const std::function<bool(const Material&, uint8_t)>& held,
                    const std::function<bool(const Material&, uint8_t)>& reads_through, size_t budget, bool can_spill) {
    const auto needs = table.successor_sides();
    auto is_subtable = [&](const Material& t) {
        return std::any_of(needs.begin(), needs.end(), [&](const auto& n) { return n.first == t; });
    };
    // First every table to load with every side asked of it (reading more sides may need more).
    std::map<std::string, uint8_t> sides_of;
    std::map<std::string, bool> through_of;
    std::function<void(const Material&, uint8_t)> want = [&](const Material& s, uint8_t sides) {
        if (s.total() <= 2 || held(s, sides)) return;
        uint8_t& w = sides_of[s.name()];
        if ((w & sides) == sides) return;
        w |= sides;
        const bool through = through_of[s.name()] = reads_through(s, w);
        if (through)
            for (const auto& [t, t_sides] : s.successor_sides()) want(t, t_sides);
    };
    for (const auto& [s, sides] : needs) want(s, sides);
    // Then their order: each after what it reads through.
    std::vector<PlannedLoad> order;
    std::set<std::string> ordered;
    std::function<void(const Material&)> place = [&](const Material& s) {
        if (!sides_of.count(s.name()) || !ordered.insert(s.name()).second) return;
        const bool through = through_of[s.name()];
        if (through)
            for (const auto& [t, t_sides] : s.successor_sides()) place(t);
        order.push_back({s, sides_of[s.name()], through, is_subtable(s), false, {}, {}});
    };
    for (const auto& [s, sides] : needs) place(s);
    // The tables a load reads through (those loaded by the plan), and how many loads still will.
    auto read_through = [&](const PlannedLoad& l) {
        std::vector<std::string> out;
        if (l.through)
            for (const auto& [t, t_sides] : l.material.successor_sides())
                if (sides_of.count(t.name())) out.push_back(t.name());
        return out;
    };
    std::set<std::string> subtable_names;
    for (const auto& [s, sides] : needs) subtable_names.insert(s.name());
    std::map<std::string, int> uses_left;
    for (const PlannedLoad& l : order)
        for (const std::string& t : read_through(l)) ++uses_left[t];
    // Then what they hold as they go, in a walk over the order that spills where the budget says.
    LoadPlan plan;
    std::map<std::string, size_t> holding;  // loaded, not let go of yet -> bytes
    std::set<std::string> reloaded;         // loaded again and not yet read through
    auto held_bytes = [&] {
        size_t total = 0;
        for (const auto& [name, bytes] : holding) total += bytes;
        return total;
    };
    for (size_t w = 0; w < order.size(); ++w) {
        PlannedLoad l = order[w];
        const std::vector<std::string> now = read_through(l);
        const size_t cost = loaded_table_memory(l.material, l.sides) + load_working_memory(l.material);
        while (can_spill && !plan.loads.empty() && held_bytes() + cost > budget) {
            // The table read through again latest, of those this load does not need.
            std::string victim;
            size_t victim_next = 0;
            for (const auto& [name, bytes] : holding) {
                if (subtable_names.count(name) || reloaded.count(name) ||
                    std::find(now.begin(), now.end(), name) != now.end())
                    continue;
                size_t next = w + 1;
                while (next < order.size()) {
                    const auto r = read_through(order[next]);
                    if (std::find(r.begin(), r.end(), name) != r.end()) break;
                    ++next;
                }
                if (next < order.size() && next > victim_next) victim = name, victim_next = next;
            }
            if (victim.empty()) break;
            plan.loads.back().spill_after.push_back(victim);
            const PlannedLoad& first = *std::find_if(order.begin(), order.end(),
                                                     [&](const PlannedLoad& o) { return o.material.name() == victim; });
            PlannedLoad again{first.material, first.sides, false, false, true, {}, {}};
            order.insert(order.begin() + std::ptrdiff_t(victim_next), again);
            holding.erase(victim);
        }
        plan.peak_bytes = std::max(plan.peak_bytes, held_bytes() + cost);
        holding[l.material.name()] = loaded_table_memory(l.material, l.sides);
        if (l.again) reloaded.insert(l.material.name());
        for (const std::string& t : now) {
            reloaded.erase(t);
            if (--uses_left[t] == 0 && !subtable_names.count(t)) {
                l.release_after.push_back(t);
                holding.erase(t);
            }
        }
        if (l.subtable) plan.subtable_bytes += loaded_table_memory(l.material, l.sides);
        plan.loads.push_back(std::move(l));
    }
    return plan;
}

std::vector<GeneratedTable> generate_tables(const std::vector<Material>& requested, const TableStore& store,
                                            const DriverOptions& options) {
    const std::vector<Material> order = with_dependencies(requested);
    std::vector<GeneratedTable> report;
    // Progress comes from the generator and from the writer's thread: one line at a time.
    std::mutex progress_mutex;
    std::function<void(const std::string&)> progress;
    if (options.progress)
        progress = [&](const std::string& line) {
            std::lock_guard<std::mutex> lock(progress_mutex);
            options.progress(line);
        };

    // Which tables still have to be generated, and which of those need each table.
    std::vector<bool> needs_generation(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        std::string why;
        needs_generation[i] = !store.present(order[i], &why);
        if (needs_generation[i] && !why.empty() && progress)
            progress(order[i].name() + ": " + why + ", generating it again");
    }
    if (options.plan) {
        std::vector<Material> planned;
        for (size_t i = 0; i < order.size(); ++i)
            if (needs_generation[i]) planned.push_back(order[i]);
        options.plan(planned);
    }
    // Where the next table from `from` on that needs m is in the order (order.size() if none).
    auto next_use = [&](const Material& m, size_t from) {
        for (size_t j = from; j < order.size(); ++j) {
            if (!needs_generation[j]) continue;
            auto succ = order[j].successors();
            if (std::find(succ.begin(), succ.end(), m) != succ.end()) return j;
        }
        return order.size();
    };
    auto still_needed = [&](const Material& m, size_t from) { return next_use(m, from) < order.size(); };

    // A table is written while the next ones are generated (the writer's compression and the
    // solver's memory-bound loops share the cores well). Writes run one after another, in the
    // order the tables were made, but the generator does not wait for them: it goes on to the
    // next table unless the memory budget says otherwise. (With one write in flight, a small
    // table made between two large ones waited for the first one's write, and so did the
    // second: on the reference subset nothing overlapped.) Errors surface at the next wait.
    //
    // The budget covers everything: the tables held (kept for later ones, or held by a write
    // in flight: each distinct table counted once), the working memory of the write under way
    // (they run one at a time), and the next table's, from its generation to the end of its own
    // write: its values, and the working memory of its generation or, once the writes before it
    // are done, of its write. (Counting its write on top of the one in flight kept two large
    // pawn tables from ever overlapping: the generator waited for each write.) When they do not
    // fit, writes are waited for, oldest first, then kept tables that the next table does not
    // need are dropped, the one needed again latest first (they are spilled, where the store can,
    // and loaded back when a later table needs them). The full 5-piece set once ran out of the
    // machine's 24 GiB when only the kept tables were counted, and once more when the next
    // table's write was not.
    struct Write {
        std::string name;
        std::shared_ptr<const TableValues> table;  // until the write is done
        size_t working = 0;                        // the writer's own memory
        std::shared_future<void> done;
    };
    std::deque<Write> writes;
    std::map<std::string, std::shared_ptr<const TableValues>> in_memory;
    std::map<std::string, Material> spilled;  // tables the store has spilled (with store.spill and store.forget)
    const bool spills = store.spill && store.forget;
    // Spill files from before are of tables stored then; one generated again goes (its spill
    // file holds the values of files that are gone).
    if (spills)
        for (const Material& m : store.spilled_before) {
            const size_t at = size_t(std::find(order.begin(), order.end(), m) - order.begin());
            if (at < order.size() && !needs_generation[at])
                spilled.emplace(m.name(), m);
            else
                store.forget(m);
        }
    auto held_by_writes = [&](const TableValues* t) {
        return std::any_of(writes.begin(), writes.end(), [&](const Write& w) { return w.table.get() == t; });
    };
    auto tables_held = [&] {
        std::set<const TableValues*> counted;
        size_t bytes = 0;
        auto count = [&](const std::shared_ptr<const TableValues>& t) {
            if (counted.insert(t.get()).second) bytes += table_memory(*t);
        };
        for (auto& [name, t] : in_memory) count(t);
        for (const Write& w : writes) count(w.table);
        return bytes;
    };
    // Writes run one at a time: only the largest working memory of those queued counts.
    auto working_held = [&] {
        size_t working = 0;
        for (const Write& w : writes) working = std::max(working, w.working);
        return working;
    };
    auto memory_held = [&] { return tables_held() + working_held(); };
    auto has_sides = [](const TableValues& t, uint8_t sides) {
        for (Color c : {WHITE, BLACK})
            if ((sides & (1 << c)) && !t.has_side(c)) return false;
        return true;
    };
    auto holds_dtz = [](const TableValues& t) { return !t.dtz[WHITE].empty() || !t.dtz[BLACK].empty(); };
    // A kept table as held for conversions. The table is shared as const: its DTM is moved
    // over where nothing else holds it any more (every table the driver holds was made mutable),
    // else copied. (Copying held a 5-piece pawn table's DTM twice for a moment, 1.6 GB, and let a
    // dry run, whose tables are never filled, touch every page of the kept ones.)
    auto for_conversions = [](std::shared_ptr<const TableValues>& held, int threads) {
        auto copy = std::make_shared<TableValues>(held->index.material());
        const bool sole = held.use_count() == 1;
        TableValues& t = const_cast<TableValues&>(*held);
        for (Color c : {WHITE, BLACK}) {
            if (!t.has_side(c)) continue;
            copy->cursed[c] = t.dtz[c].empty() ? t.cursed[c] : cursed_positions(t.dtz[c], threads);
            if (sole)
                copy->dtm[c] = std::move(t.dtm[c]);
            else
                copy->dtm[c] = t.dtm[c];
        }
        held = std::move(copy);
    };
    auto finish_oldest_write = [&] {
        Write w = std::move(writes.front());
        writes.pop_front();
        w.done.get();  // rethrows the write's error
    };
    auto reap_finished_writes = [&] {
        while (!writes.empty() && writes.front().done.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
            finish_oldest_write();
    };
    auto wait_for_writes = [&] {
        while (!writes.empty()) finish_oldest_write();
    };
    auto wait_for_write_of = [&](const std::string& name) {
        if (std::none_of(writes.begin(), writes.end(), [&](const Write& w) { return w.name == name; })) return;
        while (writes.front().name != name) finish_oldest_write();
        finish_oldest_write();
    };
    for (size_t i = 0; i < order.size(); ++i) {
        const Material& m = order[i];
        if (!needs_generation[i]) {
            report.push_back({m.name(), 0, true});
            continue;
        }
        // Drop what no remaining table needs, then make sure every successor is at hand.
        for (auto it = in_memory.begin(); it != in_memory.end();) {
            if (still_needed(it->second->index.material(), i))
                ++it;
            else
                it = in_memory.erase(it);
        }
        for (auto it = spilled.begin(); it != spilled.end();) {
            if (still_needed(it->second, i)) {
                ++it;
                continue;
            }
            store.forget(it->second);
            it = spilled.erase(it);
        }
        // Kept tables that no write holds any more are held for conversions from now on (half
        // their memory: no later table reads more of them).
        reap_finished_writes();
        for (auto& [name, t] : in_memory)
            if (holds_dtz(*t) && !held_by_writes(t.get())) for_conversions(t, options.threads);
        // The successors, with the sides to move this table looks up in each: only those are
        // loaded (a kept table without one of them is loaded again).
        const std::vector<std::pair<Material, uint8_t>> needs = m.successor_sides();
        for (const auto& [s, sides] : needs) {
            auto it = in_memory.find(s.name());
            if (it != in_memory.end() && !has_sides(*it->second, sides)) in_memory.erase(it);
        }
        auto is_successor = [&](const Material& t) {
            return std::any_of(needs.begin(), needs.end(), [&](const auto& n) { return n.first == t; });
        };
        // The loads: each successor not in memory, and before it what reading it needs (a table
        // stored with one side to move recovers the other from the tables it converts into, and
        // one with DTM left to captures resolves them), planned the same way: kept tables where
        // there are, else loaded, and let go of as soon as the last load that reads through them
        // is done. Once let a resumed run read those from files behind the budget, each time
        // again: 21.2 GiB against a 15.7 GiB budget, and 339 s to load KBPPvK's four subtables.
        auto kept_with = [&](const Material& s, uint8_t sides) {
            auto it = in_memory.find(s.name());
            return it != in_memory.end() && has_sides(*it->second, sides);
        };
        // The loads' own budget: what the kept tables this one converts into leave (the rest is
        // let go of, or waited for, below).
        size_t needed_kept = 0;
        for (const auto& [name, t] : in_memory)
            if (is_successor(t->index.material())) needed_kept += table_memory(*t);
        const size_t loads_budget = options.memory_budget > needed_kept ? options.memory_budget - needed_kept : 0;
        const LoadPlan plan = plan_loads(
            m, kept_with,
            [&](const Material& s, uint8_t sides) {
                // A table still being written is read back from its spill file, which needs nothing.
                if (std::any_of(writes.begin(), writes.end(), [&](const Write& w) { return w.name == s.name(); }) ||
                    !store.reading_needs)
                    return false;
                bool through = false;
                std::string error;
                if (!store.reading_needs(s, sides, through, &error))
                    throw std::runtime_error("cannot load " + s.name() + " for " + m.name() + ": " + error);
                return through;
            },
            loads_budget, spills);
        const size_t to_load = plan.peak_bytes, subtables_to_load = plan.subtable_bytes;
        // What the next table adds to what is held: its loads, then its values and its
        // generation's working memory beside the writes in flight, or later its own write's (it
        // runs once those are done, so it needs only what exceeds theirs).
        auto next_bytes = [&] {
            const size_t working = working_held(), write = writer_memory(TableIndex(m).size());
            return std::max(to_load, subtables_to_load + table_values_memory(m) +
                                         std::max(generation_memory(m), write > working ? write - working : 0));
        };
        // Tables kept that the loads read through count as needed next: dropping one would load it again.
        auto needed_by_loads = [&](const Material& t) {
            return std::any_of(plan.loads.begin(), plan.loads.end(), [&](const PlannedLoad& l) {
                if (!l.through) return false;
                const auto successors = l.material.successors();
                return std::find(successors.begin(), successors.end(), t) != successors.end();
            });
        };
        auto over_budget = [&] { return memory_held() + next_bytes() > options.memory_budget; };
        if (over_budget()) {
            while (!writes.empty() && over_budget()) {
                if (progress) progress(m.name() + ": waiting for " + writes.front().name + "'s write (memory)");
                finish_oldest_write();
            }
            // Dropping a kept table frees nothing while a write still holds it.
            std::vector<KeptTable> kept;
            size_t kept_bytes = 0;
            for (auto& [name, t] : in_memory) {
                const size_t bytes = held_by_writes(t.get()) ? 0 : table_memory(*t);
                kept_bytes += bytes;
                const Material& tm = t->index.material();
                kept.push_back({name, bytes, is_successor(tm) || needed_by_loads(tm), next_use(tm, i)});
            }
            std::string dropped;
            for (const std::string& name :
                 tables_to_drop(kept, memory_held() - kept_bytes + next_bytes(), options.memory_budget)) {
                // Every kept table is needed later; one read back from its spill file is there already.
                if (spills && !spilled.count(name)) {
                    store.spill(*in_memory[name]);
                    spilled.emplace(name, in_memory[name]->index.material());
                }
                in_memory.erase(name);
                dropped.append(" ").append(name);
            }
            if (!dropped.empty() && progress) progress(m.name() + ": memory: dropped" + dropped);
        }
        spdlog::debug("{}: memory: held {}, next {} (loads {}), budget {}, resident {}", m.name(), gib(memory_held()),
                      gib(next_bytes()), gib(to_load), gib(options.memory_budget), gib(resident_bytes()));

        std::map<std::string, std::shared_ptr<const TableValues>> loaded;  // by these loads, until let go of
        auto held_with = [&](const Material& s, uint8_t sides) -> std::shared_ptr<const TableValues> {
            for (auto* held : {&in_memory, &loaded}) {
                auto it = held->find(s.name());
                if (it != held->end() && has_sides(*it->second, sides)) return it->second;
            }
            return nullptr;
        };
        std::string loaded_names;
        const auto load_start = std::chrono::steady_clock::now();
        // Tables kept are never dropped while a load reads through them (needed_by_loads above).
        auto lost = [&](const Material& t) {
            return std::logic_error("the driver lost " + t.name() + " while loading for " + m.name());
        };
        for (size_t k = 0; k < plan.loads.size(); ++k) {
            const PlannedLoad& l = plan.loads[k];
            const std::string name = l.material.name();
            std::string error;
            TableSet through;
            if (l.through)
                for (const auto& [t, t_sides] : l.material.successor_sides()) {
                    if (t.total() <= 2) continue;
                    auto held = held_with(t, t_sides);
                    if (!held) throw lost(t);
                    through.add(held);
                }
            wait_for_write_of(name);
            std::shared_ptr<const TableValues> t =
                store.load(l.material, l.sides, l.through ? &through : nullptr, &error);
            if (!t) throw std::runtime_error("cannot load " + name + " for " + m.name() + ": " + error);
            loaded[name] = std::move(t);
            loaded_names.append(" ").append(name);
            for (const std::string& s : l.spill_after) {  // read through again later, from its spill file
                store.spill(*loaded.at(s));
                spilled.emplace(s, loaded.at(s)->index.material());
                loaded.erase(s);
            }
            for (const std::string& s : l.release_after) loaded.erase(s);
        }
        TableSet subtables;
        for (const auto& [s, sides] : needs) {
            if (s.total() <= 2) continue;
            std::shared_ptr<const TableValues> t = held_with(s, sides);
            if (!t) throw lost(s);
            in_memory[s.name()] = t;
            subtables.add(t);
        }
        loaded.clear();  // what only the loads needed is gone by now
        if (!loaded_names.empty() && progress) {
            const double load_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
            progress(fmt::format("{}: loaded{} in {:.1f} s", m.name(), loaded_names, load_seconds));
        }

        GenerationOptions go;
        go.threads = options.threads;
        // A slice's progress is detail (a line per table is what a person follows): debug level.
        go.progress = [](const std::string& line) { spdlog::debug("{}", line); };
        const auto start = std::chrono::steady_clock::now();
        std::shared_ptr<const TableValues> table =
            options.generate ? options.generate(m, subtables, go) : generate_table(m, subtables, go);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        report.push_back({m.name(), seconds, false});
        // What needs the subtables is checked now, while they are at hand; the write holds the
        // table alone. (Writes once held their subtables too, for the check's sample of moves:
        // 2.5-5 GB more per pawn table while it was written, which the next table waited for.)
        if (store.check) store.check(*table, subtables, options.threads);
        subtables = TableSet();
        Write write{m.name(), {table}, writer_memory(table->index.size()), {}};
        // Keep the new table if a later one needs it (while it is written, keeping it costs
        // nothing more; the next table makes room if it must); else spill it after its write.
        // A large one is spilled even when kept, for a run started again after a stop.
        const bool needed_later = still_needed(m, i + 1);
        const bool fits =
            tables_held() + table_memory(*table) + std::max(working_held(), write.working) <= options.memory_budget;
        const bool keep = needed_later && fits;
        const bool spill = needed_later && spills && (!keep || table->index.size() >= options.spill_ahead_positions);
        if (spill) spilled.emplace(m.name(), m);
        std::shared_future<void> previous = writes.empty() ? std::shared_future<void>() : writes.back().done;
        // The task lets go of what it holds as soon as it is done: std::async's shared state keeps
        // the callable (and so its captures) until the last future of it goes, and each write's
        // `previous` is such a future, so a chain of writes once kept every table written alive.
        write.done = std::async(std::launch::async, [&store, &options, table, seconds, spill, previous]() mutable {
                         if (previous.valid()) previous.wait();  // one write at a time, in order
                         previous = {};
                         store.save(*table, seconds, options.threads);
                         if (spill) store.spill(*table);
                         table.reset();
                     }).share();
        writes.push_back(std::move(write));
        if (keep) in_memory.emplace(m.name(), std::move(table));
    }
    wait_for_writes();
    return report;
}

}  // namespace pythia::tb
