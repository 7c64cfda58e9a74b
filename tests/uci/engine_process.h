// A UCI engine as a child process, spoken to line by line over pipes to its stdin and stdout:
// the protocol tests' `pythia` (every read with a timeout, so that a hanging engine fails the
// test instead of blocking it) and the benchmark programs' engines (bench/), which wait as long
// as a search takes. One library, pythia_engine_process (the top-level CMakeLists.txt).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace pythia::test {

class EngineProcess {
public:
    // The `pythia` of this build (PYTHIA_BINARY).
    EngineProcess();
    // `stderr_file`: the engine's stderr goes there (default: the test's own stderr).
    explicit EngineProcess(const std::string& binary, const std::vector<std::string>& args = {},
                           const std::string& stderr_file = {});
    // Sends "quit", closes the engine's input and waits up to 2 s for it to exit, then kills it.
    ~EngineProcess();
    EngineProcess(const EngineProcess&) = delete;
    EngineProcess& operator=(const EngineProcess&) = delete;

    void send(const std::string& line);
    void close_input();

    // Reads lines until `done` accepts one (returned) or the timeout passes (nullopt). Every
    // line read, the accepted one included, is appended to `seen` when given.
    std::optional<std::string> read_until(const std::function<bool(const std::string&)>& done, int timeout_ms,
                                          std::vector<std::string>* seen = nullptr);
    std::optional<std::string> read_line_starting(const std::string& prefix, int timeout_ms,
                                                  std::vector<std::string>* seen = nullptr) {
        return read_until([&](const std::string& l) { return l.rfind(prefix, 0) == 0; }, timeout_ms, seen);
    }
    // Lines that arrive within `ms` (for checking that nothing unwanted is sent).
    std::vector<std::string> read_for(int ms);
    // Reads lines, however long it takes, until one starts with `prefix` (returned); throws
    // std::runtime_error when the engine's output ends first (it has exited).
    std::string wait_for(const std::string& prefix);

    // Waits for the process to exit; returns its exit status, or nullopt on timeout.
    std::optional<int> wait_exit(int timeout_ms);

private:
    // The next line, or nullopt at the deadline or the end of the output. No deadline: time_point::max().
    std::optional<std::string> next_line(std::chrono::steady_clock::time_point deadline);

    pid_t pid_ = -1;
    int to_child_ = -1, from_child_ = -1;
    std::string buffer_;
    bool exited_ = false;
    int status_ = 0;
};

}  // namespace pythia::test
