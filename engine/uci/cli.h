// The `pythia` command line: no arguments runs the UCI loop, otherwise a subcommand.
#pragma once

namespace pythia {

int run_command_line(int argc, char** argv);

}  // namespace pythia
