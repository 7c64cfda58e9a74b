#include "engine/uci/uci.h"

#include <charconv>
#include <chrono>
#include <iostream>
#include <sstream>

#include "engine/core/data_paths.h"
#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "engine/core/perft.h"
#include "engine/core/version.h"
#include "engine/uci/bench.h"
#include "engine/uci/decision.h"
#include "tablebase/probe/syzygy.h"
#ifdef PYTHIA_TUNE
#include "search/params.h"
#include "search/worker.h"
#endif
#include "eval/evaluate.h"
#include "eval/nnue/active_network.h"
#include "eval/nnue/evaluate_nnue.h"

#include <spdlog/spdlog.h>

namespace pythia {

namespace {

// Parses a whole token as an integer.
template <typename T>
bool parse_number(const std::string& text, T& out) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && p == text.data() + text.size();
}

// Mates in moves; tablebase wins and losses without a known mate as centipawns beyond every
// evaluation (20000 plus the plies to spare, so that a nearer win shows higher).
std::string score_text(Value v) {
    if (v >= VALUE_MATE_IN_MAX_PLY) return "mate " + std::to_string((VALUE_MATE - v + 1) / 2);
    if (v <= VALUE_MATED_IN_MAX_PLY) return "mate " + std::to_string(-(VALUE_MATE + v) / 2);
    if (v >= VALUE_TB_WIN_IN_MAX_PLY) return "cp " + std::to_string(VALUE_EVAL_MAX + v - VALUE_TB_WIN_IN_MAX_PLY);
    if (v <= VALUE_TB_LOSS_IN_MAX_PLY) return "cp " + std::to_string(-VALUE_EVAL_MAX + v - VALUE_TB_LOSS_IN_MAX_PLY);
    return "cp " + std::to_string(v);
}

}  // namespace

UciEngine::UciEngine(std::ostream& out) : out_(out) {
    commands_ = {
        {"uci", [this](std::istream& a) { cmd_uci(a); }},
        {"isready", [this](std::istream& a) { cmd_isready(a); }},
        {"setoption", [this](std::istream& a) { cmd_setoption(a); }},
        {"ucinewgame", [this](std::istream& a) { cmd_ucinewgame(a); }},
        {"position", [this](std::istream& a) { cmd_position(a); }},
        {"go", [this](std::istream& a) { cmd_go(a); }},
        {"stop", [this](std::istream& a) { cmd_stop(a); }},
        {"ponderhit", [this](std::istream& a) { cmd_ponderhit(a); }},
        {"debug", [this](std::istream& a) { cmd_debug(a); }},
        {"d", [this](std::istream& a) { cmd_display(a); }},
        {"eval", [this](std::istream& a) { cmd_eval(a); }},
        {"bench", [this](std::istream& a) { cmd_bench(a); }},
    };
    declare_options();
    // A large DTM/DTZ file is checksummed by a background thread on its first root probe,
    // instead of stalling the move (up to a second for a 5-piece file not in the page cache).
    tablebases_.open_distance_files_in_background(true);
    // What the defaults found (engine/core/data_paths.h), for the GUI at the first `isready`:
    // a GUI shows `info string` lines, not stderr, and it is not listening yet. On stderr only
    // at SPDLOG_LEVEL=debug: a quiet start, as Stockfish's (python-chess logs each stderr line
    // of an engine as a warning).
    auto keep_in = [](std::vector<std::string>& notices) {
        return [&notices](const std::string& line) {
            spdlog::debug("{}", line);
            notices.push_back(line);
        };
    };
    load_tablebases(options_.find("TablebasePath")->value, keep_in(startup_table_notices_));
    const std::string book_file = options_.find(std::string(BOOK_FILE_OPTION))->value;
    if (options_.check(std::string(OWN_BOOK_OPTION)) && (book_file.empty() || book_file == "<empty>")) {
        std::string looked;
        for (const std::string& c : default_book_candidates()) looked += (looked.empty() ? "" : ", ") + c;
        keep_in(startup_book_notices_)("book: none found (looked for " + looked + "); set BookFile to use one");
    }
}

UciEngine::~UciEngine() { finish_search(); }

