// The command-line tools of `pythia`: one table of commands (commands.cpp) and one small file per
// verb. A verb reports a usage error by throwing UsageError; the dispatcher then prints the
// message and the verb's usage, written once in the table, and exits with status 2.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pythia::cli {

using Args = std::vector<std::string>;

// Exit statuses, the same for every command.
constexpr int EXIT_OK = 0;      // the work was done
constexpr int EXIT_FAILED = 1;  // the work failed (a file missing or bad, a table failing its check)
constexpr int EXIT_USAGE = 2;   // the command line was wrong

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `text` as an integer from lo to hi, or a UsageError naming `what`.
int parse_number(const std::string& what, const std::string& text, int lo, int hi);

// The verbs, each in its own file.
int perft_command(const Args& args);        // perft.cpp
int bench_command(const Args& args);        // bench.cpp
int book_probe_command(const Args& args);   // book_probe.cpp
int book_build_command(const Args& args);   // book_build.cpp
int tb_generate_command(const Args& args);  // tb_generate.cpp
int tb_verify_command(const Args& args);    // tb_verify.cpp
int tb_info_command(const Args& args);      // tb_info.cpp
int tb_probe_command(const Args& args);     // tb_probe.cpp
int tb_serve_command(const Args& args);     // tb_serve.cpp
int datagen_command(const Args& args);      // datagen.cpp

// The name of every command in COMMANDS ("perft", "tb generate", ...), in the order `pythia help`
// lists them; the test of README.md's command list reads them.
std::vector<std::string> command_names();

// `pythia [command ...]`: the UCI loop without arguments, else the command. Returns the exit status.
int run_command_line(int argc, char** argv);

}  // namespace pythia::cli
