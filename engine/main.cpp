#include "engine/cli/command.h"

int main(int argc, char** argv) { return pythia::cli::run_command_line(argc, argv); }