// Every UCI option, in the order the GUI lists them. The book and tablebase options are added
// here, one line each, with their callbacks.
void UciEngine::declare_options() {
    using Option = OptionTable::Option;
    options_.add_spin("Hash", 16, 1, 65536, [this](const Option& o) {
        if (!search_.set_hash_mb(size_t(o.spin())))
            info_string("not enough memory for Hash " + o.value + " MB, keeping " +
                        std::to_string(search_.tt().megabytes()) + " MB");
    });
    options_.add_spin("Threads", 1, 1, 256, [this](const Option& o) { search_.set_threads(int(o.spin())); });
    options_.add_button("Clear Hash", [this](const Option&) { search_.tt().clear(); });
    options_.add_check("Ponder", false);
    options_.add_spin("MultiPV", 1, 1, 256);
    options_.add_spin("Move Overhead", 50, 0, 5000);
    options_.add_check("UCI_ShowWDL", false, [this](const Option& o) { show_wdl_ = o.check(); });
    // Fischer Random: the `position` commands after it read X-FEN and Shredder-FEN castling
    // and castling moves as king takes rook (e1h1), and moves are written so. The book is
    // not used (decision.cpp); the tables hold no castling rights, so they need nothing.
    options_.add_check("UCI_Chess960", false);
    // Analysis (GUIs set it): the book does not narrow the search (decision.cpp).
    options_.add_check("UCI_AnalyseMode", false);
    // A weaker opponent (search/strength.h): fewer plies and nodes, a noisy choice among the
    // best root moves, on Stockfish's Elo scale (search/strength.h: how it was calibrated).
    options_.add_check("UCI_LimitStrength", false);
    options_.add_spin("UCI_Elo", STRENGTH_ELO_MIN, STRENGTH_ELO_MIN, STRENGTH_ELO_MAX);

    // Opening book (book/README.md).
    auto report = [this](const std::string& text) {
        if (!text.empty()) info_string(text);
    };
    options_.add_check(std::string(OWN_BOOK_OPTION), OWN_BOOK_DEFAULT, [this, report](const Option& o) {
        startup_book_notices_.clear();
        report(book_.set_own_book(o.check()));
    });
    const std::string book_file = default_book_file();
    options_.add_string(std::string(BOOK_FILE_OPTION), book_file.empty() ? "<empty>" : book_file,
                        [this, report](const Option& o) {
                            startup_book_notices_.clear();
                            report(book_.set_file(o.value));
                        });
    options_.add_combo(std::string(BOOK_VARIETY_OPTION), "Weighted", {"Weighted", "Best"}, [this](const Option& o) {
        if (auto v = parse_book_variety(o.value)) book_.set_variety(*v);
    });
    options_.add_spin(std::string(BOOK_DEPTH_OPTION), BOOK_DEPTH_DEFAULT, BOOK_DEPTH_MIN, BOOK_DEPTH_MAX,
                      [this](const Option& o) { book_.set_depth(int(o.spin())); });

    // Tablebases (tablebase/README.md): our own files, at the root and inside the search.
    options_.add_string("TablebasePath", default_tablebase_dir().string(), [this](const Option& o) {
        startup_table_notices_.clear();  // superseded by what this setting reports
        load_tablebases(o.value, [this](const std::string& line) { info_string(line); });
    });
    options_.add_spin("TBProbeDepth", 1, 1, 100);
    // Every table present by default (six pieces where 6-piece tables are in the folder).
    options_.add_spin("TBProbeLimit", tb::MAX_PIECES, 0, tb::MAX_PIECES);
    options_.add_check("TB50MoveRule", true);
    // Syzygy files (tablebase/probe/syzygy.h), read by Debian's libfathom, for the positions
    // our own tables do not cover; the names and ranges are those GUIs know from Stockfish.
    options_.add_string("SyzygyPath", "", [this](const Option& o) {
        for (const std::string& line : tb::SyzygyTables::instance().set_paths(o.value)) info_string(line);
    });
    options_.add_spin("SyzygyProbeDepth", 1, 1, 100);
    options_.add_spin("SyzygyProbeLimit", 7, 0, 7);
    options_.add_check("Syzygy50MoveRule", true);
    // A tablebase server (`pythia tb serve`, or the lichess API's http://tablebase.lichess.ovh)
    // asked at the root, within TablebaseURLTimeout ms, for positions the local tables do not
    // cover (engine/server/README.md).
    options_.add_string("TablebaseURL", "");
    options_.add_spin("TablebaseURLTimeout", 50, 1, 5000);
    // WDL files copied into memory in huge pages: probes 12-13 % faster, for the files' size in
    // memory (bench/README.md). Off for many engines on one small machine. The tables are
    // opened again either way.
    options_.add_check("TBWDLInMemory", true, [this](const Option& o) {
        tablebases_.copy_wdl_files_to_memory(o.check());
        load_tablebases(options_.find("TablebasePath")->value, [this](const std::string& line) { info_string(line); });
    });
    // The network (eval/nnue/README.md): <embedded> is the build's own (the hand-written
    // evaluation when the build embeds none), <hand-written> the hand-written evaluation; a
    // file that is refused leaves the current one.
    options_.add_string("EvalFile", nnue::EMBEDDED_NET_NAME, [this](const Option& o) {
        std::string error;
        const bool embedded = o.value.empty() || o.value == nnue::EMBEDDED_NET_NAME;
        bool ok = true;
        if (o.value == nnue::HAND_WRITTEN_NAME)
            nnue::use_hand_written_evaluation();
        else
            ok = embedded ? nnue::use_embedded_network(error) : nnue::load_eval_file(o.value, error);
        if (ok) {
            search_.clear();  // the table's stored evaluations are the old evaluation's
            info_string("evaluation: " + nnue::active_network_name());
        } else {
            info_string("EvalFile " + error + "; evaluating with " + nnue::active_network_name());
        }
    });
#ifdef PYTHIA_TUNE
    // The tuning build (search/tunable.h): each tunable search constant, by its name in
    // search/params.h, for scripts/spsa.
    for (const search_params::Tunable& t : search_params::tunables())
        options_.add_spin(t.name, *t.value, t.min, t.max, [value = t.value](const Option& o) {
            *value = int(o.spin());
            refresh_tuned_tables();
        });
#endif
}

