// `pythia tb probe` and `pythia tb info` as a user and a script run them.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "engine/core/notation.h"
#include "tablebase/generator.h"
#include "tablebase/table_writer.h"
#include "tb_test_tables.h"

using namespace pythia;
namespace fs = std::filesystem;

namespace {

struct Outcome {
    int status;
    std::string out, err;
};

// Runs pythia with `args`, feeding `input` to its stdin; stdout and stderr apart.
Outcome run_pythia(const std::string& args, const std::string& input = "") {
    const fs::path dir = test::scratch_dir("cli");
    {
        std::ofstream(dir / "in") << input;
    }
    const std::string command = std::string(PYTHIA_BINARY) + " " + args + " < " + (dir / "in").string() + " > " +
                                (dir / "out").string() + " 2> " + (dir / "err").string();
    const int status = std::system(command.c_str());
    auto slurp = [](const fs::path& p) {
        std::stringstream s;
        s << std::ifstream(p).rdbuf();
        return s.str();
    };
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
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
        "6k1/8/6K1/8/8/8/8/R7 w - - 0 1\n"   // mate in one
        "R5k1/8/6K1/8/8/8/8/8 b - - 1 1\n"   // checkmated
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1\n"    // bare kings
        "\n"
        "not a fen\n"
        "r3k3/8/8/8/8/8/8/4K3 b q - 0 1\n";  // castling rights
    Outcome o = run_pythia("tb probe --json " + dir_arg(), input);
    INFO(o.out << o.err);
    CHECK(o.status == 1);  // two lines could not be answered
    const auto out = lines(o.out);
    REQUIRE(out.size() == 5);
    CHECK_THAT(out[0], Catch::StartsWith("{\"fen\":\"6k1/8/6K1/8/8/8/8/R7 w - - 0 1\",\"wdl\":2,\"dtz\":1,\"dtm\":1,"
                                         "\"moves\":["));
    CHECK_THAT(out[0], Catch::Contains("{\"uci\":\"a1a8\",\"san\":\"Ra8#\",\"wdl\":-2,\"dtz\":0,\"dtm\":0}"));
    CHECK(out[1] == "{\"fen\":\"R5k1/8/6K1/8/8/8/8/8 b - - 1 1\",\"wdl\":-2,\"dtz\":0,\"dtm\":0,\"moves\":[]}");
    CHECK_THAT(out[2], Catch::StartsWith("{\"fen\":\"8/8/8/4k3/8/8/8/4K3 w - - 0 1\",\"wdl\":0,\"dtz\":0,\"dtm\":0,"));
    CHECK_THAT(out[3], Catch::Contains("\"wdl\":null,\"dtz\":null,\"dtm\":null,\"moves\":[],\"error\":\"illegal FEN"));
    CHECK_THAT(out[4], Catch::Contains("\"error\":\"the tables hold no positions with castling rights\""));
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

TEST_CASE("tb probe with a folder of bad files names each once and answers from the good ones",
          "[tb][cli][badfiles]") {
    const fs::path dir = bad_tables_dir();
    const std::string fens = "8/8/8/8/8/8/1k6/R6K w - - 0 1\n"      // KRvK: truncated WDL file
                             "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1\n"     // KQvKR: a folder, not a file
                             "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1\n"     // KPvK: KBvK's file renamed
                             "8/8/8/8/8/2k5/8/K6Q b - - 0 1\n"       // KQvK: intact
                             "8/8/8/8/8/8/1k6/R6K b - - 0 1\n";      // KRvK again: refused once only
    Outcome o = run_pythia("tb probe --json --dir " + dir.string(), fens);
    INFO(o.out << o.err);
    CHECK(o.status == 1);  // a clean failure, not a signal
    const auto out = lines(o.out);
    REQUIRE(out.size() == 5);
    CHECK_THAT(out[3], Catch::Contains("\"wdl\":-2"));
    // A refused WDL file: the table's DTM/DTZ file answers instead, where there is one.
    CHECK_THAT(out[1], Catch::Contains("\"wdl\":null") && Catch::Contains("\"error\":"));
    for (int i : {0, 2, 4}) CHECK_THAT(out[i], !Catch::Contains("\"error\":") && !Catch::Contains("\"wdl\":null"));
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

TEST_CASE("tb recompress upgrades LZ4 files, leaves current ones, names a bad one", "[tb][cli][recompress]") {
    using namespace pythia::tb;
    const fs::path dir = test::scratch_dir("recompress-cli");
    test::generate_and_write({"KRvK", "KQvK"}, dir, GenerationInfo{0.5, 1, nullptr, Codec::LZ4, Codec::LZ4});
    Outcome r = run_pythia("tb recompress --dir " + dir.string() + " --wdl-only KRvK");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("KRvK     WDL") != std::string::npos);
    CHECK(r.out.find("smaller") != std::string::npos);
    CHECK(r.out.find("DTM/DTZ") == std::string::npos);  // --wdl-only
    CHECK(r.out.find("KQvK") == std::string::npos);     // only the table asked for

    r = run_pythia("tb recompress --dir " + dir.string());  // every stored table, both files
    CHECK(r.status == 0);
    CHECK(r.out.find("KRvK     WDL     already current") != std::string::npos);
    CHECK(r.out.find("KRvK     DTM/DTZ") != std::string::npos);
    CHECK(r.out.find("KQvK     WDL") != std::string::npos);
    CHECK(r.out.find("4 files, 0 failed") != std::string::npos);
    r = run_pythia("tb probe --dir " + dir.string() + " 8/8/8/8/8/2k5/8/K6R w - - 0 1");
    CHECK(r.status == 0);
    CHECK(r.out.find("White to move: win") != std::string::npos);
    CHECK(r.out.find("White to move: win, DTZ50 27 plies, mate in 14 (27 plies)") != std::string::npos);  // rewritten DTM/DTZ

    {
        std::ofstream(dir / "KQvK.pytd", std::ios::binary | std::ios::trunc) << "PYTHIATB";
    }
    r = run_pythia("tb recompress --dir " + dir.string() + " KQvK");
    CHECK(r.status == 1);
    CHECK(r.out.find("KQvK.pytd") != std::string::npos);
    CHECK(r.out.find("FAILED") != std::string::npos);
}


TEST_CASE("tb rewrite writes tables again in chosen storage orders, names a table it cannot", "[tb][cli][order]") {
    using namespace pythia::tb;
    const fs::path dir = test::scratch_dir("rewrite-cli");
    test::generate_and_write({"KRvK", "KQvK"}, dir, GenerationInfo{0.5, 1, nullptr, Codec::LZ4, Codec::LZ4});
    Outcome r = run_pythia("tb info --dir " + dir.string() + " KRvK");
    // White to move always wins: a constant section, no blocks.
    // Each section's codec, storage order and compressed size.
    CHECK(r.out.find("sections     WDL w constant [KK R]; WDL b lz4 [KK R] ") != std::string::npos);
    CHECK(r.out.find("; DTM w lz4 [KK R] ") != std::string::npos);
    CHECK(r.out.find("; DTM b lz4 [KK R] ") != std::string::npos);
    r = run_pythia("tb rewrite --dir " + dir.string() + " KRvK");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("KRvK     WDL ") != std::string::npos);
    CHECK(r.out.find("1 tables, 0 failed") != std::string::npos);
    r = run_pythia("tb info --dir " + dir.string() + " KRvK");
    CHECK(r.out.find("WDL b pairs [") != std::string::npos);
    CHECK(r.out.find("DTM w pairs [") != std::string::npos);
    CHECK(r.out.find("lz4") == std::string::npos);
    r = run_pythia("tb probe --dir " + dir.string() + " 8/8/8/8/8/2k5/8/K6R w - - 0 1");
    CHECK(r.out.find("White to move: win, DTZ50 27 plies, mate in 14 (27 plies)") != std::string::npos);

    fs::remove(dir / "KRvK.pytd");
    r = run_pythia("tb rewrite --dir " + dir.string());  // every stored table: KQvK, and KRvK without its DTM/DTZ file
    CHECK(r.status == 1);
    CHECK(r.out.find("KRvK     FAILED: " + (dir / "KRvK.pytd").string()) != std::string::npos);
    CHECK(r.out.find("KQvK     WDL ") != std::string::npos);
    CHECK(r.out.find("2 tables, 1 failed") != std::string::npos);
}

TEST_CASE("tb rewrite --one-side stores one side's DTM and DTZ and probes as before", "[tb][cli][oneside]") {
    using namespace pythia::tb;
    const fs::path dir = test::scratch_dir("rewrite-one-side-cli");
    test::generate_and_write({"KRvK"}, dir, GenerationInfo{0.5, 1, nullptr, Codec::LZ4, Codec::LZ4});
    // Black to move, so that the probe of a left-out side is what is shown (KRvK keeps White's
    // side: its DTM and DTZ of Black to move take more bytes).
    const std::string probe = "tb probe --dir " + dir.string() + " 8/8/8/8/8/2k5/8/K6R b - - 0 1";
    const Outcome before = run_pythia(probe);
    REQUIRE(before.status == 0);
    // By default --one-side leaves the 3-4-piece tables with both sides.
    Outcome r = run_pythia("tb rewrite --one-side --dir " + dir.string() + " KRvK");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    r = run_pythia("tb info --dir " + dir.string() + " KRvK");
    CHECK(r.out.find("DTM b pairs [") != std::string::npos);
    CHECK(r.out.find("recovered") == std::string::npos);
    r = run_pythia("tb rewrite --one-side --one-side-pieces 6 --dir " + dir.string() + " KRvK");
    CHECK(r.status == 2);
    CHECK(r.err.find("--one-side-pieces must be 3 to 5, not '6'") != std::string::npos);
    r = run_pythia("tb rewrite --one-side --one-side-pieces 3 --dir " + dir.string() + " KRvK");
    CHECK(r.status == 0);
    CHECK(r.out.find("1 tables, 0 failed") != std::string::npos);
    r = run_pythia("tb info --dir " + dir.string() + " KRvK");
    CHECK(r.out.find("DTM w pairs [") != std::string::npos);
    CHECK(r.out.find("DTM b ") == std::string::npos);
    CHECK(r.out.find("DTM and DTZ b recovered from the other side by one ply") != std::string::npos);
    const Outcome after = run_pythia(probe);
    CHECK(after.status == 0);
    CHECK(after.out == before.out);
    CHECK(after.out.find("Black to move: loss") != std::string::npos);
    r = run_pythia("tb verify --dir " + dir.string() + " KRvK");
    CHECK(r.status == 0);
    CHECK(r.out.find("KRvK     ok: ") != std::string::npos);
    // Without --one-side both sides are stored again.
    r = run_pythia("tb rewrite --dir " + dir.string() + " KRvK");
    CHECK(r.status == 0);
    r = run_pythia("tb info --dir " + dir.string() + " KRvK");
    CHECK(r.out.find("DTM b pairs [") != std::string::npos);
    CHECK(r.out.find("recovered") == std::string::npos);
}

TEST_CASE("tb rewrite --resolve-dtm leaves DTM to captures and promotions and probes as before", "[tb][cli][resolved]") {
    using namespace pythia::tb;
    const fs::path dir = test::scratch_dir("rewrite-resolved-cli");
    test::generate_and_write({"KQvK", "KRvK", "KBvK", "KNvK", "KPvK"}, dir, GenerationInfo{0.5, 1, nullptr, Codec::LZ4, Codec::LZ4});
    // White to move can promote at once (mate in 6 at best through the queen), or not.
    const std::string probe = "tb probe --dir " + dir.string() + " 8/4P3/8/8/8/3k4/8/K7 w - - 0 1";
    const Outcome before = run_pythia(probe);
    REQUIRE(before.status == 0);
    // By default only tables of 5 pieces are resolved: a 3-4-piece table keeps its DTM exact.
    Outcome r = run_pythia("tb rewrite --resolve-dtm --dir " + dir.string() + " KPvK");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("1 tables, 0 failed") != std::string::npos);
    r = run_pythia("tb info --dir " + dir.string() + " KPvK");
    CHECK(r.out.find("DTM w pairs") != std::string::npos);
    CHECK(r.out.find("captures and promotions resolved") == std::string::npos);
    CHECK(run_pythia("tb probe --dir " + dir.string() + " 8/4P3/8/8/8/3k4/8/K7 w - - 0 1").out == before.out);
    r = run_pythia("tb rewrite --resolve-dtm --resolve-dtm-pieces 6 --dir " + dir.string() + " KPvK");
    CHECK(r.status == 2);
    CHECK(r.err.find("--resolve-dtm-pieces must be 3 to 5, not '6'") != std::string::npos);
    r = run_pythia("tb rewrite --resolve-dtm --resolve-dtm-pieces 3 --dir " + dir.string() + " KPvK");
    CHECK(r.status == 0);
    CHECK(r.out.find("1 tables, 0 failed, 0 already rewritten") != std::string::npos);
    r = run_pythia("tb info --dir " + dir.string() + " KPvK");
    CHECK(r.out.find("captures and promotions resolved, draws from the WDL file; DTM b pairs") != std::string::npos);
    const Outcome after = run_pythia(probe);
    CHECK(after.status == 0);
    CHECK(after.out == before.out);
    r = run_pythia("tb verify --dir " + dir.string() + " KPvK");
    CHECK(r.status == 0);
    CHECK(r.out.find("KPvK     ok: ") != std::string::npos);
}

