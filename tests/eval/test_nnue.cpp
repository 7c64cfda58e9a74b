// The network: the incremental accumulator against a full refresh over random games, the net
// file's checks (good, corrupt, truncated, wrong size), and the datagen records.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

#include "engine/core/movegen.h"
#include "engine/core/random_position.h"
#include "engine/uci/bench.h"
#include "eval/nnue/accumulator.h"
#include "eval/nnue/active_network.h"
#include "eval/nnue/evaluate_nnue.h"
#include "eval/nnue/network_file.h"
#include "eval/nnue/packed_position.h"
#include "test_mode.h"

using namespace pythia;
using namespace pythia::nnue;

namespace {

// The shapes the inference takes: the plain net of the embedded one's width, and nets with king
// buckets (mirrored or not) of other widths.
struct Shape {
    int hidden, king_buckets;
    bool mirrored;
};
constexpr Shape PLAIN{128, 1, false};
constexpr Shape SHAPES[] = {PLAIN, {256, 4, true}, {64, 32, false}, {32, 1, true}};

// A network of random weights, small enough that no int16 sum wraps, and a random king buckets
// table that uses every bucket.
std::unique_ptr<Network> random_network(uint64_t seed, Shape shape = PLAIN) {
    std::mt19937_64 rng(seed);
    auto net = std::make_unique<Network>(Network::of_shape(shape.hidden, shape.king_buckets, shape.mirrored));
    std::uniform_int_distribution<int> feature(-200, 200), output(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT);
    for (int16_t& w : net->feature_weights) w = int16_t(feature(rng));
    for (int16_t& w : net->feature_bias) w = int16_t(feature(rng));
    for (int16_t& w : net->output_weights) w = int16_t(output(rng));
    net->output_bias = int16_t(feature(rng));
    for (int sq = 0; sq < SQUARE_NB; ++sq)
        net->bucket_of[sq] = uint8_t(sq < shape.king_buckets ? sq : rng() % uint64_t(shape.king_buckets));
    std::shuffle(net->bucket_of.begin(), net->bucket_of.end(), rng);
    return net;
}

// A folder of its own for one test process (the release and sanitize runs may overlap).
std::filesystem::path scratch_dir(const std::string& name) {
    return std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()));
}

bool equal(const Accumulator& a, const Accumulator& b, int hidden) {
    for (Color c : {WHITE, BLACK})
        if (!std::equal(a.values[c], a.values[c] + hidden, b.values[c])) return false;
    return true;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// Positions rich in castling, en passant, promotions and captures.
const char* const START_FENS[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
};

// pos with every square s moved to s ^ flip (56: top to bottom, 7: left to right), the colours
// exchanged when asked, `side` to move and no castling or en passant rights.
Position transformed(const Position& pos, int flip, bool swap_colours, const std::string& side) {
    char squares[64] = {};
    const char* letters = " PNBRQK  pnbrqk ";
    for (Bitboard b = pos.pieces(); b;) {
        const Square s = pop_lsb(b);
        const Piece p = pos.piece_on(s);
        squares[s ^ flip] = letters[swap_colours ? make_piece(~color_of(p), type_of(p)) : p];
    }
    Position out;
    REQUIRE(out.set_fen(placement_fen(squares) + " " + side + " - - 0 1"));
    return out;
}

struct MoveKinds {
    int captures = 0, promotions = 0, castlings = 0, en_passants = 0, nulls = 0, undos = 0, view_changes = 0;
};

}  // namespace

