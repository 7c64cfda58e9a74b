// Which network the engine evaluates with: the embedded one (if the build has one), or one
// loaded from a file by the EvalFile option or `datagen --evalfile`; none means the
// hand-written evaluation (eval/evaluation.h decides). Changed only while no search runs.
#pragma once

#include <string>

#include "eval/nnue/network.h"

namespace pythia::nnue {

// The values of EvalFile that select the embedded network and the hand-written evaluation.
constexpr const char* EMBEDDED_NET_NAME = "<embedded>";
constexpr const char* HAND_WRITTEN_NAME = "<hand-written>";

const Network* active_network();
// "hand-written evaluation" or the network's origin, for `info string` and logs.
std::string active_network_name();

// Selects the embedded network (none when the build embeds none). True, unless the embedded
// bytes are refused (a broken build), with `error` saying why; the hand-written evaluation
// is then used.
bool use_embedded_network(std::string& error);
// Selects the hand-written evaluation (to compare it with the net, or on a machine where the
// net is too slow).
void use_hand_written_evaluation();
// Loads a net file and makes it active. On a refusal returns false with `error` saying why,
// and leaves the active network as it was.
bool load_eval_file(const std::string& path, std::string& error);

}  // namespace pythia::nnue