TEST_CASE("tb rewrite --jobs rewrites tables at once, each after the tables that convert into it", "[tb][cli][jobs]") {
    using namespace pythia::tb;
    const fs::path dir = test::scratch_dir("rewrite-jobs-cli");
    test::generate_and_write({"KQvK", "KRvK", "KBvK", "KNvK", "KPvK"}, dir,
                             GenerationInfo{0.5, 1, nullptr, Codec::LZ4, Codec::LZ4});
    const std::string probes =
        "8/4P3/8/8/8/3k4/8/K7 w - - 0 1\n8/8/8/8/8/2k5/8/K6R b - - 0 1\n8/8/8/3k4/8/8/8/K5B1 w - - 0 1\n"
        "8/8/8/3k4/8/8/8/KQ6 b - - 0 1\n";
    const Outcome before = run_pythia("tb probe --json --dir " + dir.string(), probes);
    REQUIRE(before.status == 0);
    Outcome r = run_pythia("tb rewrite --jobs 2 --one-side --one-side-pieces 3 --resolve-dtm --resolve-dtm-pieces 3 --dir " + dir.string());
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("5 tables, 0 failed") != std::string::npos);
    // KPvK promotes into the four others: they wait for it, although a second job is free.
    REQUIRE(lines(r.out).size() == 6);
    CHECK(lines(r.out)[0].rfind("KPvK ", 0) == 0);
    for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().rfind(".rewrite-", 0) != 0);
    const Outcome after = run_pythia("tb probe --json --dir " + dir.string(), probes);
    CHECK(after.status == 0);
    CHECK(after.out == before.out);
    r = run_pythia("tb verify --all --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK(r.out.find("FAILED") == std::string::npos);
    CHECK(run_pythia("tb rewrite --jobs 0 --dir " + dir.string()).status == 2);

    // Asked again, a rewrite skips the tables that already have that form (a stopped rewrite of a
    // whole set carries on): not a byte changes. --force, or another form, rewrites them.
    const std::vector<uint8_t> kqvk = test::read_bytes(dir / "KQvK.pytd");
    r = run_pythia("tb rewrite --jobs 2 --one-side --one-side-pieces 3 --resolve-dtm --resolve-dtm-pieces 3 --dir " + dir.string());
    CHECK(r.status == 0);
    CHECK(r.out.find("5 tables, 0 failed, 5 already rewritten") != std::string::npos);
    CHECK(r.out.find("KPvK     already rewritten") != std::string::npos);
    CHECK(test::read_bytes(dir / "KQvK.pytd") == kqvk);
    r = run_pythia("tb rewrite --force --one-side --one-side-pieces 3 --resolve-dtm --resolve-dtm-pieces 3 --dir " + dir.string() + " KQvK");
    CHECK(r.out.find("1 tables, 0 failed, 0 already rewritten") != std::string::npos);
    r = run_pythia("tb rewrite --resolve-dtm --resolve-dtm-pieces 3 --dir " + dir.string() + " KQvK KRvK");
    CHECK(r.out.find("2 tables, 0 failed, 0 already rewritten") != std::string::npos);
    r = run_pythia("tb rewrite --resolve-dtm --resolve-dtm-pieces 3 --dir " + dir.string() + " KQvK KRvK");
    CHECK(r.out.find("2 tables, 0 failed, 2 already rewritten") != std::string::npos);
    r = run_pythia("tb rewrite --dir " + dir.string() + " KQvK");
    CHECK(r.out.find("1 tables, 0 failed, 0 already rewritten") != std::string::npos);
    // Nor is a table as the generator wrote it (LZ4 DTM and DTZ), or recompressed (pairs in the
    // index's order).
    test::generate_and_write({"KQvK", "KRvK"}, dir, GenerationInfo{0.5, 1, nullptr, Codec::LZ4, Codec::LZ4});
    CHECK(run_pythia("tb recompress --dir " + dir.string() + " KRvK").status == 0);
    r = run_pythia("tb rewrite --dir " + dir.string() + " KQvK KRvK");
    CHECK(r.out.find("2 tables, 0 failed, 0 already rewritten") != std::string::npos);
}