TEST_CASE("nnue: the incremental accumulator equals a full refresh over random games, in every shape", "[nnue]") {
    for (const Shape shape : SHAPES) {
        INFO("hidden " << shape.hidden << ", king buckets " << shape.king_buckets << ", mirrored " << shape.mirrored);
        const auto net = random_network(1, shape);
        std::mt19937_64 rng(2);
        AccumulatorStack stack;
        MoveKinds seen;
        const int games = test::light_mode() ? 40 : 200;
        int checked = 0;
        for (int g = 0; g < games; ++g) {
            Position pos;
            REQUIRE(pos.set_fen(START_FENS[g % std::size(START_FENS)]));
            stack.reset();
            int depth = 0;  // moves on the stack (so that undos stay within the game)
            std::vector<bool> was_null;
            for (int ply = 0; ply < 120; ++ply) {
                // Sometimes go back a move, so that the lazy stack recomputes from below.
                if (depth > 0 && rng() % 6 == 0) {
                    if (was_null.back())
                        pos.undo_null_move();
                    else
                        pos.undo_move();
                    stack.pop();
                    was_null.pop_back();
                    --depth;
                    ++seen.undos;
                } else if (!pos.in_check() && rng() % 12 == 0) {
                    stack.push_null();
                    pos.do_null_move();
                    was_null.push_back(true);
                    ++depth;
                    ++seen.nulls;
                } else {
                    MoveList moves(pos);
                    if (moves.empty()) break;
                    // Prefer the rare kinds of move, so that each is met many times.
                    std::vector<Move> special;
                    for (Move m : moves)
                        if (m.kind() != Move::NORMAL || pos.is_capture(m)) special.push_back(m);
                    const Move m = !special.empty() && rng() % 2 ? special[rng() % special.size()]
                                                                 : moves[int(rng() % uint64_t(moves.size()))];
                    seen.captures += pos.is_capture(m);
                    seen.promotions += m.kind() == Move::PROMOTION;
                    seen.castlings += m.kind() == Move::CASTLING;
                    seen.en_passants += m.kind() == Move::EN_PASSANT;
                    const Color us = pos.side_to_move();
                    const View before = net->view(us, pos.king_square(us));
                    stack.push(pos, m);
                    pos.do_move(m);
                    seen.view_changes += !(net->view(us, pos.king_square(us)) == before);
                    was_null.push_back(false);
                    ++depth;
                }
                // Evaluate only some positions, as the search does, so that updates chain.
                if (rng() % 3 == 0) {
                    Accumulator fresh;
                    refresh(*net, pos, WHITE, fresh);
                    refresh(*net, pos, BLACK, fresh);
                    REQUIRE(equal(stack.current(*net, pos), fresh, net->hidden));
                    REQUIRE(evaluate(*net, pos, stack) == evaluate_from_scratch(*net, pos));
                    ++checked;
                }
            }
        }
        INFO("captures " << seen.captures << ", promotions " << seen.promotions << ", castlings " << seen.castlings
                         << ", en passant " << seen.en_passants << ", null moves " << seen.nulls << ", undos "
                         << seen.undos << ", view changes " << seen.view_changes << ", checks " << checked);
        CHECK(seen.captures > 100);
        CHECK(seen.promotions > 20);
        CHECK(seen.castlings > 10);
        CHECK(seen.en_passants > 5);
        CHECK(seen.nulls > 20);
        CHECK(checked > 1000);
        if (shape.king_buckets > 1 || shape.mirrored) CHECK(seen.view_changes > 50);
    }
}

