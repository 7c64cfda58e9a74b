// `pythia tb probe` and `pythia tb info` as a user and a script run them.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "engine/core/notation.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/generator.h"
#include "tablebase/generate/spill_file.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_writer.h"
#include "tb_test_tables.h"

using namespace pythia;
namespace fs = std::filesystem;

namespace {

struct Outcome {
    int status;
    std::string out, err;
};

// Runs `program` with `args`, feeding `input` to its stdin; stdout and stderr apart.
Outcome run_program(const std::string& program, const std::string& args, const std::string& input = "") {
    const fs::path dir = test::scratch_dir("cli");
    { std::ofstream(dir / "in") << input; }
    const std::string command = program + " " + args + " < " + (dir / "in").string() + " > " + (dir / "out").string() +
                                " 2> " + (dir / "err").string();
    const int status = std::system(command.c_str());
    auto slurp = [](const fs::path& p) {
        std::stringstream s;
        s << std::ifstream(p).rdbuf();
        return s.str();
    };
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

Outcome run_pythia(const std::string& args, const std::string& input = "") {
    return run_program(PYTHIA_BINARY, args, input);
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    for (std::string line; std::getline(s, line);) out.push_back(line);
    return out;
}

std::string dir_arg() { return "--dir " + test::test_tables_dir().string(); }

// A folder of bad tables beside good ones: a truncated KRvK WDL file, a folder named like the
// KQvKR WDL file (and no KQvKR DTM/DTZ file), KBvK's WDL file under KPvK's name; KQvK intact.
fs::path bad_tables_dir() {
    const fs::path dir = test::scratch_dir("bad-tables");
    for (const char* f : {"KQvK.pytw", "KQvK.pytd", "KRvK.pytd", "KPvK.pytd"}) test::copy_table_file(f, dir);
    std::ifstream in(test::test_tables_dir() / "KRvK.pytw", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir / "KRvK.pytw", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    fs::create_directory(dir / "KQvKR.pytw");
    test::copy_table_file("KBvK.pytw", dir, "KPvK.pytw");
    return dir;
}

}  // namespace

TEST_CASE("tb probe prints WDL, DTZ50, DTM and every move", "[tb][cli]") {
    // KRvK: White to move mates in 16 moves (31 plies); 1.Ra3 is not a win (Kxa3? no: b2 attacks a3).
    Outcome o = run_pythia("tb probe " + dir_arg() + " 8/8/8/8/8/8/1k6/R6K w - - 0 1");
    INFO(o.out << o.err);
    CHECK(o.status == 0);
    CHECK_THAT(o.out, Catch::Contains("White to move: win, DTZ50"));
    CHECK_THAT(o.out, Catch::Contains("Winning moves:"));
    CHECK_THAT(o.out, Catch::Contains("Drawing moves:"));
    CHECK_THAT(o.out, Catch::Contains("Ra2+"));  // the rook hangs: a draw

    // Mate in one: the move shows as mate in 1 (1 ply); the position as mate in 1.
    o = run_pythia("tb probe " + dir_arg() + " 6k1/8/6K1/8/8/8/8/R7 w - - 0 1");
    CHECK_THAT(o.out, Catch::Contains("mate in 1 (1 ply)"));
    CHECK_THAT(o.out, Catch::Contains("Ra8#"));
}

TEST_CASE("tb probe --json answers one line per FEN read from stdin", "[tb][cli]") {
    const std::string input =
        "6k1/8/6K1/8/8/8/8/R7 w - - 0 1\n"  // mate in one
        "R5k1/8/6K1/8/8/8/8/8 b - - 1 1\n"  // checkmated
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1\n"   // bare kings
        "\n"
        "not a fen\n"
        "r3k3/8/8/8/8/8/8/4K3 b q - 0 1\n";  // castling rights
    Outcome o = run_pythia("tb probe --json " + dir_arg(), input);
    INFO(o.out << o.err);
    CHECK(o.status == 1);  // two lines could not be answered
    const auto out = lines(o.out);
    REQUIRE(out.size() == 5);
    // The lichess tablebase API's fields (engine/server/README.md), the position's FEN first.
    CHECK_THAT(out[0], Catch::StartsWith("{\"fen\":\"6k1/8/6K1/8/8/8/8/R7 w - - 0 1\",\"dtz\":1,\"precise_dtz\":1,"
                                         "\"dtc\":null,\"dtm\":1,\"dtw\":null,\"checkmate\":false,"));
    CHECK_THAT(out[0], Catch::Contains("\"category\":\"win\",\"wdl\":2,\"moves\":[{\"uci\":\"a1a8\",\"san\":\"Ra8#\","
                                       "\"dtz\":-1,\"precise_dtz\":-1,\"dtc\":null,\"dtm\":0,\"dtw\":null,"
                                       "\"zeroing\":false,\"conversion\":false,\"checkmate\":true,"));
    CHECK(out[1] ==
          "{\"fen\":\"R5k1/8/6K1/8/8/8/8/8 b - - 1 1\",\"dtz\":-1,\"precise_dtz\":-1,\"dtc\":null,"
          "\"dtm\":0,\"dtw\":null,\"checkmate\":true,\"stalemate\":false,\"variant_win\":false,"
          "\"variant_loss\":false,\"insufficient_material\":false,\"category\":\"loss\",\"wdl\":-2,"
          "\"moves\":[]}");
    CHECK_THAT(out[2], Catch::StartsWith("{\"fen\":\"8/8/8/4k3/8/8/8/4K3 w - - 0 1\",\"dtz\":0,"));
    CHECK_THAT(out[2], Catch::Contains("\"insufficient_material\":true,\"category\":\"draw\",\"wdl\":0,"));
    CHECK_THAT(out[3], Catch::StartsWith("{\"fen\":\"not a fen\",\"error\":\"illegal FEN"));
    // Castling rights: no answer from the tables, as lichess gives it.
    CHECK_THAT(out[4], Catch::Contains("\"dtz\":null,") && Catch::Contains("\"category\":\"unknown\",\"wdl\":null,"));
}

TEST_CASE("tb probe --json counts the halfmove clock", "[tb][cli]") {
    // KRvK, a win in DTZ50 d plies: a clock of 100 - d keeps it, one more makes it cursed.
    Outcome o = run_pythia("tb probe --json " + dir_arg() + " 8/8/8/8/8/8/1k6/R6K w - - 0 1");
    const size_t at = o.out.find("\"dtz\":");
    REQUIRE(at != std::string::npos);
    const int d = std::stoi(o.out.substr(at + 6));
    o = run_pythia("tb probe --json " + dir_arg() + " 8/8/8/8/8/8/1k6/R6K w - - " + std::to_string(100 - d) + " 70");
    CHECK_THAT(o.out, Catch::Contains("\"category\":\"win\",\"wdl\":2,\"moves\""));
    o = run_pythia("tb probe --json " + dir_arg() + " 8/8/8/8/8/8/1k6/R6K w - - " + std::to_string(101 - d) + " 70");
    CHECK_THAT(o.out, Catch::Contains("\"category\":\"cursed-win\",\"wdl\":1,\"moves\""));
}

TEST_CASE("tb probe names a bad file and its problem and fails", "[tb][cli][badfiles]") {
    const fs::path dir = test::scratch_dir("cli-bad");
    test::copy_table_file("KRvK.pytd", dir);
    // A KQvK WDL file under KRvK's name.
    test::copy_table_file("KQvK.pytw", dir, "KRvK.pytw");
    Outcome o = run_pythia("tb probe --dir " + dir.string() + " 8/8/8/8/8/8/1k6/R6K w - - 0 1");
    INFO(o.out << o.err);
    CHECK(o.status != 0);
    CHECK_THAT(o.err, Catch::Contains((dir / "KRvK.pytw").string() + ": holds table KQvK, not KRvK"));

    // A missing folder is reported; the probe then finds no table.
    o = run_pythia("tb probe --dir /nonexistent/pythia-tb 8/8/8/8/8/8/1k6/R6K w - - 0 1");
    CHECK(o.status != 0);
    CHECK_THAT(o.err, Catch::Contains("tablebase folder '/nonexistent/pythia-tb' does not exist"));
    CHECK_THAT(o.err, Catch::Contains("the tables hold up to 0"));
}

TEST_CASE("tb probe with a folder of bad files names each once and answers from the good ones", "[tb][cli][badfiles]") {
    const fs::path dir = bad_tables_dir();
    const std::string fens =
        "8/8/8/8/8/8/1k6/R6K w - - 0 1\n"    // KRvK: truncated WDL file
        "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1\n"  // KQvKR: a folder, not a file
        "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1\n"  // KPvK: KBvK's file renamed
        "8/8/8/8/8/2k5/8/K6Q b - - 0 1\n"    // KQvK: intact
        "8/8/8/8/8/8/1k6/R6K b - - 0 1\n";   // KRvK again: refused once only
    Outcome o = run_pythia("tb probe --json --dir " + dir.string(), fens);
    INFO(o.out << o.err);
    CHECK(o.status == 1);  // a clean failure, not a signal
    const auto out = lines(o.out);
    REQUIRE(out.size() == 5);
    CHECK_THAT(out[3], Catch::Contains("\"wdl\":-2"));
    // A refused WDL file: the table's DTM/DTZ file answers instead, where there is one.
    CHECK_THAT(out[1], Catch::Contains("\"dtz\":null,") && Catch::Contains("\"category\":\"unknown\",\"wdl\":null,"));
    for (int i : {0, 2, 4})
        CHECK_THAT(out[i], !Catch::Contains("\"category\":\"unknown\",\"wdl\":null,\"moves\"") &&
                               !Catch::Contains("\"dtz\":null"));
    for (const char* file : {"KRvK.pytw", "KQvKR.pytw", "KPvK.pytw"}) {
        const std::string refusal = "tb probe: refused " + (dir / file).string() + ": ";
        const size_t at = o.err.find(refusal);
        CHECK(at != std::string::npos);
        CHECK(o.err.find(refusal, at + 1) == std::string::npos);
    }
}

TEST_CASE("the engine plays on with TablebasePath pointing at bad files", "[tb][uci][badfiles]") {
    // The option comes with the engine's tablebase step; until then there is nothing to test.
    Outcome o = run_pythia("", "uci\nquit\n");
    if (o.out.find("option name TablebasePath ") == std::string::npos) {
        std::printf("PYTHIA_TEST_SKIPPED: this build has no TablebasePath option\n");
        return;
    }
    const fs::path dir = bad_tables_dir();
    for (const char* fen : {"8/8/8/8/8/8/1k6/R6K w - - 0 1", "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1",
                            "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1", "8/8/8/8/8/2k5/8/K6Q b - - 0 1"}) {
        o = run_pythia("", "uci\nsetoption name TablebasePath value " + dir.string() + "\nisready\nposition fen " +
                               fen + "\ngo depth 6\nisready\nposition fen " + fen + "\ngo nodes 5000\nisready\nquit\n");
        INFO(fen << "\n" << o.out << o.err);
        CHECK(o.status == 0);
        const auto out = lines(o.out);
        int bestmoves = 0, readyoks = 0;
        for (const std::string& l : out) {
            readyoks += l == "readyok";
            if (l.rfind("bestmove ", 0) != 0) continue;
            ++bestmoves;
            Position pos = test::position(fen);
            CHECK(parse_uci_move(pos, l.substr(9, l.find(' ', 9) - 9)));
        }
        CHECK(bestmoves == 2);
        CHECK(readyoks == 3);
    }
}

TEST_CASE("tb info shows counts, longest mates with a position, timing and sizes", "[tb][cli][info]") {
    Outcome o = run_pythia("tb info KQvKR KRvK " + dir_arg());
    INFO(o.out << o.err);
    CHECK(o.status == 0);
    CHECK_THAT(o.out, Catch::Contains("KQvKR: 1892352 positions per side to move"));
    CHECK_THAT(o.out, Catch::Contains("KQvKR.pytw"));
    CHECK_THAT(o.out, Catch::Contains("KQvKR.pytd"));
    CHECK_THAT(o.out, Catch::Contains("longest DTM  mate in 35 (69 plies)"));  // Gaviota's figure
    CHECK_THAT(o.out, Catch::Contains("longest DTM  mate in 16 (31 plies)"));  // KRvK
    CHECK_THAT(o.out, Catch::Contains("white to move: 1119216 legal positions"));
    CHECK_THAT(o.out, Catch::Contains("generated    in"));
    // The last line adds up the files' bytes, for sizing a whole set.
    uint64_t wdl_bytes = 0, distance_bytes = 0;
    for (const std::string table : {"KQvKR", "KRvK"}) {
        wdl_bytes += fs::file_size(test::test_tables_dir() / (table + ".pytw"));
        distance_bytes += fs::file_size(test::test_tables_dir() / (table + ".pytd"));
    }
    CHECK_THAT(lines(o.out).back(), Catch::StartsWith("2 tables: WDL files " + std::to_string(wdl_bytes) + " bytes") &&
                                        Catch::Contains("DTM/DTZ files " + std::to_string(distance_bytes) + " bytes"));

    o = run_pythia("tb info KQvKQ --dir " + test::scratch_dir("cli-empty").string());
    CHECK(o.status == 1);
    CHECK_THAT(o.err, Catch::Contains("no WDL file KQvKQ.pytw"));
    o = run_pythia("tb info KQ " + dir_arg());
    CHECK(o.status == 2);
}

TEST_CASE("tb generate writes each table in its final form, checked, and resumes a stopped run",
          "[tb][cli][generate]") {
    const fs::path dir = test::scratch_dir("generate-cli");
    fs::create_directory(dir / ".staging-999999999");  // left by a generator that was killed
    // --dry-run lists what a run would generate, in order, with the index sizes, and writes nothing.
    auto index_size = [](const char* name) { return tb::TableIndex(*tb::Material::parse(name)).size(); };
    auto planned = [&](const char* name) { return std::string(name) + " " + std::to_string(index_size(name)) + "\n"; };
    Outcome r = run_pythia("tb generate KRvK KQvK --dry-run --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::StartsWith(planned("KRvK") + planned("KQvK") + "loaded back: 0 tables, 0 positions"));
    CHECK_FALSE(fs::exists(dir / "KRvK.pytw"));
    r = run_pythia("tb generate KRvK KQvK --threads 2 --dir " + dir.string());
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("2 tables to generate"));
    // One line per table, with its times, sizes and the share of the work done.
    CHECK_THAT(r.err,
               Catch::Contains("KRvK     generated") && Catch::Contains(", written ") && Catch::Contains(", checked "));
    CHECK_THAT(r.err, Catch::Contains("(100.0 %)"));
    CHECK_THAT(r.err, !Catch::Contains("not found"));  // an empty folder is not a problem to report
    CHECK_THAT(r.out, Catch::Contains("generated 2 tables, 0 already present"));
    CHECK_THAT(r.out, Catch::Contains("time per stage, summed over the tables: generation ") &&
                          Catch::Contains(", writing ") && Catch::Contains(", checking "));
    CHECK_FALSE(fs::exists(dir / ".staging-999999999"));
    for (const char* f : {"KRvK.pytw", "KRvK.pytd", "KQvK.pytw", "KQvK.pytd"}) CHECK(fs::exists(dir / f));
    // The final form: every section in the pair codec (or constant), none in LZ4 blocks.
    r = run_pythia("tb info --dir " + dir.string() + " KRvK");
    CHECK_THAT(r.out, Catch::Contains("DTM w pairs [") && Catch::Contains("DTM b pairs ["));
    CHECK_THAT(r.out, !Catch::Contains("lz4"));
    r = run_pythia("tb probe --dir " + dir.string() + " 8/8/8/8/8/2k5/8/K6R w - - 0 1");
    CHECK_THAT(r.out, Catch::Contains("White to move: win, DTZ50 27 plies, mate in 14 (27 plies)"));
    r = run_pythia("tb verify --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("2 tables verified, 0 failed"));

    // A run over tables present and valid generates nothing; a damaged one is generated again.
    r = run_pythia("tb generate KRvK KQvK --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("generated 0 tables, 2 already present"));
    // KPvK needs what its promotions lead into: KBvK and KNvK made first, and kept; KQvK and
    // KRvK loaded back from the folder, with Black to move only.
    r = run_pythia("tb generate KRvK KQvK KPvK --dry-run --dir " + dir.string());
    const uint64_t loaded = index_size("KQvK") + index_size("KRvK");
    CHECK(r.out == planned("KBvK") + planned("KNvK") + "KPvK " + std::to_string(index_size("KPvK")) +
                       " loads KQvK KRvK (" + std::to_string(loaded) + " positions)\n" + "loaded back: 2 tables, " +
                       std::to_string(loaded) + " positions" + r.out.substr(r.out.find(" (memory budget")));
    { std::ofstream(dir / "KQvK.pytd", std::ios::binary | std::ios::trunc) << "PYTHIATB"; }
    r = run_pythia("tb generate KRvK KQvK --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("KQvK") && Catch::Contains("generating it again"));
    CHECK_THAT(r.out, Catch::Contains("generated 1 tables, 1 already present"));
    r = run_pythia("tb verify KQvK --dir " + dir.string());
    CHECK(r.status == 0);
}

TEST_CASE("tb generate --memory: tables that do not fit go to spill files and come back the same",
          "[tb][cli][generate]") {
    const fs::path roomy = test::scratch_dir("generate-roomy"), tight = test::scratch_dir("generate-tight");
    Outcome r = run_pythia("tb generate KQvKR --dir " + roomy.string());
    REQUIRE(r.status == 0);
    // A budget smaller than any table: KQvK and KRvK are spilled after their writes and read
    // back from their spill files for KQvKR (fast: no side recovered, nothing searched).
    r = run_pythia("tb generate KQvKR --memory 0.0001 --dry-run --dir " + tight.string());
    CHECK_THAT(r.out, Catch::Contains("KQvKR ") && Catch::Contains(" loads KRvK KQvK"));
    // Both 3-piece tables at once, held for conversions: 2 tables x 2 sides x (29568 positions x 2
    // bytes + 462 words of cursed bits).
    CHECK_THAT(r.out,
               Catch::Contains("spill files: at most " + std::to_string(2 * 2 * (29568 * 2 + 462 * 8) / 1024) + "."));
    r = run_program(std::string("SPDLOG_LEVEL=debug ") + PYTHIA_BINARY,
                    "tb generate KQvKR --memory 0.0001 --dir " + tight.string());
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("KQvKR: loaded KRvK KQvK"));
    CHECK_THAT(r.err, !Catch::Contains("loaded from its files"));
    for (const auto& entry : fs::directory_iterator(tight))  // the run's spill folder is gone
        CHECK_FALSE(entry.path().filename().string().starts_with(".spill-"));
#ifdef PYTHIA_TB_COMPARE
    r = run_program(PYTHIA_TB_COMPARE, roomy.string() + " " + tight.string());
    CHECK(r.status == 0);
#endif
    // 100 000 GiB: more than any machine this runs on has (the kernel would kill the run).
    for (const char* bad :
         {"--memory", "--memory abc", "--memory 0", "--memory -1", "--memory 2e9", "--memory 100000"}) {
        r = run_pythia(std::string("tb generate KQvKR ") + bad + " --dir " + tight.string());
        INFO(bad);
        CHECK(r.status == 2);
        CHECK_THAT(r.err, Catch::Contains("--memory"));
    }
}

TEST_CASE("tb generate carries on with the spill files of a run that was stopped", "[tb][cli][generate]") {
    const fs::path dir = test::scratch_dir("generate-resume");
    Outcome r = run_pythia("tb generate KQvK KRvK --dir " + dir.string());
    REQUIRE(r.status == 0);
    // What a stopped run leaves: its spill folder, with KQvK's spill file of the files in the
    // folder, and KRvK's of another write of them.
    const fs::path stale = dir / ".spill-999999999";
    fs::create_directory(stale);
    for (const std::string name : {"KQvK", "KRvK"}) {
        const tb::Material m = *tb::Material::parse(name);
        std::string error;
        const tb::TableSet none;
        auto t = tb::load_table_values(dir, m, &error, 2, 3, tb::LoadFor::CONVERSIONS, &none);
        REQUIRE(t);
        auto f = tb::TableFile::open(tb::table_file_path(dir, m, tb::FileKind::DISTANCE), tb::TableIndex(m),
                                     tb::FileKind::DISTANCE, &error);
        REQUIRE(f);
        const uint64_t write_id = f->write_id() + (name == "KRvK" ? 1 : 0);
        REQUIRE(tb::write_spill_file(stale / (name + ".spill"), *t, write_id, &error));
    }
    r = run_program(std::string("SPDLOG_LEVEL=debug ") + PYTHIA_BINARY, "tb generate KQvKR --dir " + dir.string());
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.err, Catch::Contains("carrying on with the spill files of 1 tables"));
    CHECK_THAT(r.err, Catch::Contains("KRvK: loaded from its files"));
    CHECK_THAT(r.err, !Catch::Contains("KQvK: loaded from its files"));
    CHECK_FALSE(fs::exists(stale));
    r = run_pythia("tb verify KQvKR --dir " + dir.string());
    CHECK(r.status == 0);
}

TEST_CASE("tb verify names a table that fails and exits 1", "[tb][cli][verify]") {
    const fs::path dir = test::scratch_dir("verify-cli");
    for (const char* f : {"KQvK.pytw", "KQvK.pytd"}) test::copy_table_file(f, dir);
    Outcome r = run_pythia("tb verify KQvK KRvK --dir " + dir.string());
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Catch::Contains("KQvK     ok:"));
    CHECK_THAT(r.out, Catch::Contains("KRvK     FAILED: ") && Catch::Contains("KRvK.pytd"));
    CHECK_THAT(r.out, Catch::Contains("2 tables verified, 1 failed"));
}

TEST_CASE("tb verify reads each table once, keeping it for the tables that convert into it", "[tb][cli][verify]") {
    // KPvK converts into the other four (its promotions); KQvK, KRvK, KBvK, KNvK into none.
    const fs::path dir = test::scratch_dir("verify-cache");
    for (const char* t : {"KQvK", "KRvK", "KBvK", "KNvK", "KPvK"})
        for (const char* ext : {".pytw", ".pytd"}) test::copy_table_file(std::string(t) + ext, dir);
    Outcome r = run_pythia("tb verify --all --dir " + dir.string());
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    // Dependency order: KPvK after the tables it needs, which are at hand by then.
    CHECK(r.out.find("KPvK     ok:") > r.out.find("KNvK     ok:"));
    CHECK_THAT(r.out, Catch::Contains("5 tables verified, 0 failed; 5 tables read in all"));
    // KPvK alone reads what it converts into as well.
    r = run_pythia("tb verify KPvK --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("1 tables verified, 0 failed; 5 tables read in all"));
    // Within a budget smaller than any table only what the next table needs is kept: KPvK
    // reads again three of its four, all but KRvK, checked just before it.
    r = run_pythia("tb verify --all --memory 0.0001 --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("5 tables verified, 0 failed; 8 tables read in all"));
    for (const char* bad : {"--memory", "--memory x", "--memory 0"}) {
        r = run_pythia(std::string("tb verify --all ") + bad + " --dir " + dir.string());
        INFO(bad);
        CHECK(r.status == 2);
        CHECK_THAT(r.err, Catch::Contains("--memory"));
    }
}

TEST_CASE("help and --help print every command's usage on stdout, and usage errors exit 2", "[cli][help]") {
    Outcome r = run_pythia("help");
    CHECK(r.status == 0);
    for (const char* verb : {"pythia perft <depth>", "pythia bench [depth]", "pythia book probe", "pythia book build",
                             "pythia tb generate", "pythia tb verify", "pythia tb info", "pythia tb probe"})
        CHECK_THAT(r.out, Catch::Contains(verb));
    CHECK(r.err.empty());
    CHECK(run_pythia("--help").out == r.out);
    // The version, as `id name` gives it: "Pythia 1.0.0 (abc1234)" from a checkout.
    r = run_pythia("--version");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::StartsWith("Pythia ") && Catch::Contains("."));
    CHECK(lines(r.out).size() == 1);

    // A verb's --help describes that verb alone, on stdout, and does nothing else.
    r = run_pythia("tb probe --help");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("pythia tb probe [--dir D] [--syzygy S] [--json] [FEN]"));
    CHECK_THAT(r.out, !Catch::Contains("tb generate"));
    r = run_pythia("tb generate --all 5 --help");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("pythia tb generate"));
    r = run_pythia("tb --help");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("pythia tb verify") && !Catch::Contains("pythia book"));

