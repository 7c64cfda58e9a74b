#include "eval/nnue/active_network.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "eval/nnue/embedded_net.h"
#include "eval/nnue/network_file.h"

namespace pythia::nnue {

namespace {

constexpr const char* HAND_WRITTEN_LABEL = "hand-written evaluation";

struct State {
    std::unique_ptr<Network> net;  // null: the hand-written evaluation
    std::string name;
};

// The one place that changes the state: the name follows from whether there is a net.
void select_evaluation(State& s, std::unique_ptr<Network> net, const std::string& origin) {
    s.net = std::move(net);
    s.name = s.net ? origin : HAND_WRITTEN_LABEL;
}

// The embedded net; null when the build embeds none, or when its bytes are refused (`error`).
std::unique_ptr<Network> parse_embedded(std::string& error) {
    const auto bytes = embedded_net_bytes();
    return bytes.empty() ? nullptr : parse_network(bytes, error);
}

State& state() {
    static State s = [] {
        State init;
        std::string error;
        select_evaluation(init, parse_embedded(error), EMBEDDED_NET_NAME);
        return init;
    }();
    return s;
}

}  // namespace

const Network* active_network() { return state().net.get(); }

std::string active_network_name() { return state().name; }

bool use_embedded_network(std::string& error) {
    select_evaluation(state(), parse_embedded(error), EMBEDDED_NET_NAME);
    if (state().net || embedded_net_bytes().empty()) return true;
    error = "embedded net refused: " + error;
    return false;
}

void use_hand_written_evaluation() { select_evaluation(state(), nullptr, HAND_WRITTEN_LABEL); }

bool load_eval_file(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot open net file '" + path + "'";
        return false;
    }
    // The file's bytes, but no more than one past the largest net's: longer is refused anyway.
    in.seekg(0, std::ios::end);
    const auto length = std::streamoff(in.tellg());
    in.seekg(0);
    std::vector<uint8_t> bytes(size_t(std::clamp<std::streamoff>(length, 0, std::streamoff(max_net_file_bytes()) + 1)));
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
    bytes.resize(size_t(in.gcount()));
    std::unique_ptr<Network> net = parse_network(bytes, error);
    if (!net) {
        error = "'" + path + "' refused: " + error;
        return false;
    }
    select_evaluation(state(), std::move(net), path);
    return true;
}

}  // namespace pythia::nnue