void UciEngine::load_tablebases(const std::string& paths, const std::function<void(const std::string&)>& report) {
    // "<empty>" is how GUIs show an empty string option.
    const std::string folders = paths == "<empty>" ? "" : paths;
    for (const std::string& line : tablebases_.set_paths(folders)) report(line);
    if (folders.empty()) report("tablebases: none (TablebasePath is empty)");
    tablebases_prepared_ = false;
    refusals_reported_ = 0;
}

void UciEngine::prepare_tablebases() {
    if (!tablebases_prepared_) {
        tablebases_.open_wdl_files();
        tablebases_prepared_ = true;
        if (const uint64_t bytes = tablebases_.wdl_memory_bytes())
            info_string(
                fmt::format("tablebases: WDL files in memory, {:.1f} MiB (TBWDLInMemory)", double(bytes) / (1 << 20)));
    }
    report_refused_tables();
}

void UciEngine::report_refused_tables() {
    const std::vector<std::string> refused = tablebases_.refused_files();
    for (; refusals_reported_ < refused.size(); ++refusals_reported_)
        info_string("tablebase file refused, playing on without it: " + refused[refusals_reported_]);
}

void UciEngine::send(const std::string& line) {
    std::lock_guard lock(out_mutex_);
    out_ << line << '\n' << std::flush;
}

void UciEngine::loop(std::istream& in) {
    // std::cin is tied to std::cout: every read would flush cout from this thread while a
    // search thread writes to it. send() flushes each line itself, so untie.
    in.tie(nullptr);
    std::string line;
    while (std::getline(in, line))
        if (!execute(line)) return;
    finish_search();  // end of input: like quit
}

bool UciEngine::execute(const std::string& raw) {
    std::string line = raw;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // GUIs on Windows line ends
    std::istringstream args(line);
    std::string name;
    if (!(args >> name)) return true;  // blank line
    if (name == "quit") {
        finish_search();
        return false;
    }
    auto it = commands_.find(name);
    if (it == commands_.end())
        info_string("unknown command: " + line);
    else
        it->second(args);
    return true;
}