namespace {

// KQvKP rewritten with `options` in a copy of the test tables: the file `kept` stays byte for
// byte, a probe answers as before, and `tb verify verify_options` passes. Returns `tb info`.
// The position: Black to move, the pawn on its seventh rank (a WDL probe searches the
// promotion); White to move can take the pawn or not.
std::string rewrite_kqvkp_keeping(const fs::path& dir, const std::string& options, const std::string& kept,
                                  const std::string& verify_options) {
    const std::vector<uint8_t> kept_bytes = test::read_bytes(dir / kept);
    const std::string probe = "tb probe --dir " + dir.string() + " 8/8/8/8/8/1Q6/3kp3/7K b - - 0 1";
    const Outcome before = run_pythia(probe);
    REQUIRE(before.status == 0);
    Outcome r = run_pythia("tb rewrite " + options + " --dir " + dir.string() + " KQvKP");
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("1 tables, 0 failed") != std::string::npos);
    CHECK(test::read_bytes(dir / kept) == kept_bytes);
    const Outcome after = run_pythia(probe);
    CHECK(after.status == 0);
    CHECK(after.out == before.out);
    r = run_pythia("tb verify " + verify_options + " --dir " + dir.string() + " KQvKP");
    CHECK(r.status == 0);
    CHECK(r.out.find("KQvKP    ok: ") != std::string::npos);
    return run_pythia("tb info --dir " + dir.string() + " KQvKP").out;
}

}  // namespace

