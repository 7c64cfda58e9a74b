#include "engine/uci/cli.h"

int main(int argc, char** argv) { return pythia::run_command_line(argc, argv); }
