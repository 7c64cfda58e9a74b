// Writing a generated table to its two files (see FORMAT.md), atomically: each file is written
// under a temporary name in the same folder, flushed to disk, then renamed into place.
#pragma once

#include <filesystem>
#include <string>

#include "tablebase/table_set.h"

namespace pythia::tb {

struct GenerationInfo {
    double seconds = 0;  // generation time, shown by `tb info`
    int threads = 1;     // the generator's threads; the writer compresses with as many
    // The tables that captures lead into (the generator's subtables). With them, the WDL file
    // leaves "don't care" the positions where a capture already achieves the value (the prober
    // searches captures), which makes it much smaller; without them WDL is stored exactly.
    const TableSet* subtables = nullptr;
};

// Writes <dir>/<MATERIAL>.pytw and <dir>/<MATERIAL>.pytd, creating `dir` if needed. Returns
// false with a message naming the file and the problem if it cannot.
bool write_table_files(const TableValues& table, const std::filesystem::path& dir, const GenerationInfo& info,
                       std::string* error = nullptr);

}  // namespace pythia::tb