    // Usage errors: the message, then the verb's usage, on stderr; status 2.
    struct Case {
        const char* args;
        const char* message;
    };
    for (const Case c :
         {Case{"frobnicate", "unknown command 'frobnicate'"}, Case{"tb", "which command?"},
          Case{"tb recompress --all", "unknown command 'recompress'"}, Case{"tb generate", "which tables?"},
          Case{"tb generate KQvKQvK", "not a material"},
          Case{"tb generate KQRBNvKQ", "'KQRBNvKQ' is not a material of 3 to 6 pieces"},
          Case{"tb generate --all 6", "--all must be a number from 3 to 5"},
          Case{"tb verify --threads 0", "--threads must be a number from 1 to 256"},
          Case{"tb verify --one-side", "unknown option '--one-side'"}, Case{"tb info --dir", "--dir needs a folder"},
          Case{"perft x", "the depth must be"}, Case{"perft 1 not/a/fen", "illegal FEN"},
          Case{"bench 0", "the depth must be"}, Case{"book build only-one.pgn", "needs a PGN file and an output file"},
          Case{"tb probe ''", "an empty FEN"}, Case{"tb probe --json ' '", "an empty FEN"}}) {
        r = run_pythia(c.args);
        INFO(c.args << ": " << r.err);
        CHECK(r.status == 2);
        CHECK_THAT(r.err, Catch::Contains(c.message));
        CHECK(r.out.empty());
    }
    r = run_pythia("tb generate --dir");
    CHECK_THAT(r.err, Catch::Contains("usage:") && Catch::Contains("pythia tb generate <MATERIAL...|--all N>"));
}

