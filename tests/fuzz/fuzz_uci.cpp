// libFuzzer target: the UCI command layer, in process. The input is a sequence of command
// lines run through a UciEngine (its output goes to a string; it is reset between inputs).
// Searches are kept short so that a run makes many executions: every `go` gets ` depth 2 nodes 2000` appended (later
// limits override earlier ones; the junk before them is still parsed), and the few commands
// that are slow by design (bench, go perft, a huge Hash, many Threads) are left out.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "engine/uci/uci.h"

using namespace pythia;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

// False for the lines that would make one execution slow (not for lines that are merely bad).
bool affordable(const std::string& line) {
    std::istringstream in(lower(line));
    std::string command;
    in >> command;
    if (command == "bench") return false;
    if (command == "go") return line.find("perft") == std::string::npos;
    if (command == "setoption") {
        const std::string l = lower(line);
        // File and folder options (BookFile, TablebasePath): names in the current folder only
        // (no /dev/stdin and the like).
        if (l.find('/') != std::string::npos) return false;
        if (l.find("hash") == std::string::npos && l.find("threads") == std::string::npos) return true;
        // Hash and Threads: small values only (bounds checking is still exercised by junk).
        // Every number in the line, leading zeros aside, must be at most 8.
        for (size_t i = 0; i < l.size();) {
            if (!std::isdigit(static_cast<unsigned char>(l[i]))) {
                ++i;
                continue;
            }
            while (i < l.size() && l[i] == '0') ++i;
            size_t len = 0;
            while (i + len < l.size() && std::isdigit(static_cast<unsigned char>(l[i + len]))) ++len;
            if (len > 1 || (len == 1 && l[i] > '8')) return false;
            i += len;
        }
        return true;
    }
    return true;
}

// One engine for the whole run (building one costs more than most inputs: the hash table,
// the opening book's check), brought back to its initial state after every input.
std::ostringstream engine_output;
UciEngine* engine = nullptr;
std::vector<std::string> option_names;

void reset_engine() {
    engine->execute("ucinewgame");  // stops and joins a running search, clears the tables
    engine->execute("debug off");
    for (const std::string& name : option_names) {
        const OptionTable::Option* o = engine->options().find(name);
        const std::string initial = name == "Hash" ? "1" : o->default_value;
        if (o->type != OptionTable::Type::BUTTON && o->value != initial)
            engine->execute("setoption name " + name + " value " + initial);
    }
    engine->execute("position startpos");
    engine_output.str("");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    spdlog::set_level(spdlog::level::off);
    engine = new UciEngine(engine_output);
    // "option name <name> type ...": the names, to put every option back after each input.
    for (const std::string& d : engine->options().declarations()) {
        const size_t from = d.find("name ") + 5, to = d.find(" type ");
        option_names.push_back(d.substr(from, to - from));
    }
    reset_engine();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    int lines = 0;
    for (std::string line; std::getline(in, line) && ++lines <= 64;) {
        if (!affordable(line)) continue;
        std::istringstream first(line);
        std::string command;
        first >> command;
        if (command == "go") line += " depth 2 nodes 2000";
        if (!engine->execute(line)) break;  // quit
    }
    reset_engine();
    return 0;
}
