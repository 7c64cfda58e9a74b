// `pythia datagen ...`: self-play training data for the network (eval/nnue/README.md).
#pragma once

#include <string>
#include <vector>

namespace pythia {

// args: what follows "datagen" on the command line. Returns the process exit code.
int datagen_command(const std::vector<std::string>& args);

}  // namespace pythia
