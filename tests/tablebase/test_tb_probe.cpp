// Probing positions: mirror images and colour-flipped twins agree, en passant rights are
// honoured, castling rights and too many pieces are out of scope, root moves are ranked by
// the tables (with the halfmove clock), and threads may probe at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <thread>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "tablebase/format/table_index.h"
#include "tablebase/probe/tablebases.h"
#include "tb_test_tables.h"

using namespace pythia;
using namespace pythia::tb;
namespace fs = std::filesystem;

namespace {

const Tablebases& tables() {
    static Tablebases tbs;
    static bool done = false;
    if (!done) {
        tbs.set_paths(test::test_tables_dir().string());
        done = true;
    }
    return tbs;
}

std::string fen_of(const std::vector<PieceOn>& pieces, Color stm, const std::string& ep = "-") {
    char board[64] = {};
    for (const PieceOn& p : pieces) {
        const char letter = " PNBRQK"[p.type];
        board[p.square] = p.color == WHITE ? letter : char(letter + 32);
    }
    std::string fen;
    for (int rank = 7; rank >= 0; --rank) {
        for (int file = 0; file < 8; ++file) fen += board[rank * 8 + file] ? board[rank * 8 + file] : '1';
        if (rank) fen += '/';
    }
    return fen + (stm == WHITE ? " w - " : " b - ") + ep + " 0 1";
}

// A random legal position of material m (as a piece list), or false.
bool random_pieces(const Material& m, std::mt19937_64& rng, std::vector<PieceOn>& pieces, Color& stm) {
    for (int attempt = 0; attempt < 200; ++attempt) {
        pieces.clear();
        Bitboard used = 0;
        bool ok = true;
        for (Color c : {WHITE, BLACK})
            for (int pt = PAWN; pt <= KING; ++pt)
                for (int k = 0; k < m.count(c, PieceType(pt)); ++k) {
                    const Square s = Square(rng() % 64);
                    if ((used & square_bb(s)) || (pt == PAWN && (rank_of(s) == 0 || rank_of(s) == 7))) ok = false;
                    used |= square_bb(s);
                    pieces.push_back({c, PieceType(pt), s});
                }
        stm = Color(rng() % 2);
        Position pos;
        if (ok && pos.set_fen(fen_of(pieces, stm))) return true;
    }
    return false;
}

bool same(const std::optional<ProbeResult>& a, const std::optional<ProbeResult>& b) {
    return a.has_value() == b.has_value() && (!a || (a->wdl == b->wdl && a->dtz == b->dtz && a->dtm == b->dtm));
}

std::string describe(const std::optional<ProbeResult>& r) {
    if (!r) return "none";
    return "wdl " + std::to_string(r->wdl) + " dtz " + (r->dtz ? std::to_string(signed_distance(*r->dtz)) : "?") +
           " dtm " + (r->dtm ? std::to_string(signed_distance(*r->dtm)) : "?");
}

// The value of a position from its moves, one ply down: what the prober must give for a
// position with an en passant right.
ProbeResult one_ply(const Position& root) {
    Position pos = root;
    ProbeResult best{-3, VALUE_UNKNOWN, VALUE_UNKNOWN};
    auto dtm_rank = [](Value v) {
        return is_win(v) ? 100000 - distance_of(v) : is_loss(v) ? -100000 + distance_of(v) : 0;
    };
    auto dtz_rank = [](Value v) {
        return wdl_of_dtz(v) * 10000 + (is_win(v) ? -distance_of(v) : is_loss(v) ? distance_of(v) : 0);
    };
    bool first = true;
    for (Move m : MoveList(root)) {
        const bool zeroing = root.is_capture(m) || type_of(root.moved_piece(m)) == PAWN;
        pos.do_move(m);
        auto r = tables().probe(pos);
        pos.undo_move();
        REQUIRE(r);
        const Value dtm = dtm_of_move(*r->dtm), dtz = dtz_of_move(zeroing, r->wdl, *r->dtz);
        if (first || dtm_rank(dtm) > dtm_rank(*best.dtm)) best.dtm = dtm;
        if (first || dtz_rank(dtz) > dtz_rank(*best.dtz)) best.dtz = dtz;
        best.wdl = std::max(best.wdl, -r->wdl);
        first = false;
    }
    REQUIRE_FALSE(first);
    return best;
}

}  // namespace

