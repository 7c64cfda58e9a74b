#include "engine/uci/uci.h"

#include <chrono>
#include <iostream>
#include <sstream>

#include "engine/core/notation.h"
#include "engine/core/perft.h"

namespace pythia {

UciEngine::UciEngine(std::ostream& out) : out_(out) {
    commands_ = {
        {"uci", [this](std::istream& a) { cmd_uci(a); }},
        {"isready", [this](std::istream& a) { cmd_isready(a); }},
        {"ucinewgame", [this](std::istream& a) { cmd_ucinewgame(a); }},
        {"position", [this](std::istream& a) { cmd_position(a); }},
        {"go", [this](std::istream& a) { cmd_go(a); }},
        {"d", [this](std::istream& a) { cmd_display(a); }},
    };
}

void UciEngine::send(const std::string& line) { out_ << line << std::endl; }

void UciEngine::loop(std::istream& in) {
    std::string line;
    while (std::getline(in, line))
        if (!execute(line)) return;
}

bool UciEngine::execute(const std::string& line) {
    std::istringstream args(line);
    std::string name;
    if (!(args >> name)) return true;  // blank line
    if (name == "quit") return false;
    auto it = commands_.find(name);
    if (it == commands_.end()) info_string("unknown command: " + line);
    else it->second(args);
    return true;
}

void UciEngine::cmd_uci(std::istream&) {
    send("id name Pythia");
    send("id author the Pythia developers");
    send("uciok");
}

void UciEngine::cmd_isready(std::istream&) { send("readyok"); }

void UciEngine::cmd_ucinewgame(std::istream&) { position_ = Position(); }

// position startpos|fen <FEN> [moves m1 m2 ...]. A bad FEN keeps the old position; an illegal
// move keeps the position reached by the legal moves before it.
void UciEngine::cmd_position(std::istream& args) {
    std::string token, fen;
    args >> token;
    if (token == "startpos") {
        fen = std::string(START_FEN);
        args >> token;
    } else if (token == "fen") {
        while (args >> token && token != "moves") fen += token + " ";
    } else {
        info_string("position needs 'startpos' or 'fen', got '" + token + "'");
        return;
    }
    Position pos;
    std::string error;
    if (!pos.set_fen(fen, &error)) {
        info_string("illegal FEN (" + error + "), position unchanged");
        return;
    }
    if (token == "moves") {
        while (args >> token) {
            Move m = parse_uci_move(pos, token);
            if (!m) {
                info_string("illegal move '" + token + "' in position " + pos.fen() + ", moves after it ignored");
                break;
            }
            pos.do_move(m);
        }
    }
    position_ = pos;
}

void UciEngine::cmd_go(std::istream& args) {
    std::string token;
    if (args >> token && token == "perft") {
        int depth = 0;
        if (!(args >> depth) || depth < 0 || depth > 20) {
            info_string("go perft needs a depth from 0 to 20");
            return;
        }
        auto start = std::chrono::steady_clock::now();
        uint64_t total = 0;
        for (auto [move, nodes] : perft_divide(position_, depth)) {
            send(move_to_uci(move) + ": " + std::to_string(nodes));
            total += nodes;
        }
        if (depth == 0) total = 1;
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
        send("");
        send("Nodes searched: " + std::to_string(total));
        info_string("perft " + std::to_string(depth) + " took " + std::to_string(ms) + " ms");
        return;
    }
    info_string("search is not available yet");
}

void UciEngine::cmd_display(std::istream&) { out_ << position_.pretty() << std::flush; }

}  // namespace pythia
