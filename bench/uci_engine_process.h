// A UCI engine as a child process, spoken to line by line over two pipes (for the benchmark
// programs that play engines against each other).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace pythia::bench {

class Engine {
public:
    explicit Engine(const std::string& path) {
        int to_child[2], from_child[2];
        if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("pipe failed");
        pid_ = fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            dup2(to_child[0], STDIN_FILENO);
            dup2(from_child[1], STDOUT_FILENO);
            close(to_child[1]);
            close(from_child[0]);
            execl(path.c_str(), path.c_str(), (char*)nullptr);
            _exit(127);
        }
        close(to_child[0]);
        close(from_child[1]);
        in_ = fdopen(to_child[1], "w");
        out_ = fdopen(from_child[0], "r");
    }
    ~Engine() {
        send("quit");
        fclose(in_);
        fclose(out_);
        waitpid(pid_, nullptr, 0);
    }
    void send(const std::string& line) {
        std::fputs((line + "\n").c_str(), in_);
        std::fflush(in_);
    }
    // Reads lines until one starts with `prefix`; returns it.
    std::string wait_for(const std::string& prefix) {
        char buffer[65536];
        while (std::fgets(buffer, sizeof buffer, out_)) {
            std::string line(buffer);
            while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
            if (line.rfind(prefix, 0) == 0) return line;
        }
        throw std::runtime_error("the engine stopped answering");
    }

private:
    pid_t pid_;
    FILE* in_;
    FILE* out_;
};

}  // namespace pythia::bench