void UciEngine::finish_search() {
    search_.stop();
    search_.wait();
}

void UciEngine::cmd_uci(std::istream&) {
    send("id name " + engine_name());
    send("id author the Pythia developers");
    for (const std::string& d : options_.declarations()) send(d);
    send("uciok");
}

void UciEngine::cmd_isready(std::istream&) {
    for (auto* notices : {&startup_table_notices_, &startup_book_notices_}) {
        for (const std::string& line : *notices) info_string(line);
        notices->clear();
    }
    // During a search the tables are already open (and must not change under it).
    if (search_.searching())
        report_refused_tables();
    else
        prepare_tablebases();
    send("readyok");
}

// setoption name <name with spaces> [value <value with spaces>]
void UciEngine::cmd_setoption(std::istream& args) {
    std::string token, name, value;
    args >> token;
    if (token != "name") {
        info_string("setoption needs 'name <option> [value <value>]'");
        return;
    }
    while (args >> token && token != "value") name += (name.empty() ? "" : " ") + token;
    while (args >> token) value += (value.empty() ? "" : " ") + token;
    finish_search();  // options are never changed under a running search
    const std::string error = options_.set(name, value);
    if (!error.empty()) info_string(error);
}

void UciEngine::cmd_ucinewgame(std::istream&) {
    finish_search();
    search_.clear();
    position_ = Position();
    no_position_reason_.clear();
}

// position startpos|fen <FEN> [moves m1 m2 ...]. A refused command (a bad FEN, an illegal
// move) leaves the engine without a position: `go` then answers `bestmove 0000` with the
// reason, never a move for a position the GUI did not send, until a valid `position` comes.
// The board shown by `d` is the last FEN read, up to the illegal move.
void UciEngine::cmd_position(std::istream& args) {
    std::string token, fen;
    args >> token;
    if (token == "startpos") {
        fen = std::string(START_FEN);
        if (args >> token && token != "moves") info_string("position: unexpected '" + token + "' ignored");
    } else if (token == "fen") {
        while (args >> token && token != "moves") fen += token + " ";
    } else {
        no_position_reason_ = "position needs 'startpos' or 'fen', got '" + token + "'";
        info_string(no_position_reason_ + "; no position until a valid one");
        return;
    }
    const bool chess960 = options_.check("UCI_Chess960");
    Position pos;
    std::string error;
    if (!pos.set_fen(fen, &error, chess960)) {
        no_position_reason_ = "illegal FEN (" + error + ")";
        info_string(no_position_reason_ + "; no position until a valid one");
        return;
    }
    no_position_reason_.clear();
    if (token == "moves") {
        while (args >> token) {
            Move m = parse_uci_move(pos, token);
            if (!m) {
                no_position_reason_ = "illegal move '" + token + "' in position " + pos.fen();
                if (!chess960 && token.size() == 4) {
                    const Square from = parse_square(token.substr(0, 2)), to = parse_square(token.substr(2, 2));
                    if (from == pos.king_square(pos.side_to_move()) && to != SQ_NONE &&
                        pos.piece_on(to) == make_piece(pos.side_to_move(), ROOK))
                        no_position_reason_ += " (castling as king takes rook is Chess960: set UCI_Chess960)";
                }
                info_string(no_position_reason_ + "; no position until a valid one");
                break;
            }
            pos.do_move(m);
        }
    }
    position_ = pos;
}

bool UciEngine::has_position(const std::string& command) {
    if (no_position_reason_.empty()) return true;
    info_string(command + ": no position (" + no_position_reason_ + ")");
    return false;
}

