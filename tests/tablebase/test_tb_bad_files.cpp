// Bad table files, made from real ones by truncating or changing bytes: each is refused at load
// with one message naming the file and the problem, and nothing ever reads outside a mapping
// (the sanitize preset runs these too). A missing table is simply "not found".
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>

#include "tablebase/format/file_format.h"
#include "tablebase/format/table_file.h"
#include "tablebase/generate/table_loader.h"
#include "tablebase/generate/table_writer.h"
#include "tablebase/probe/tablebases.h"
#include "tb_test_tables.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

using test::fix_checksums;
using test::read_bytes;
using test::write_bytes;

FileHeader header_of(const std::vector<uint8_t>& bytes) {
    FileHeader h;
    std::memcpy(&h, bytes.data(), sizeof h);
    return h;
}

// Probes every position of a KRvK-like board through the prober: must not crash, whatever
// the file holds. Returns how many probes answered.
int probe_many(const Tablebases& tbs) {
    int answered = 0;
    for (int wk = 0; wk < 64; wk += 9)
        for (int bk = 1; bk < 64; bk += 13)
            for (int r = 2; r < 64; r += 17) {
                if (wk == bk || wk == r || bk == r) continue;
                char board[64] = {};
                board[wk] = 'K', board[bk] = 'k', board[r] = 'R';
                std::string fen;
                for (int rank = 7; rank >= 0; --rank) {
                    for (int f = 0; f < 8; ++f) fen += board[rank * 8 + f] ? board[rank * 8 + f] : '1';
                    if (rank) fen += '/';
                }
                Position pos;
                if (!pos.set_fen(fen + " b - - 0 1")) continue;
                answered += tbs.probe(pos).has_value();
                answered += tbs.probe_wdl(pos).has_value();
            }
    return answered;
}

struct Refusal {
    bool refused;
    std::string message;  // from the prober (file: problem)
};

// Puts `bytes` as <dir>/<name>, probes a position of that table, and reports the refusal.
Refusal try_file(const std::string& name, const std::vector<uint8_t>& bytes, const std::string& fen) {
    const fs::path dir = test::scratch_dir("bad");
    write_bytes(dir / name, bytes);
    // The table's other file, intact, so that only the bad one is refused.
    const std::string stem = name.substr(0, name.find('.'));
    const std::string other =
        stem + (name.find(WDL_EXTENSION) != std::string::npos ? DISTANCE_EXTENSION : WDL_EXTENSION);
    if (fs::exists(test::test_tables_dir() / other)) test::copy_table_file(other, dir);
    Tablebases tbs;
    tbs.set_paths(dir.string());
    const Position pos = test::position(fen);
    // Probing twice: the problem is reported once.
    (void)tbs.probe(pos);
    (void)tbs.probe(pos);
    const auto refused = tbs.refused_files();
    REQUIRE(refused.size() <= 1);
    Refusal r{!refused.empty(), refused.empty() ? "" : refused[0]};
    if (r.refused) {
        INFO(r.message);
        CHECK(r.message.find((dir / name).string()) == 0);
    }
    return r;
}

const char* KRVK_FEN = "8/8/8/8/8/2k5/8/K6R b - - 0 1";

}  // namespace

TEST_CASE("a missing table is not found, and nothing is refused", "[tb][badfiles]") {
    const fs::path dir = test::scratch_dir("missing");
    test::copy_table_file("KQvK.pytw", dir);
    test::copy_table_file("KQvK.pytd", dir);
    Tablebases tbs;
    tbs.set_paths(dir.string());
    CHECK(tbs.probe_wdl(test::position("8/8/8/8/8/2k5/8/K6R b - - 0 1")) == std::nullopt);
    CHECK(tbs.probe(test::position("8/8/8/8/8/2k5/8/K6R b - - 0 1")) == std::nullopt);
    CHECK(tbs.probe_wdl(test::position("8/8/8/8/8/2k5/8/K6Q b - - 0 1")).has_value());
    CHECK(tbs.refused_files().empty());
    // Only the WDL file: WDL answers, DTM and DTZ do not.
    fs::remove(dir / "KQvK.pytd");
    tbs.set_paths(dir.string());
    auto r = tbs.probe(test::position("8/8/8/8/8/2k5/8/K6Q b - - 0 1"));
    REQUIRE(r);
    CHECK(!r->dtm);
    CHECK(!r->dtz);
    CHECK(tbs.refused_files().empty());
}