TEST_CASE("tb rewrite --wdl-only writes the WDL file alone and it still pairs with the DTM/DTZ file", "[tb][cli][promoted]") {
    const fs::path dir = test::copy_of_test_tables("rewrite-wdl-only-cli");
    const std::string info = rewrite_kqvkp_keeping(dir, "--wdl-only", "KQvKP.pytd", "--wdl-only");
    CHECK(info.find("WDL w pairs [") != std::string::npos);
    CHECK(info.find("queen promotions resolved; DTM w") != std::string::npos);  // Black's WDL section, the last
    // The DTM/DTZ options change the other file: refused with it.
    const Outcome r = run_pythia("tb rewrite --wdl-only --one-side --dir " + dir.string() + " KQvKP");
    CHECK(r.status == 2);
    CHECK(r.err.find("--wdl-only") != std::string::npos);
}

TEST_CASE("tb rewrite --dtm-only writes the DTM/DTZ file alone and it still pairs with the WDL file",
          "[tb][cli][resolved]") {
    const fs::path dir = test::copy_of_test_tables("rewrite-dtm-only-cli");
    const std::vector<uint8_t> distances = test::read_bytes(dir / "KQvKP.pytd");
    const std::string info = rewrite_kqvkp_keeping(dir, "--dtm-only --one-side --one-side-pieces 3 --resolve-dtm --resolve-dtm-pieces 3", "KQvKP.pytw", "");
    CHECK(test::read_bytes(dir / "KQvKP.pytd") != distances);
    CHECK(info.find("captures and promotions resolved, draws from the WDL file") != std::string::npos);
    CHECK(info.find("recovered") != std::string::npos);
    Outcome r = run_pythia("tb rewrite --dtm-only --wdl-only --dir " + dir.string() + " KQvKP");
    CHECK(r.status == 2);
    CHECK(r.err.find("--dtm-only") != std::string::npos);
    // The new DTM/DTZ file reads its draws from the WDL file kept: that one may not be rewritten alone.
    const std::vector<uint8_t> wdl = test::read_bytes(dir / "KQvKP.pytw");
    r = run_pythia("tb rewrite --wdl-only --dir " + dir.string() + " KQvKP");
    CHECK(r.status != 0);
    CHECK(r.out.find("KQvKP.pytw: its DTM/DTZ file reads its draws from it") != std::string::npos);
    CHECK(test::read_bytes(dir / "KQvKP.pytw") == wdl);
}