void UciEngine::cmd_go(std::istream& args) {
    const auto go_received = std::chrono::steady_clock::now();
    std::vector<std::string> tokens;
    for (std::string t; args >> t;) tokens.push_back(t);
    if (!tokens.empty() && tokens[0] == "perft") {
        std::istringstream rest(tokens.size() > 1 ? tokens[1] : "");
        cmd_perft(rest);
        return;
    }
    finish_search();  // a `go` during a search ends the old one first (its bestmove is sent)
    if (!has_position("go")) {
        send("bestmove 0000");
        return;
    }

    SearchLimits limits;
    limits.start_time = go_received;
    auto number = [&](size_t& i, auto& out) {
        if (i + 1 < tokens.size() && parse_number(tokens[i + 1], out)) {
            ++i;
            return true;
        }
        info_string("go: '" + tokens[i] + "' needs a number, ignored");
        return false;
    };
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string& t = tokens[i];
        int64_t n = 0;
        if (t == "wtime" || t == "btime") {
            if (number(i, n)) limits.time[t[0] == 'w' ? WHITE : BLACK] = std::max<int64_t>(n, 0);
        } else if (t == "winc" || t == "binc") {
            if (number(i, n)) limits.increment[t[0] == 'w' ? WHITE : BLACK] = std::max<int64_t>(n, 0);
        } else if (t == "movestogo") {
            if (number(i, n)) limits.moves_to_go = int(std::clamp<int64_t>(n, 0, 1000));
        } else if (t == "depth") {
            if (number(i, n)) limits.depth = int(std::clamp<int64_t>(n, 1, MAX_PLY - 1));
        } else if (t == "nodes") {
            if (number(i, n)) limits.nodes = uint64_t(std::max<int64_t>(n, 1));
        } else if (t == "mate") {
            if (number(i, n)) limits.mate = int(std::clamp<int64_t>(n, 1, MAX_PLY / 2));
        } else if (t == "movetime") {
            if (number(i, n)) limits.move_time = std::max<int64_t>(n, 1);
        } else if (t == "infinite") {
            limits.infinite = true;
        } else if (t == "ponder") {
            limits.ponder = true;
        } else if (t == "searchmoves") {
            while (i + 1 < tokens.size()) {
                Move m = parse_uci_move(position_, tokens[i + 1]);
                if (!m) {
                    // A keyword ends the list; anything else is a move that is not legal here.
                    static const char* KEYWORDS[] = {"wtime", "btime", "winc",     "binc",     "movestogo", "depth",
                                                     "nodes", "mate",  "movetime", "infinite", "ponder"};
                    if (std::find(std::begin(KEYWORDS), std::end(KEYWORDS), tokens[i + 1]) != std::end(KEYWORDS)) break;
                    info_string("searchmoves: '" + tokens[i + 1] + "' is not a legal move here, ignored");
                } else {
                    limits.search_moves.push_back(m);
                }
                ++i;
            }
        } else {
            info_string("go: unknown parameter '" + t + "' ignored");
        }
    }
    if (debug_)
        info_string("go: " + std::to_string(limits.search_moves.size()) + " searchmoves, depth " +
                    std::to_string(limits.depth) + ", nodes " + std::to_string(limits.nodes));

    prepare_tablebases();
    // TBProbeLimit, as far as the loaded tables reach: for the root lookup and the tree alike.
    const int tb_piece_limit = std::min<int>(int(options_.spin("TBProbeLimit")), tablebases_.max_pieces());
    const tb::SyzygyTables& syzygy = tb::SyzygyTables::instance();
    const int syzygy_piece_limit = std::min<int>(int(options_.spin("SyzygyProbeLimit")), syzygy.max_pieces());
    const Decision decided = decide_move(
        {position_, options_, [this](const std::string& s) { info_string(s); }, &book_, &tablebases_, tb_piece_limit,
         syzygy_piece_limit > 0 ? &syzygy : nullptr, syzygy_piece_limit, options_.find("TablebaseURL")->value,
         std::chrono::milliseconds(options_.spin("TablebaseURLTimeout"))},
        limits);
    report_refused_tables();  // the root probe may have opened (and refused) a DTM/DTZ file
    SearchOptions options;
    options.multipv = int(options_.spin("MultiPV"));
    options.strength = {options_.check("UCI_LimitStrength"), int(options_.spin("UCI_Elo"))};
    SearchLimits search_limits = decided.limits;
    options.strength.restrict(search_limits);
    options.move_overhead_ms = options_.spin("Move Overhead");
    options.verdict = decided.verdict;
    options.tb.tables = &tablebases_;
    options.tb.piece_limit = tb_piece_limit;
    options.tb.min_depth = int(options_.spin("TBProbeDepth"));
    options.tb.fifty_move_rule = options_.check("TB50MoveRule");
    if (syzygy_piece_limit > 0) options.tb.syzygy = &syzygy;
    options.tb.syzygy_piece_limit = syzygy_piece_limit;
    options.tb.syzygy_min_depth = int(options_.spin("SyzygyProbeDepth"));
    options.tb.syzygy_fifty_move_rule = options_.check("Syzygy50MoveRule");
    SearchCallbacks callbacks;
    callbacks.on_lines = [this](const std::vector<PvLine>& lines) {
        for (const PvLine& l : lines) send(format_line(l));
    };
    callbacks.on_result = [this](const SearchResult& r) {
        std::string line = "bestmove " + move_to_uci(r.best);
        if (r.ponder) line += " ponder " + move_to_uci(r.ponder);
        send(line);
    };
    search_.start(position_, search_limits, options, std::move(callbacks));
    if (debug_ && search_.time().time_limited())
        info_string("time budget: optimum " + std::to_string(search_.time().optimum_ms()) + " ms, maximum " +
                    std::to_string(search_.time().maximum_ms()) + " ms");
}