TEST_CASE("nnue: the evaluation is the side to move's and mirrors with the colours", "[nnue]") {
    for (const Shape shape : SHAPES) {
        const auto net = random_network(3, shape);
        Position white;
        REQUIRE(white.set_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1"));
        // The same position with colours exchanged and the board mirrored: the side to move sees the same.
        const Position black = transformed(white, 56, true, "b");
        CHECK(evaluate_from_scratch(*net, white) == evaluate_from_scratch(*net, black));
        CHECK(evaluate_from_scratch(*net, white) != 0);
    }
}

TEST_CASE("nnue: a mirrored net sees a position and its left-right mirror alike", "[nnue]") {
    // Without castling rights the mirror is the same game; a mirrored net cannot tell them apart.
    const auto net = random_network(7, {64, 4, true});
    Position pos;
    REQUIRE(pos.set_fen("r5k1/p1p2pb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/3RK2R w - - 0 1"));
    const Position mirrored = transformed(pos, 7, false, "w");
    CHECK(evaluate_from_scratch(*net, pos) == evaluate_from_scratch(*net, mirrored));
    // An unmirrored net of king buckets has no such symmetry.
    const auto plain = random_network(7, {64, 4, false});
    CHECK(evaluate_from_scratch(*plain, pos) != evaluate_from_scratch(*plain, mirrored));
}

TEST_CASE("nnue: a good net file of every shape loads and evaluates as the network it was written from", "[nnue]") {
    for (const Shape shape : SHAPES) {
        const auto net = random_network(4, shape);
        const std::string file = serialize_network(*net);
        const bool bucketed = shape.king_buckets > 1 || shape.mirrored;
        REQUIRE(file.size() == net_file_bytes(shape.hidden, shape.king_buckets, bucketed));
        CHECK(uint8_t(file[8]) == (bucketed ? NET_FORMAT_BUCKETED : NET_FORMAT_PLAIN));
        std::string error;
        const auto loaded = parse_network(bytes_of(file), error);
        REQUIRE(loaded);
        CHECK(error.empty());
        CHECK(loaded->hidden == shape.hidden);
        CHECK(loaded->king_buckets == shape.king_buckets);
        CHECK(loaded->mirrored == shape.mirrored);
        CHECK(serialize_network(*loaded) == file);
        for (const char* fen : START_FENS) {
            Position pos;
            REQUIRE(pos.set_fen(fen));
            CHECK(evaluate_from_scratch(*loaded, pos) == evaluate_from_scratch(*net, pos));
        }
    }
}

TEST_CASE("nnue: corrupt, truncated and wrong-size net files are refused with a reason", "[nnue]") {
    const auto net = random_network(5);
    const std::string good = serialize_network(*net);
    std::string error;
    auto refused = [&error](const std::string& bytes) {
        error.clear();
        const bool none = parse_network(bytes_of(bytes), error) == nullptr;
        return none && !error.empty();
    };

    std::string corrupt = good;
    corrupt[NET_HEADER_BYTES + 1000] ^= 0x10;
    CHECK(refused(corrupt));
    CHECK(error.find("checksum") != std::string::npos);

    CHECK(refused(good.substr(0, good.size() - 2)));
    CHECK(error.find("truncated") != std::string::npos);
    CHECK(refused(good.substr(0, 20)));
    CHECK(refused(""));
    CHECK(refused(good + "xx"));
    CHECK(error.find("bytes") != std::string::npos);

    auto with_field = [&good](size_t offset, uint32_t v) {
        std::string bytes = good;
        std::memcpy(bytes.data() + offset, &v, sizeof v);
        return bytes;
    };
    CHECK(refused(with_field(16, 100)));  // a width the SIMD kernels cannot take
    CHECK(error.find("hidden") != std::string::npos);
    CHECK(refused(with_field(16, 2048)));
    CHECK(error.find("hidden") != std::string::npos);
    CHECK(refused(with_field(16, 256)));  // another valid width: the length is wrong for it
    CHECK(error.find("bytes") != std::string::npos);
    CHECK(refused(with_field(12, 2 * 768)));  // version 1 has no king buckets
    CHECK(error.find("inputs") != std::string::npos);
    CHECK(refused(with_field(36, 1)));  // version 1 has no flags
    CHECK(error.find("reserved") != std::string::npos);

    // Version 2: a king buckets table naming a bucket the net has no inputs for, unknown flags.
    const auto bucketed = random_network(8, {32, 2, true});
    std::string beyond = serialize_network(*bucketed);
    beyond[NET_HEADER_BYTES + 5] = 2;
    const uint64_t hash = XXH64(beyond.data() + NET_HEADER_BYTES, beyond.size() - NET_HEADER_BYTES, 0);
    std::memcpy(beyond.data() + 40, &hash, sizeof hash);
    CHECK(refused(beyond));
    CHECK(error.find("bucket 2 of 2") != std::string::npos);
    std::string flags = serialize_network(*bucketed);
    flags[36] = 3;
    CHECK(refused(flags));
    CHECK(error.find("flags") != std::string::npos);

    std::string version = good;
    version[8] = 99;
    CHECK(refused(version));
    CHECK(error.find("version") != std::string::npos);

    std::string magic = good;
    magic[0] = 'X';
    CHECK(refused(magic));
    CHECK(error.find("PYTHNNUE") != std::string::npos);

    // An output weight the SIMD SCReLU cannot take, with a valid checksum.
    Network bad = *net;
    bad.output_weights[3] = OUTPUT_WEIGHT_LIMIT + 1;
    CHECK(refused(serialize_network(bad)));
    CHECK(error.find("output weight") != std::string::npos);
}

TEST_CASE("nnue: a refused EvalFile leaves the active evaluation as it was", "[nnue]") {
    const std::filesystem::path dir = scratch_dir("pythia-nnue-test");
    std::filesystem::create_directories(dir);
    const auto net = random_network(6);
    const std::string good = serialize_network(*net);
    auto write = [&dir](const std::string& name, const std::string& bytes) {
        std::ofstream(dir / name, std::ios::binary) << bytes;
        return (dir / name).string();
    };
    std::string error;
    REQUIRE(use_embedded_network(error));
    const Network* before = active_network();
    const std::string name_before = active_network_name();

    CHECK_FALSE(load_eval_file(write("truncated.nnue", good.substr(0, good.size() / 2)), error));
    CHECK(error.find("truncated") != std::string::npos);
    CHECK_FALSE(load_eval_file((dir / "missing.nnue").string(), error));
    CHECK(error.find("cannot open") != std::string::npos);
    CHECK(active_network() == before);
    CHECK(active_network_name() == name_before);

    const std::string good_path = write("good.nnue", good);
    REQUIRE(load_eval_file(good_path, error));
    REQUIRE(active_network());
    CHECK(active_network_name() == good_path);
    Position pos;
    CHECK(evaluate_from_scratch(*active_network(), pos) == evaluate_from_scratch(*net, pos));
    const Network* loaded = active_network();
    std::string corrupt = good;
    corrupt.back() ^= 1;
    CHECK_FALSE(load_eval_file(write("corrupt.nnue", corrupt), error));
    CHECK(active_network() == loaded);  // still the good file's

    REQUIRE(use_embedded_network(error));  // back to the build's default for the other tests
    CHECK(active_network_name() == name_before);
    std::filesystem::remove_all(dir);
}

TEST_CASE("nnue: packed positions round-trip", "[nnue][datagen]") {
    std::mt19937_64 rng(7);
    int packed = 0;
    for (const char* fen : START_FENS) {
        Position pos;
        REQUIRE(pos.set_fen(fen));
        for (int ply = 0; ply < 60; ++ply) {
            MoveList moves(pos);
            if (moves.empty()) break;
            pos.do_move(moves[int(rng() % uint64_t(moves.size()))]);
            const int score = int(rng() % 4001) - 2000;
            const auto result = GameResult(rng() % 3);
            const PackedPosition r = pack_position(pos, score, result, uint32_t(ply * 1000));
            const auto back = unpack_position(r);
            REQUIRE(back);
            // Board and side to move are kept; rights and clocks are not.
            const std::string fen_in = pos.fen(), fen_out = back->fen();
            CHECK(fen_in.substr(0, fen_in.find(' ', fen_in.find(' ') + 1)) ==
                  fen_out.substr(0, fen_out.find(' ', fen_out.find(' ') + 1)));
            CHECK(r.score == score);
            CHECK(r.result == uint8_t(result));
            CHECK(r.game == uint32_t(ply * 1000));
            ++packed;
        }
    }
    CHECK(packed > 100);
    PackedPosition broken{};
    broken.occupancy = 1;  // one square, nibble 0: no piece
    CHECK_FALSE(unpack_position(broken));
}

namespace {

std::vector<PackedPosition> read_records(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<PackedPosition> out;
    PackedPosition r;
    while (in.read(reinterpret_cast<char*>(&r), sizeof r)) out.push_back(r);
    return out;
}

int run(const std::string& args) {
    const std::string command = std::string(PYTHIA_BINARY) + " datagen " + args + " 2>/dev/null";
    return std::system(command.c_str());
}

}  // namespace

TEST_CASE("nnue: datagen writes legal, labelled positions, deterministically and resumably", "[nnue][datagen]") {
    const std::filesystem::path dir = scratch_dir("pythia-datagen-test");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string once = (dir / "once.bin").string(), twice = (dir / "twice.bin").string();
    REQUIRE(run("--out " + once + " --games 3 --nodes 300 --seed 11") == 0);
    // The same games in two runs: the second resumes after the first's last game.
    REQUIRE(run("--out " + twice + " --games 1 --nodes 300 --seed 11") == 0);
    REQUIRE(run("--out " + twice + " --games 3 --nodes 300 --seed 11") == 0);

    const auto records = read_records(once);
    REQUIRE(records.size() > 20);
    CHECK(std::filesystem::file_size(once) == records.size() * sizeof(PackedPosition));
    CHECK(read_records(twice).size() == records.size());
    std::ifstream a(once, std::ios::binary), b(twice, std::ios::binary);
    std::stringstream sa, sb;
    sa << a.rdbuf();
    sb << b.rdbuf();
    CHECK(sa.str() == sb.str());

    std::vector<int> result_of_game(3, -1);
    for (const PackedPosition& r : records) {
        const auto pos = unpack_position(r);
        REQUIRE(pos);
        CHECK_FALSE(pos->in_check());
        REQUIRE(r.game < 3);
        REQUIRE(r.result <= 2);
        if (result_of_game[r.game] < 0) result_of_game[r.game] = r.result;
        CHECK(result_of_game[r.game] == r.result);  // one result for a whole game
        CHECK(std::abs(r.score) < 30000);           // no mate scores: those end the game
    }
    for (int g = 0; g < 3; ++g) CHECK(result_of_game[g] >= 0);

    CHECK(run("--out " + once) == 2 * 256);  // usage error: no --games or --positions
    CHECK(run("--games 1") == 2 * 256);      // no --out
    std::filesystem::remove_all(dir);
}

TEST_CASE("nnue: the UCI EvalFile option refuses a bad file with an info string and plays on", "[nnue][uci]") {
    const std::filesystem::path dir = scratch_dir("pythia-evalfile-test");
    std::filesystem::create_directories(dir);
    const std::string good = serialize_network(*random_network(8));
    const std::string bad_path = (dir / "truncated.nnue").string(), good_path = (dir / "good.nnue").string();
    std::ofstream(bad_path, std::ios::binary) << good.substr(0, 1000);
    std::ofstream(good_path, std::ios::binary) << good;
    const std::string script = "uci\nsetoption name EvalFile value " + bad_path +
                               "\neval\nsetoption name EvalFile value " + good_path + "\neval\ngo depth 3\n" +
                               "setoption name EvalFile value <hand-written>\neval\nquit\n";
    const std::string command = "printf '" + script + "' | " + PYTHIA_BINARY + " 2>/dev/null";
    FILE* p = popen(command.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, p)) out.append(buffer, n);
    pclose(p);
    INFO(out);
    CHECK(out.find("option name EvalFile type string default <embedded>") != std::string::npos);
    CHECK(out.find("info string EvalFile '" + bad_path + "' refused: net file is 1000 bytes") != std::string::npos);
    CHECK(out.find("info string evaluation: " + good_path) != std::string::npos);
    CHECK(out.find("network evaluation") != std::string::npos);
    CHECK(out.find("bestmove ") != std::string::npos);
    // <hand-written> leaves the network: the last eval shows no network evaluation.
    const size_t hand_written = out.find("info string evaluation: hand-written evaluation");
    CHECK(hand_written != std::string::npos);
    CHECK(out.find("network evaluation", hand_written) == std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("nnue: the SIMD and the portable kernels give the same evaluations", "[nnue]") {
    // The release build runs the AVX2 kernels, the debug and sanitize builds the portable ones:
    // both must reach this sum of a fixed random network's evaluations of the bench positions.
    constexpr int64_t EXPECTED_SUM = 38654;
    const auto net = random_network(9);
    int64_t sum = 0;
    for (std::string_view fen : bench_positions()) {
        Position pos;
        REQUIRE(pos.set_fen(fen));
        sum += evaluate_from_scratch(*net, pos);
    }
    CHECK(sum == EXPECTED_SUM);
}
