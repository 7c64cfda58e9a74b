// The UCI loop: reads commands, keeps the game position, answers on the output stream.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <unordered_map>

#include "engine/core/position.h"

namespace pythia {

class UciEngine {
public:
    explicit UciEngine(std::ostream& out);

    // Reads and executes commands until `quit` or end of input.
    void loop(std::istream& in);
    // Executes one command line; returns false when it was `quit`.
    bool execute(const std::string& line);

    const Position& position() const { return position_; }

private:
    using Handler = std::function<void(std::istream& args)>;

    void send(const std::string& line);  // one protocol line, flushed
    void info_string(const std::string& text) { send("info string " + text); }

    void cmd_uci(std::istream& args);
    void cmd_isready(std::istream& args);
    void cmd_ucinewgame(std::istream& args);
    void cmd_position(std::istream& args);
    void cmd_go(std::istream& args);
    void cmd_display(std::istream& args);

    std::ostream& out_;
    Position position_;
    std::unordered_map<std::string, Handler> commands_;
};

}  // namespace pythia