std::string UciEngine::format_line(const PvLine& l) const {
    std::string s = "info depth " + std::to_string(l.depth) + " seldepth " + std::to_string(l.sel_depth) + " multipv " +
                    std::to_string(l.multipv) + " score " + score_text(l.score);
    if (l.bound == BOUND_LOWER)
        s += " lowerbound";
    else if (l.bound == BOUND_UPPER)
        s += " upperbound";
    if (show_wdl_)
        s += " wdl " + std::to_string(l.wdl[0]) + " " + std::to_string(l.wdl[1]) + " " + std::to_string(l.wdl[2]);
    s += " nodes " + std::to_string(l.nodes) + " nps " + std::to_string(l.nps) + " hashfull " +
         std::to_string(l.hashfull) + " tbhits " + std::to_string(l.tbhits) + " time " + std::to_string(l.time_ms);
    if (!l.pv.empty()) {
        s += " pv";
        for (Move m : l.pv) s.append(" ").append(move_to_uci(m));
    }
    return s;
}

void UciEngine::cmd_perft(std::istream& args) {
    int depth = 0;
    std::string token;
    args >> token;
    if (!parse_number(token, depth) || depth < 0 || depth > 20) {
        info_string("go perft needs a depth from 0 to 20");
        return;
    }
    finish_search();
    if (!has_position("go perft")) return;
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
}

void UciEngine::cmd_stop(std::istream&) { search_.stop(); }

void UciEngine::cmd_ponderhit(std::istream&) { search_.ponderhit(); }

void UciEngine::cmd_debug(std::istream& args) {
    std::string token;
    args >> token;
    if (token == "on")
        debug_ = true;
    else if (token == "off")
        debug_ = false;
    else
        info_string("debug takes 'on' or 'off'");
}

void UciEngine::cmd_display(std::istream&) {
    if (!no_position_reason_.empty())
        info_string("no position (" + no_position_reason_ + "); the board below is the last one read");
    std::lock_guard lock(out_mutex_);
    out_ << position_.pretty() << std::flush;
}

void UciEngine::cmd_eval(std::istream&) {
    if (!has_position("eval")) return;
    PawnTable pawns(1 << 4);
    info_string("static evaluation " + std::to_string(evaluate(position_, pawns)) + " (side to move)");
    if (const nnue::Network* net = nnue::active_network())
        info_string("network evaluation " + std::to_string(nnue::evaluate_from_scratch(*net, position_)) +
                    " (side to move, " + nnue::active_network_name() + ")");
}

// bench [depth]
void UciEngine::cmd_bench(std::istream& args) {
    int depth = BENCH_DEFAULT_DEPTH;
    std::string token;
    if (args >> token && (!parse_number(token, depth) || depth < 1 || depth > 64)) {
        info_string("bench takes a depth from 1 to 64");
        return;
    }
    finish_search();
    std::ostringstream text;
    run_bench(depth, text);
    std::istringstream lines(text.str());
    for (std::string l; std::getline(lines, l);) send(l);
}

}  // namespace pythia