TEST_CASE("pythia perft --chess960 counts a Fischer Random position as the published list does", "[cli][chess960]") {
    // The first position of tests/data/chess960.epd, to depth 3, through the command line.
    std::ifstream in(std::string(PYTHIA_TEST_DATA_DIR) + "/chess960.epd");
    std::string line;
    while (std::getline(in, line) && (line.empty() || line[0] == '#')) {
    }
    REQUIRE(!line.empty());
    const std::string fen = line.substr(0, line.find(" ;"));
    const size_t d3 = line.find(";D3 ");
    REQUIRE(d3 != std::string::npos);
    const std::string expected = line.substr(d3 + 4, line.find(' ', d3 + 4) - (d3 + 4));
    Outcome r = run_pythia("perft 3 --chess960 \"" + fen + "\"");
    INFO(fen << ": " << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("Nodes searched: " + expected));
    // Without --chess960 the Shredder-FEN castling field is refused, not misread.
    r = run_pythia("perft 3 \"" + fen + "\"");
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("illegal FEN"));
}

#ifdef PYTHIA_TB_COMPARE
TEST_CASE("tb-compare passes the same tables and names a table whose values differ", "[tb][bench]") {
    const fs::path a = test::scratch_dir("compare-a"), same = test::scratch_dir("compare-same"),
                   other = test::scratch_dir("compare-other");
    test::generate_and_write({"KRvK"}, a, tb::GenerationInfo{});
    for (const auto& f : fs::directory_iterator(a)) fs::copy_file(f.path(), same / f.path().filename());
    Outcome r = run_program(PYTHIA_TB_COMPARE, a.string() + " " + same.string());
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("KRvK     same: ") && Catch::Contains("all the same"));

    // The same table with one won position made a draw (DTM and DTZ, so that the WDL file
    // stores a draw there too): one position's values and one WDL answer differ.
    auto t = tb::generate_table(*tb::Material::parse("KRvK"), tb::TableSet{});
    uint64_t changed = 0;
    while (!tb::is_win(t->dtm[WHITE][changed])) ++changed;
    t->dtm[WHITE][changed] = t->dtz[WHITE][changed] = tb::VALUE_UNKNOWN;
    std::string error;
    REQUIRE(tb::write_table_files(*t, other, tb::GenerationInfo{}, &error));
    r = run_program(PYTHIA_TB_COMPARE, a.string() + " " + other.string() + " KRvK");
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Catch::Contains("KRvK     DIFFERENT: ") && Catch::Contains(", 1 with other DTM or DTZ;"));
    CHECK_THAT(r.out, Catch::Contains("1 differ"));
}
#endif