TEST_CASE("unknown folders are reported, not fatal", "[tb][badfiles]") {
    const fs::path dir = test::scratch_dir("folders");
    test::copy_table_file("KRvK.pytw", dir);
    test::copy_table_file("KRvK.pytd", dir);
    Tablebases tbs;
    const auto messages =
        tbs.set_paths("/nonexistent/pythia-tables:" + dir.string() + "::" + (dir / "KRvK.pytw").string());
    REQUIRE(messages.size() == 3);
    CHECK(messages[0].find("/nonexistent/pythia-tables") != std::string::npos);
    CHECK(messages[0].find("does not exist") != std::string::npos);
    CHECK(messages[1].find("not a folder") != std::string::npos);
    CHECK(messages[2].find("1 WDL") != std::string::npos);
    CHECK(tbs.probe_wdl(test::position(KRVK_FEN)) == -2);
}

TEST_CASE("truncated files are refused at load", "[tb][badfiles]") {
    for (const char* name : {"KRvK.pytw", "KRvK.pytd", "KQvKR.pytw", "KQvKR.pytd"}) {
        const auto bytes = read_bytes(test::test_tables_dir() / name);
        const FileHeader h = header_of(bytes);
        const std::string fen = std::string(name).find("KQvKR") == 0 ? "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1" : KRVK_FEN;
        for (size_t keep : {size_t(0), size_t(10), sizeof(FileHeader) - 1, size_t(h.header_size) - 1,
                            size_t(h.header_size), bytes.size() / 2, bytes.size() - 1}) {
            INFO(name << " cut to " << keep << " of " << bytes.size() << " bytes");
            Refusal r = try_file(name, std::vector<uint8_t>(bytes.begin(), bytes.begin() + keep), fen);
            CHECK(r.refused);
            CHECK((r.message.find("truncated") != std::string::npos || r.message.find("empty") != std::string::npos));
        }
    }
}

TEST_CASE("wrong magic, wrong version and a checksum mismatch are refused", "[tb][badfiles]") {
    const auto good = read_bytes(test::test_tables_dir() / "KRvK.pytd");
    const FileHeader h = header_of(good);

    auto bytes = good;
    bytes[1] ^= 0x20;
    Refusal r = try_file("KRvK.pytd", bytes, KRVK_FEN);
    CHECK(r.refused);
    CHECK(r.message.find("wrong magic") != std::string::npos);

    // Any other format version, older or newer, with valid checksums: refused, with the command
    // that makes the table again.
    for (uint32_t version : {FORMAT_VERSION - 1, FORMAT_VERSION + 1}) {
        r = try_file("KRvK.pytd", test::with_version(good, version), KRVK_FEN);
        CHECK(r.refused);
        CHECK(r.message.find("format version " + std::to_string(version) + ", this build reads version " +
                             std::to_string(FORMAT_VERSION) + " only") != std::string::npos);
        CHECK(r.message.find("generate it again with: pythia tb generate KRvK --dir ") != std::string::npos);
    }

    // A bit flipped in the payload (a compressed block), then in the header's symbol tables.
    for (size_t at : {size_t(h.header_size) + (good.size() - h.header_size) / 2, good.size() - 1}) {
        bytes = good;
        bytes[at] ^= 0x04;
        r = try_file("KRvK.pytd", bytes, KRVK_FEN);
        CHECK(r.message.find("checksum mismatch in the data") != std::string::npos);
    }
    bytes = good;
    bytes[h.header_size - 1] ^= 0x01;  // header padding, covered by the header checksum
    r = try_file("KRvK.pytd", bytes, KRVK_FEN);
    CHECK(r.message.find("header checksum mismatch") != std::string::npos);
    bytes = good;
    bytes[sizeof(FileHeader) + 3] ^= 0x01;  // a section descriptor
    r = try_file("KRvK.pytd", bytes, KRVK_FEN);
    CHECK(r.message.find("header checksum mismatch") != std::string::npos);
}

TEST_CASE("a table whose material does not match its name is refused", "[tb][badfiles]") {
    const auto krvk = read_bytes(test::test_tables_dir() / "KRvK.pytw");
    Refusal r = try_file("KQvK.pytw", krvk, "8/8/8/8/8/2k5/8/K6Q b - - 0 1");
    CHECK(r.refused);
    CHECK(r.message.find("holds table KRvK, not KQvK") != std::string::npos);
    // A WDL file under the DTM/DTZ file's name.
    r = try_file("KRvK.pytd", krvk, KRVK_FEN);
    CHECK(r.message.find("not the DTM/DTZ") != std::string::npos);
}

