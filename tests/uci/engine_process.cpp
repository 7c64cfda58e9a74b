#include "tests/uci/engine_process.h"

#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace pythia::test {

EngineProcess::EngineProcess() : EngineProcess(PYTHIA_BINARY) {}

EngineProcess::EngineProcess(const std::string& binary_path, const std::vector<std::string>& args,
                             const std::string& stderr_file) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        if (!stderr_file.empty()) {
            const int err = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (err < 0) _exit(127);
            dup2(err, STDERR_FILENO);
            close(err);
        }
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        std::vector<char*> argv;
        std::string binary = binary_path;
        argv.push_back(binary.data());
        std::vector<std::string> copy = args;
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(binary.c_str(), argv.data());
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    signal(SIGPIPE, SIG_IGN);  // a dead engine must fail a test, not kill the test binary
}

EngineProcess::~EngineProcess() {
    if (to_child_ >= 0 && !exited_) send("quit");
    close_input();
    if (!exited_ && pid_ > 0) {
        if (!wait_exit(2000)) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    if (from_child_ >= 0) close(from_child_);
}

void EngineProcess::send(const std::string& line) {
    std::string data = line + "\n";
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
        ssize_t n = write(to_child_, p, left);
        if (n <= 0) return;
        p += n;
        left -= size_t(n);
    }
}

void EngineProcess::close_input() {
    if (to_child_ >= 0) close(to_child_);
    to_child_ = -1;
}

std::optional<std::string> EngineProcess::next_line(std::chrono::steady_clock::time_point deadline) {
    while (true) {
        auto nl = buffer_.find('\n');
        if (nl != std::string::npos) {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            return line;
        }
        int wait_ms = -1;  // no deadline
        if (deadline != std::chrono::steady_clock::time_point::max()) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return std::nullopt;
            wait_ms = int(left.count());
        }
        pollfd fd{from_child_, POLLIN, 0};
        int r = poll(&fd, 1, wait_ms);
        if (r <= 0) continue;
        char chunk[4096];
        ssize_t n = read(from_child_, chunk, sizeof chunk);
        if (n <= 0) return std::nullopt;  // end of output: the engine has exited
        buffer_.append(chunk, size_t(n));
    }
}

std::optional<std::string> EngineProcess::read_until(const std::function<bool(const std::string&)>& done,
                                                     int timeout_ms, std::vector<std::string>* seen) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (auto line = next_line(deadline)) {
        if (seen) seen->push_back(*line);
        if (done(*line)) return line;
    }
    return std::nullopt;
}

std::vector<std::string> EngineProcess::read_for(int ms) {
    std::vector<std::string> lines;
    read_until([](const std::string&) { return false; }, ms, &lines);
    return lines;
}

std::string EngineProcess::wait_for(const std::string& prefix) {
    while (auto line = next_line(std::chrono::steady_clock::time_point::max()))
        if (line->rfind(prefix, 0) == 0) return *line;
    throw std::runtime_error("the engine stopped answering");
}

std::optional<int> EngineProcess::wait_exit(int timeout_ms) {
    if (exited_) return status_;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
        int status = 0;
        pid_t r = waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            exited_ = true;
            status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            return status_;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::nullopt;
}

}  // namespace pythia::test
