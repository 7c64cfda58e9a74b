// The UCI loop: reads commands on the calling thread, keeps the game position and the options,
// and runs searches on the search's own threads, so that `isready`, `stop` and `ponderhit`
// are answered while a search runs.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <unordered_map>

#include "book/book_player.h"
#include "engine/core/position.h"
#include "engine/uci/options.h"
#include "search/search.h"
#include "tablebase/probe/tablebases.h"

namespace pythia {

class UciEngine {
public:
    explicit UciEngine(std::ostream& out);
    ~UciEngine();

    // Reads and executes commands until `quit` or end of input.
    void loop(std::istream& in);
    // Executes one command line; returns false when it was `quit`.
    bool execute(const std::string& line);

    const Position& position() const { return position_; }
    OptionTable& options() { return options_; }

    void send(const std::string& line);  // one protocol line, flushed; safe from any thread
    void info_string(const std::string& text) { send("info string " + text); }

private:
    using Handler = std::function<void(std::istream& args)>;

    void declare_options();
    // Loads the tables of TablebasePath (folders separated by ':'), reporting through `report`.
    void load_tablebases(const std::string& paths, const std::function<void(const std::string&)>& report);
    // Before the first search with new tables (at `isready` or `go`): opens every WDL file so
    // that no probe in the tree has to, and reports refused files as `info string`.
    void prepare_tablebases();
    void report_refused_tables();
    void finish_search();  // stops a running search and waits for its bestmove
    std::string format_line(const PvLine& line) const;

    void cmd_uci(std::istream& args);
    void cmd_isready(std::istream& args);
    void cmd_setoption(std::istream& args);
    void cmd_ucinewgame(std::istream& args);
    void cmd_position(std::istream& args);
    void cmd_go(std::istream& args);
    void cmd_perft(std::istream& args);
    void cmd_stop(std::istream& args);
    void cmd_ponderhit(std::istream& args);
    void cmd_debug(std::istream& args);
    void cmd_display(std::istream& args);
    void cmd_eval(std::istream& args);
    void cmd_bench(std::istream& args);

    // Why there is no position to search (empty: position_ is the one the GUI sent). Set by
    // a refused `position` command, so that `go` never answers for another position.
    bool has_position(const std::string& command);

    std::ostream& out_;
    std::mutex out_mutex_;
    Position position_;
    std::string no_position_reason_;
    OptionTable options_;
    BookPlayer book_;            // the opening book step; used on the input thread only
    tb::Tablebases tablebases_;  // changed only between searches
    bool tablebases_prepared_ = false;
    size_t refusals_reported_ = 0;  // of tablebases_.refused_files()
    // What the default tables and book held or lacked, sent at the first isready. Setting
    // TablebasePath or BookFile before then drops that option's lines.
    std::vector<std::string> startup_table_notices_, startup_book_notices_;
    Search search_;
    std::unordered_map<std::string, Handler> commands_;
    std::atomic<bool> show_wdl_{false};
    bool debug_ = false;
};

}  // namespace pythia