TEST_CASE("the loader and the validity check name the file and the problem", "[tb][badfiles]") {
    const fs::path dir = test::scratch_dir("loader");
    test::copy_table_file("KRvK.pytw", dir);
    const auto bytes = read_bytes(test::test_tables_dir() / "KRvK.pytd");
    REQUIRE(bytes.size() > 100);
    write_bytes(dir / "KRvK.pytd", std::vector<uint8_t>(bytes.begin(), bytes.end() - 100));
    std::string error;
    const Material m = *Material::parse("KRvK");
    CHECK_FALSE(table_files_valid(dir, m, &error));
    CHECK(error.find((dir / "KRvK.pytd").string() + ": truncated") == 0);
    error.clear();
    CHECK(load_table_values(dir, m, &error) == nullptr);
    CHECK(error.find((dir / "KRvK.pytd").string() + ": truncated") == 0);
}

TEST_CASE("changed header fields with valid checksums never make the reader stray", "[tb][badfiles]") {
    // Every byte of the header of a real file set to other values, the checksums made to match:
    // each variant is refused or, if its fields still make sense, probed without a crash.
    for (const char* name : {"KRvK.pytw", "KRvK.pytd"}) {
        const auto good = read_bytes(test::test_tables_dir() / name);
        const FileHeader h = header_of(good);
        int refused = 0, opened = 0;
        const fs::path dir = test::scratch_dir("fuzz");
        for (size_t at = sizeof h.magic; at < h.header_size; ++at) {
            if (at >= offsetof(FileHeader, payload_hash) && at < offsetof(FileHeader, stats_offset)) continue;
            for (int change : {0x01, 0x80, 0xFF}) {
                auto bytes = good;
                bytes[at] ^= uint8_t(change);
                fix_checksums(bytes);
                write_bytes(dir / name, bytes);
                Tablebases tbs;
                tbs.set_paths(dir.string());
                probe_many(tbs);
                tbs.refused_files().empty() ? ++opened : ++refused;
            }
        }
        INFO(name << ": " << refused << " refused, " << opened << " opened");
        CHECK(refused > 100);
    }
}

TEST_CASE("changed payload bytes with valid checksums never make the reader stray", "[tb][badfiles]") {
    // Block offsets, dictionaries, LZ4 data and pair tables and blocks changed at random: the
    // reader validates every offset and table at load and checks every LZ4 result and pair
    // code, so probes fail or answer, never crash.
    std::mt19937_64 rng(7);
    const fs::path dir = test::scratch_dir("fuzz-payload");
    for (const char* sub : {"KQvK.pytw", "KQvK.pytd", "KRvK.pytw", "KRvK.pytd"}) test::copy_table_file(sub, dir);
    // A DTM/DTZ file in the pair codec too.
    const fs::path pairs_dir = test::scratch_dir("fuzz-payload-pairs");
    test::copy_table_file("KQvKR.pytw", pairs_dir);
    test::copy_table_file("KQvKR.pytd", pairs_dir);
    const std::vector<std::pair<std::string, std::vector<uint8_t>>> files = {
        {"KQvKR.pytw", read_bytes(test::test_tables_dir() / "KQvKR.pytw")},
        {"KQvKR.pytd", read_bytes(test::test_tables_dir() / "KQvKR.pytd")},
        {"KQvKR.pytd", read_bytes(pairs_dir / "KQvKR.pytd")}};
    int refused = 0;
    for (const auto& [name, good] : files) {
        const FileHeader h = header_of(good);
        for (int trial = 0; trial < 60; ++trial) {
            auto bytes = good;
            for (int k = 0; k < 1 + trial % 8; ++k) {
                // Half of the changes hit the first kilobytes of the payload (offset tables).
                const size_t span =
                    trial % 2 ? std::min<size_t>(4096, bytes.size() - h.header_size) : bytes.size() - h.header_size;
                bytes[h.header_size + rng() % span] ^= uint8_t(1 + rng() % 255);
            }
            fix_checksums(bytes);
            write_bytes(dir / name, bytes);
            auto probe_all = [](const Tablebases& tbs) {
                for (const char* fen : {"8/8/8/8/8/2k5/3r4/K6Q w - - 0 1", "8/8/8/8/8/2k5/3r4/K6Q b - - 0 1",
                                        "q7/8/8/8/8/2K5/3R4/k7 w - - 0 1", "8/3k4/8/8/2r5/8/5Q2/K7 b - - 0 1"}) {
                    const Position pos = test::position(fen);
                    (void)tbs.probe(pos);
                    (void)tbs.probe_wdl(pos);
                    (void)tbs.rank_root_moves(pos);
                }
            };
            // WDL read from the pair blocks at each probe, as for large tables (a small table's
            // WDL is decoded whole at open, where any bad block is refused).
            Tablebases direct;
            direct.set_resident_wdl_budget(0);
            direct.set_paths(dir.string());
            probe_all(direct);
            Tablebases tbs;
            tbs.set_paths(dir.string());
            probe_all(tbs);
            refused += !tbs.refused_files().empty();
            // The intact subtables still answer.
            CHECK(tbs.probe_wdl(test::position("8/8/8/8/8/2k5/8/K6Q b - - 0 1")) == -2);
        }
        std::error_code ec;
        fs::remove(dir / name, ec);
    }
    // Changed offsets are refused at load, changed blocks when they are decoded.
    CHECK(refused > 10);
}

