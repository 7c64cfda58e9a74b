// `pythia tb generate|verify|recompress|rewrite|info|probe ...`: the tablebases on the command line.
#pragma once

#include <string>
#include <vector>

namespace pythia {

// args: what follows "tb" on the command line. Returns the process exit code.
int tb_command(const std::vector<std::string>& args);

// The verbs, each in its own file (tb_generate_command.cpp, tb_probe_command.cpp, ...).
int tb_generate_command(const std::vector<std::string>& args);
int tb_verify_command(const std::vector<std::string>& args);
int tb_recompress_command(const std::vector<std::string>& args);
int tb_rewrite_command(const std::vector<std::string>& args);
int tb_info_command(const std::vector<std::string>& args);
int tb_probe_command(const std::vector<std::string>& args);

}  // namespace pythia
