// `pythia book probe|build ...`: the opening book on the command line.
#pragma once

#include <string>
#include <vector>

namespace pythia {

// args: what follows "book" on the command line. Returns the process exit code.
int book_command(const std::vector<std::string>& args);

}  // namespace pythia
