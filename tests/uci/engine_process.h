// A running `pythia` child process with pipes to its stdin and stdout, for protocol tests.
// Every read has a timeout, so a hanging engine fails the test instead of blocking it.
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
    explicit EngineProcess(const std::vector<std::string>& args = {}) : EngineProcess(PYTHIA_BINARY, args) {}
    EngineProcess(const std::string& binary, const std::vector<std::string>& args);
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

    // Waits for the process to exit; returns its exit status, or nullopt on timeout.
    std::optional<int> wait_exit(int timeout_ms);

private:
    std::optional<std::string> next_line(std::chrono::steady_clock::time_point deadline);

    pid_t pid_ = -1;
    int to_child_ = -1, from_child_ = -1;
    std::string buffer_;
    bool exited_ = false;
    int status_ = 0;
};

}  // namespace pythia::test
