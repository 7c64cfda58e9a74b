#include "engine/core/data_paths.h"

#include <system_error>

namespace pythia {

namespace fs = std::filesystem;

fs::path executable_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

fs::path checkout_of(const fs::path& exe_dir) {
    if (exe_dir.empty()) return {};
    const fs::path root = exe_dir.parent_path().parent_path();
    std::error_code ec;
    // The files that make a folder a Pythia checkout: its build description and the sources of
    // the tables' generator (a build folder of another project will not have both).
    if (exe_dir.parent_path().filename() == "build" && fs::is_regular_file(root / "CMakePresets.json", ec) &&
        fs::is_directory(root / "tablebase" / "generate", ec))
        return root;
    return {};
}

fs::path default_tablebase_dir(const fs::path& exe_dir) {
    if (exe_dir.empty()) return {};
    const fs::path checkout = checkout_of(exe_dir);
    return (checkout.empty() ? exe_dir : checkout) / "tablebases";
}

fs::path default_tablebase_dir() { return default_tablebase_dir(executable_dir()); }

fs::path own_book_file(const fs::path& exe_dir) {
    return exe_dir.empty() ? fs::path() : exe_dir / "book" / "pythia.bin";
}

}  // namespace pythia
