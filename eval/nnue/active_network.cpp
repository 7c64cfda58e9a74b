#include "eval/nnue/active_network.h"

#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "eval/nnue/embedded_net.h"
#include "eval/nnue/network_file.h"

namespace pythia::nnue {

namespace {

struct State {
    std::unique_ptr<Network> net;  // null: the hand-written evaluation
    std::string name;
};

State& state() {
    static State s = [] {
        State init;
        std::string error;
        const auto bytes = embedded_net_bytes();
        if (!bytes.empty()) init.net = parse_network(bytes, error);
        init.name = init.net ? std::string(EMBEDDED_NET_NAME) : "hand-written evaluation";
        return init;
    }();
    return s;
}

}  // namespace

const Network* active_network() { return state().net.get(); }

std::string active_network_name() { return state().name; }

bool use_embedded_network(std::string& error) {
    const auto bytes = embedded_net_bytes();
    State& s = state();
    if (bytes.empty()) {
        s.net.reset();
        s.name = "hand-written evaluation";
        return true;
    }
    s.net = parse_network(bytes, error);
    s.name = s.net ? std::string(EMBEDDED_NET_NAME) : "hand-written evaluation";
    if (!s.net) error = "embedded net refused: " + error;
    return s.net != nullptr;
}

void use_hand_written_evaluation() {
    state().net.reset();
    state().name = "hand-written evaluation";
}

bool load_eval_file(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot open net file '" + path + "'";
        return false;
    }
    // A net file is well under a megabyte; anything longer is refused by its size anyway.
    std::vector<uint8_t> bytes(NET_FILE_BYTES + 1);
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
    bytes.resize(size_t(in.gcount()));
    std::unique_ptr<Network> net = parse_network(bytes, error);
    if (!net) {
        error = "'" + path + "' refused: " + error;
        return false;
    }
    state().net = std::move(net);
    state().name = path;
    return true;
}

}  // namespace pythia::nnue
