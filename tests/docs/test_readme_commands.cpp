// README.md's "Command line" section against COMMANDS (engine/cli/commands.cpp), the list that
// `pythia help` prints: every command is one row of the section's table, with `pythia <command>`
// in its first cell, and no row names a command that COMMANDS does not have. A command added to
// or removed from one side alone fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "engine/cli/command.h"

namespace {

const std::string README = PYTHIA_SOURCE_DIR "/README.md";
const std::string SECTION = "## Command line";

std::string trimmed(const std::string& s) {
    const size_t first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// The lines of the section, from its heading to the next heading of the same level.
std::vector<std::string> section_lines() {
    std::ifstream in(README);
    std::vector<std::string> lines;
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("## ")) {
            if (inside) break;
            inside = trimmed(line) == SECTION;
            continue;
        }
        if (inside) lines.push_back(line);
    }
    return lines;
}

struct ReadmeCommands {
    std::vector<std::string> names;      // "tb probe" for a first cell `pythia tb probe`
    std::vector<std::string> malformed;  // first cells that mention pythia in another form
};

// The first cell of every table row of the section.
ReadmeCommands readme_commands(const std::vector<std::string>& lines) {
    ReadmeCommands r;
    for (const std::string& line : lines) {
        if (!trimmed(line).starts_with("|")) continue;
        const std::string row = trimmed(line).substr(1);
        const std::string cell = trimmed(row.substr(0, row.find('|')));
        const std::string prefix = "`pythia ";
        if (cell.starts_with(prefix) && cell.size() > prefix.size() + 1 && cell.ends_with("`") &&
            std::count(cell.begin(), cell.end(), '`') == 2)
            r.names.push_back(trimmed(cell.substr(prefix.size(), cell.size() - prefix.size() - 1)));
        else if (cell.find("pythia") != std::string::npos)
            r.malformed.push_back(cell);
    }
    return r;
}

}  // namespace

TEST_CASE("the README command line section lists each command of COMMANDS once and no other", "[docs]") {
    const std::vector<std::string> lines = section_lines();
    INFO(README << ", section \"" << SECTION << "\": one table row per command, first cell `pythia <command>`");
    REQUIRE(!lines.empty());
    const ReadmeCommands readme = readme_commands(lines);
    const std::vector<std::string> commands = pythia::cli::command_names();
    REQUIRE(!commands.empty());

    std::vector<std::string> missing, duplicated, unknown;
    for (const std::string& c : commands) {
        const auto n = std::count(readme.names.begin(), readme.names.end(), c);
        if (n == 0) missing.push_back(c);
        if (n > 1) duplicated.push_back(c);
    }
    for (const std::string& r : readme.names)
        if (std::find(commands.begin(), commands.end(), r) == commands.end()) unknown.push_back(r);

    CHECK(missing == std::vector<std::string>{});     // in COMMANDS, not in the README
    CHECK(unknown == std::vector<std::string>{});     // in the README, not in COMMANDS
    CHECK(duplicated == std::vector<std::string>{});  // in the README more than once
    CHECK(readme.malformed == std::vector<std::string>{});
}
