#include "book/book_settings.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "engine/core/data_paths.h"

namespace pythia {

std::vector<std::string> default_book_candidates(const std::filesystem::path& exe_dir) {
    std::vector<std::string> candidates;
    if (!exe_dir.empty()) candidates.push_back(own_book_file(exe_dir).string());
    candidates.emplace_back(DEBIAN_BOOK_FILE);
    return candidates;
}

std::vector<std::string> default_book_candidates() { return default_book_candidates(executable_dir()); }

std::string default_book_file() {
    for (const std::string& path : default_book_candidates()) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec)) return path;
    }
    return "";
}

BookSettings default_book_settings() {
    BookSettings s;
    s.file = default_book_file();
    return s;
}

std::optional<BookVariety> parse_book_variety(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower == "weighted") return BookVariety::WEIGHTED;
    if (lower == "best") return BookVariety::BEST;
    return std::nullopt;
}

std::string_view book_variety_name(BookVariety variety) { return variety == BookVariety::BEST ? "Best" : "Weighted"; }

}  // namespace pythia
