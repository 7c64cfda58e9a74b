// The engine's way of opening DTM/DTZ files: a file above the size limit is opened (checksummed
// whole) by a background thread on its first probe, and the probes answer WDL only until then,
// so that a search never stalls on a large file. A corrupt file is still refused, once.
#include <catch2/catch.hpp>

#include "engine/core/mapped_file.h"
#include "tablebase/format/file_format.h"
#include "tablebase/probe/background_worker.h"
#include "tablebase/probe/tablebases.h"
#include "tb_test_tables.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

const char* KQVKR_FEN = "8/8/8/8/8/2k5/3r4/K6Q w - - 0 1";

fs::path folder_with(const std::string& name, const std::vector<std::string>& tables) {
    const fs::path dir = test::scratch_dir(name);
    for (const std::string& t : tables) {
        test::copy_table_file(t + WDL_EXTENSION, dir);
        test::copy_table_file(t + DISTANCE_EXTENSION, dir);
    }
    return dir;
}

}  // namespace

TEST_CASE("background worker: tasks run in order, stop drops the queued ones", "[tb][background]") {
    BackgroundWorker worker;
    std::vector<int> ran;
    for (int i = 0; i < 5; ++i) worker.post([&ran, i](const std::atomic<bool>&) { ran.push_back(i); });
    worker.wait_idle();
    CHECK(ran == std::vector<int>{0, 1, 2, 3, 4});

    // A task that waits for its cancellation: stop() cancels it and drops the one behind it.
    std::atomic<bool> started{false};
    worker.post([&started](const std::atomic<bool>& cancel) {
        started = true;
        while (!cancel.load()) std::this_thread::yield();
    });
    worker.post([&ran](const std::atomic<bool>&) { ran.push_back(99); });
    while (!started.load()) std::this_thread::yield();
    worker.stop();
    CHECK(ran.size() == 5);
    // Usable again after a stop.
    worker.post([&ran](const std::atomic<bool>&) { ran.push_back(5); });
    worker.wait_idle();
    CHECK(ran.back() == 5);
}

TEST_CASE("a large DTM/DTZ file opens in the background, WDL answers meanwhile", "[tb][background]") {
    const fs::path dir = folder_with("background", {"KQvKR", "KQvK", "KRvK"});
    const Position pos = test::position(KQVKR_FEN);
    Tablebases waiting;  // the tools' way: the file is opened at the first probe
    waiting.set_paths(dir.string());
    const auto expected = waiting.probe(pos);
    REQUIRE(expected);
    REQUIRE(expected->dtm);

    Tablebases engine;
    engine.open_distance_files_in_background(true, 0, false);  // every file counts as large and cold
    engine.set_paths(dir.string());
    const auto first = engine.probe(pos);
    REQUIRE(first);
    CHECK(first->wdl == expected->wdl);
    CHECK(!first->dtm);  // not open yet: its opening was only posted
    CHECK(!first->dtz);
    engine.wait_for_background_opening();
    const auto later = engine.probe(pos);
    REQUIRE(later);
    CHECK(later->dtm == expected->dtm);
    CHECK(later->dtz == expected->dtz);
    const auto ranked = engine.rank_root_moves(pos);
    REQUIRE(ranked);
    const auto ranked_expected = waiting.rank_root_moves(pos);
    REQUIRE(ranked_expected);
    REQUIRE(ranked->size() == ranked_expected->size());
    for (size_t i = 0; i < ranked->size(); ++i) CHECK((*ranked)[i].dtm == (*ranked_expected)[i].dtm);
    CHECK(engine.refused_files().empty());

    // Below the size limit a file is opened at once, as the tools do.
    Tablebases small_first;
    small_first.open_distance_files_in_background(true, uint64_t(1) << 40);
    small_first.set_paths(dir.string());
    const auto at_once = small_first.probe(pos);
    REQUIRE(at_once);
    CHECK(at_once->dtm == expected->dtm);

    // So is a large one that is in the page cache (it was just read above).
    MappedFile file;
    REQUIRE(file.open((dir / (std::string("KQvKR") + DISTANCE_EXTENSION)).string()));
    REQUIRE(file.resident_fraction() >= 0.9);
    Tablebases cached;
    cached.open_distance_files_in_background(true, 0, true);
    cached.set_paths(dir.string());
    const auto cached_answer = cached.probe(pos);
    REQUIRE(cached_answer);
    CHECK(cached_answer->dtm == expected->dtm);
}

TEST_CASE("a corrupt DTM/DTZ file opened in the background is refused once", "[tb][background]") {
    const fs::path dir = folder_with("background-bad", {"KQvKR", "KQvK", "KRvK"});
    const fs::path bad = dir / (std::string("KQvKR") + DISTANCE_EXTENSION);
    std::vector<uint8_t> bytes = test::read_bytes(bad);
    bytes[bytes.size() / 2] ^= 0x10;  // inside the payload
    test::write_bytes(bad, bytes);
    Tablebases engine;
    engine.open_distance_files_in_background(true, 0, false);
    engine.set_paths(dir.string());
    const Position pos = test::position(KQVKR_FEN);
    for (int i = 0; i < 3; ++i) {
        const auto r = engine.probe(pos);
        REQUIRE(r);  // WDL still answers
        CHECK(!r->dtm);
        engine.wait_for_background_opening();
    }
    const auto refused = engine.refused_files();
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].find(bad.string()) == 0);
    CHECK(refused[0].find("checksum mismatch") != std::string::npos);
}

TEST_CASE("changing the folders while files are being opened in the background is safe", "[tb][background]") {
    const fs::path dir = folder_with("background-switch", {"KQvKR", "KRvKR", "KQvK", "KRvK"});
    Tablebases engine;
    engine.open_distance_files_in_background(true, 0, false);
    for (int round = 0; round < 20; ++round) {
        engine.set_paths(dir.string());
        (void)engine.probe(test::position(KQVKR_FEN));
        (void)engine.probe(test::position("8/8/8/8/8/2k5/3r4/K6R w - - 0 1"));
    }
    engine.set_paths(dir.string());
    engine.wait_for_background_opening();
    CHECK(engine.refused_files().empty());
    (void)engine.probe(test::position(KQVKR_FEN));
    engine.wait_for_background_opening();
    const auto r = engine.probe(test::position(KQVKR_FEN));
    REQUIRE(r);
    CHECK(r->dtm);
}