TEST_CASE("mirror images and the colour-flipped twin give the same answers", "[tb][probe][symmetry]") {
    std::mt19937_64 rng(11);
    for (const char* name : {"KQvKR", "KBNvK", "KRvKR", "KPvK", "KPvKP", "KNvKP", "KBBvK", "KQvKQ"}) {
        INFO(name);
        const Material m = *Material::parse(name);
        int checked = 0;
        for (int k = 0; k < 300; ++k) {
            std::vector<PieceOn> pieces;
            Color stm;
            REQUIRE(random_pieces(m, rng, pieces, stm));
            const Position pos = test::position(fen_of(pieces, stm));
            const auto want = tables().probe(pos);
            REQUIRE(want);
            INFO(pos.fen() << ": " << describe(want));
            // The board symmetries: all eight without pawns, the file mirror with them.
            for (int t = 1; t < (m.has_pawns() ? 2 : 8); ++t) {
                std::vector<PieceOn> image = pieces;
                for (PieceOn& p : image) p.square = transform_square(p.square, t);
                const auto got = tables().probe(test::position(fen_of(image, stm)));
                INFO("transform " << t << ": " << describe(got));
                CHECK(same(got, want));
            }
            // Colours exchanged and the board turned: the same position for the other side.
            std::vector<PieceOn> twin = pieces;
            for (PieceOn& p : twin) p = {~p.color, p.type, flip_rank(p.square)};
            const Position twin_pos = test::position(fen_of(twin, ~stm));
            const auto got = tables().probe(twin_pos);
            INFO("colour flip " << twin_pos.fen() << ": " << describe(got));
            CHECK(same(got, want));
            CHECK(tables().probe_wdl(twin_pos) == want->wdl);
            CHECK(tables().probe_wdl(pos) == want->wdl);
            ++checked;
        }
        CHECK(checked == 300);
    }
    CHECK(tables().refused_files().empty());
}

TEST_CASE("a position with an en passant right is worth the better of the stored position and the capture",
          "[tb][probe][ep]") {
    std::mt19937_64 rng(5);
    int positions = 0, capture_matters = 0;
    for (int k = 0; k < 4000 && positions < 400; ++k) {
        // Black has just played a pawn two squares, next to a white pawn on the fifth rank
        // (and the mirror case for Black); the kings anywhere.
        const Color us = Color(k % 2);
        const int file = int(rng() % 8), side = rng() % 2 ? 1 : -1;
        if (file + side < 0 || file + side > 7) continue;
        const Square mine = make_square(file, us == WHITE ? 4 : 3);
        const Square theirs = make_square(file + side, us == WHITE ? 4 : 3);
        const Square ep = make_square(file + side, us == WHITE ? 5 : 2);
        std::vector<PieceOn> pieces = {{us, PAWN, mine}, {~us, PAWN, theirs}};
        pieces.push_back({WHITE, KING, Square(rng() % 64)});
        pieces.push_back({BLACK, KING, Square(rng() % 64)});
        Position pos;
        if (!pos.set_fen(fen_of(pieces, us, square_to_string(ep))) || pos.ep_square() == SQ_NONE) continue;
        bool ep_legal = false;
        for (Move m : MoveList(pos)) ep_legal |= m.kind() == Move::EN_PASSANT;
        if (!ep_legal) continue;
        ++positions;
        const auto got = tables().probe(pos);
        REQUIRE(got);
        const ProbeResult want = one_ply(pos);
        INFO(pos.fen() << ": " << describe(got) << ", from the moves " << describe(want));
        CHECK(got->wdl == want.wdl);
        CHECK(got->dtm == want.dtm);
        CHECK(got->dtz == want.dtz);
        CHECK(tables().probe_wdl(pos) == want.wdl);
        CHECK(tables().probe_dtm(pos) == want.dtm);
        CHECK(tables().probe_dtz(pos) == want.dtz);
        // The same board without the right is what the table stores.
        const auto without = tables().probe(test::position(fen_of(pieces, us)));
        REQUIRE(without);
        capture_matters += !same(got, without);
    }
    CHECK(positions >= 300);
    CHECK(capture_matters >= 10);  // the test does exercise the rule
}

