// Sizes as the command-line tools print them ("812 B", "41.3 KiB", "2.69 GiB").
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace pythia::cli {

inline std::string bytes_text(uint64_t n) {
    char s[32];
    if (n < 10 * 1024)
        std::snprintf(s, sizeof s, "%llu B", (unsigned long long)n);
    else if (n < 10ull << 20)
        std::snprintf(s, sizeof s, "%.1f KiB", n / 1024.0);
    else if (n < 10ull << 30)
        std::snprintf(s, sizeof s, "%.1f MiB", n / 1048576.0);
    else
        std::snprintf(s, sizeof s, "%.2f GiB", n / 1073741824.0);
    return s;
}

}  // namespace pythia::cli