TEST_CASE("an empty folder holds no tables, and nothing is refused", "[tb][badfiles]") {
    const fs::path dir = test::scratch_dir("empty");
    Tablebases tbs;
    const auto messages = tbs.set_paths(dir.string());
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("0 WDL and 0 DTM/DTZ tables") != std::string::npos);
    CHECK(tbs.num_tables() == 0);
    CHECK(tbs.max_pieces() == 0);
    const Position pos = test::position(KRVK_FEN);
    CHECK(tbs.probe_wdl(pos) == std::nullopt);
    CHECK(tbs.probe(pos) == std::nullopt);
    CHECK(tbs.rank_root_moves(pos) == std::nullopt);
    CHECK(tbs.refused_files().empty());
    // Files that are not tables are not tables: ignored, whatever their content.
    write_bytes(dir / "README.txt", {'h', 'i'});
    write_bytes(dir / "KRvK.pytw.part", read_bytes(test::test_tables_dir() / "KRvK.pytw"));
    write_bytes(dir / "KXvK.pytw", {1, 2, 3});
    tbs.set_paths(dir.string());
    CHECK(tbs.num_tables() == 0);
    CHECK(tbs.probe_wdl(pos) == std::nullopt);
    CHECK(tbs.refused_files().empty());
}

TEST_CASE("a table renamed to another material with more pieces or pawns is refused", "[tb][badfiles]") {
    const auto krvk_wdl = read_bytes(test::test_tables_dir() / "KRvK.pytw");
    const auto krvk_dtm = read_bytes(test::test_tables_dir() / "KRvK.pytd");
    struct Case {
        const char* name;
        const std::vector<uint8_t>& bytes;
        const char* fen;
    };
    for (const Case& c : {Case{"KQvKR.pytw", krvk_wdl, "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1"},
                          Case{"KPvK.pytw", krvk_wdl, "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1"},
                          Case{"KPvK.pytd", krvk_dtm, "8/8/4k3/8/8/4K3/4P3/8 w - - 0 1"},
                          Case{"KQvKR.pytd", krvk_dtm, "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1"}}) {
        INFO(c.name);
        Refusal r = try_file(c.name, c.bytes, c.fen);
        CHECK(r.refused);
        CHECK(r.message.find("holds table KRvK") != std::string::npos);
    }
}

TEST_CASE("an unreadable table file is refused with one message, the others still answer", "[tb][badfiles]") {
    const fs::path dir = test::scratch_dir("unreadable");
    test::copy_table_file("KQvK.pytw", dir);
    test::copy_table_file("KQvK.pytd", dir);
    const Position krvk = test::position(KRVK_FEN), kqvk = test::position("8/8/8/8/8/2k5/8/K6Q b - - 0 1");

    // A folder where the file should be (root can read every file, but never map a folder).
    fs::create_directory(dir / "KRvK.pytw");
    Tablebases tbs;
    tbs.set_paths(dir.string());
    CHECK(tbs.probe_wdl(krvk) == std::nullopt);
    CHECK(tbs.probe(krvk) == std::nullopt);
    CHECK(tbs.probe_wdl(kqvk) == -2);
    auto refused = tbs.refused_files();
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].find((dir / "KRvK.pytw").string() + ": ") == 0);
    fs::remove(dir / "KRvK.pytw");

    // A file without read permission: refused likewise (not testable as root, who reads it).
    test::copy_table_file("KRvK.pytw", dir);
    fs::permissions(dir / "KRvK.pytw", fs::perms::none);
    if (geteuid() == 0) {
        WARN("running as root: a file without read permission is still readable, that part is skipped");
    } else {
        tbs.set_paths(dir.string());
        CHECK(tbs.probe_wdl(krvk) == std::nullopt);
        CHECK(tbs.probe_wdl(kqvk) == -2);
        refused = tbs.refused_files();
        REQUIRE(refused.size() == 1);
        CHECK(refused[0].find((dir / "KRvK.pytw").string() + ": ") == 0);
        CHECK(refused[0].find("ermission") != std::string::npos);
    }
    fs::permissions(dir / "KRvK.pytw", fs::perms::owner_read | fs::perms::owner_write);
}