TEST_CASE("positions with castling rights or too many pieces are out of scope", "[tb][probe]") {
    const Position castling = test::position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    CHECK(tables().probe_wdl(castling) == std::nullopt);
    CHECK(tables().probe(castling) == std::nullopt);
    CHECK(tables().probe_dtm(castling) == std::nullopt);
    CHECK(tables().rank_root_moves(castling) == std::nullopt);
    // Without the right the same board is in the tables.
    CHECK(tables().probe_wdl(test::position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")) == 2);
    CHECK(tables().probe_wdl(test::position("4k3/8/8/8/8/8/8/R3K2r w Q - 0 1")) == std::nullopt);

    REQUIRE(tables().max_pieces() == 4);
    const Position five = test::position("4k3/8/8/8/8/8/8/RN2K2r w - - 0 1");
    CHECK(tables().probe_wdl(five) == std::nullopt);
    CHECK(tables().rank_root_moves(five) == std::nullopt);
    // Two bare kings are a draw, tables or not.
    Tablebases none;
    auto kk = none.probe(test::position("8/8/8/4k3/8/8/8/4K3 w - - 0 1"));
    REQUIRE(kk);
    CHECK(kk->wdl == 0);
    CHECK(kk->dtm == VALUE_UNKNOWN);
}

TEST_CASE("root moves are ranked by the tables", "[tb][probe][root]") {
    std::mt19937_64 rng(3);
    int wins = 0;
    for (const char* name : {"KQvKR", "KRvK", "KPvKP", "KBNvK", "KRvKN"}) {
        const Material m = *Material::parse(name);
        for (int k = 0; k < 60; ++k) {
            std::vector<PieceOn> pieces;
            Color stm;
            REQUIRE(random_pieces(m, rng, pieces, stm));
            const Position pos = test::position(fen_of(pieces, stm));
            INFO(pos.fen());
            const auto root = tables().probe(pos);
            const auto moves = tables().rank_root_moves(pos);
            REQUIRE(root);
            REQUIRE(moves);
            REQUIRE(int(moves->size()) == MoveList(pos).size());
            if (moves->empty()) continue;
            // The best move keeps the position's value and, winning, is a shortest mate.
            const RootMove& best = moves->front();
            CHECK(best.wdl == root->wdl);
            if (root->wdl == 2) {
                ++wins;
                CHECK(best.dtm == root->dtm);
            }
            // Asked for, the DTZ of the position after each zeroing move too (`tb probe` shows it);
            // the ranking and every move's own values are the same either way.
            const auto shown = tables().rank_root_moves(pos, true);
            REQUIRE(shown);
            REQUIRE(shown->size() == moves->size());
            for (size_t i = 0; i < moves->size(); ++i) {
                const RootMove& rm = (*moves)[i];
                CHECK(rm.wdl == -rm.after.wdl);
                CHECK(rm.dtm == dtm_of_move(*rm.after.dtm));
                if (i) CHECK(rm.wdl50 <= (*moves)[i - 1].wdl50);
                const RootMove& full = (*shown)[i];
                CHECK(full.move == rm.move);
                CHECK(full.dtz == rm.dtz);
                CHECK(full.dtm == rm.dtm);
                CHECK(full.wdl50 == rm.wdl50);
                CHECK(full.after.dtm == rm.after.dtm);
                REQUIRE(full.after.dtz);
                CHECK(wdl_of_dtz(*full.after.dtz) == full.after.wdl);
                if (rm.zeroing)
                    CHECK(!rm.after.dtz);
                else
                    CHECK(rm.after.dtz == full.after.dtz);
            }
        }
    }
    CHECK(wins > 50);
}

TEST_CASE("a win whose zeroing comes too late for the halfmove clock is ranked as cursed", "[tb][probe][root]") {
    // KRvK, White mates in 16 (31 plies) without any zeroing move before the mate.
    const std::string board = "8/8/8/8/8/8/1k6/R6K w - - ";
    const auto root = tables().probe(test::position(board + "0 1"));
    REQUIRE(root);
    REQUIRE(root->wdl == 2);
    const int dtz = distance_of(*root->dtz);
    REQUIRE(dtz > 2);
    // With the clock at 100 - dtz the best move still wins in time; one ply later it does not.
    auto in_time = tables().rank_root_moves(test::position(board + std::to_string(100 - dtz) + " 1"));
    auto too_late = tables().rank_root_moves(test::position(board + std::to_string(101 - dtz) + " 1"));
    REQUIRE(in_time);
    REQUIRE(too_late);
    CHECK(in_time->front().wdl50 == 2);
    CHECK(too_late->front().wdl50 == 1);
    CHECK(too_late->front().wdl == 2);
}

TEST_CASE("without WDL files the DTZ files give the WDL, root moves included", "[tb][probe][root]") {
    // KQvKR and the tables its captures lead into, DTM/DTZ files only: every probe, and the
    // ranking, which leaves a capture's successor DTZ out, take the WDL from the exact DTZ.
    const fs::path dir = test::scratch_dir("dtz-files-only");
    for (const char* name : {"KQvKR", "KQvK", "KRvK"}) test::copy_table_file(std::string(name) + ".pytd", dir);
    Tablebases dtz_only;
    dtz_only.set_paths(dir.string());
    // White's queen can take the rook, Black's rook the queen.
    for (const char* fen : {"8/8/8/3k4/8/1r6/8/1Q2K3 w - - 0 1", "8/8/8/3k4/8/1r6/8/1Q2K3 b - - 0 1"}) {
        INFO(fen);
        const Position pos = test::position(fen);
        CHECK(dtz_only.probe_wdl(pos) == tables().probe_wdl(pos));
        const auto got = dtz_only.probe(pos), expected = tables().probe(pos);
        REQUIRE(got);
        REQUIRE(expected);
        CHECK(got->wdl == expected->wdl);
        CHECK(got->dtz == expected->dtz);
        CHECK(got->dtm == expected->dtm);
        const auto a = tables().rank_root_moves(pos), b = dtz_only.rank_root_moves(pos);
        REQUIRE(a);
        REQUIRE(b);
        REQUIRE(a->size() == b->size());
        for (size_t j = 0; j < a->size(); ++j) {
            CHECK((*a)[j].move == (*b)[j].move);
            CHECK((*a)[j].wdl == (*b)[j].wdl);
            CHECK((*a)[j].dtz == (*b)[j].dtz);
            CHECK((*a)[j].dtm == (*b)[j].dtm);
        }
        CHECK(std::any_of(b->begin(), b->end(), [](const RootMove& m) { return m.zeroing; }));
    }
}

TEST_CASE("threads probe at once, opening tables on the way", "[tb][probe][threads]") {
    const fs::path& dir = test::test_tables_dir();
    std::mt19937_64 rng(9);
    std::vector<Position> positions;
    for (const Material& m : all_materials(4))
        for (int k = 0; k < 40; ++k) {
            std::vector<PieceOn> pieces;
            Color stm;
            if (random_pieces(m, rng, pieces, stm)) positions.push_back(test::position(fen_of(pieces, stm)));
        }
    Tablebases reference;
    reference.set_paths(dir.string());
    std::vector<std::optional<ProbeResult>> want;
    for (const Position& p : positions) want.push_back(reference.probe(p));

    Tablebases shared;  // fresh: the threads race to open every table
    shared.set_paths(dir.string());
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (size_t k = 0; k < positions.size(); ++k) {
                const size_t i = (k * 7 + t * 13) % positions.size();
                if (!same(shared.probe(positions[i]), want[i])) ++mismatches[t];
                if (shared.probe_wdl(positions[i]) != want[i]->wdl) ++mismatches[t];
            }
        });
    for (auto& t : threads) t.join();
    for (int t = 0; t < 4; ++t) CHECK(mismatches[t] == 0);
    CHECK(shared.refused_files().empty());
}
