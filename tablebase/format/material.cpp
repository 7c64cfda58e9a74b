#include "tablebase/format/material.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace pythia::tb {

namespace {

constexpr PieceType NAME_ORDER[] = {QUEEN, ROOK, BISHOP, KNIGHT, PAWN};
constexpr int VALUE[PIECE_TYPE_NB] = {0, 1, 3, 3, 5, 9, 0};

PieceType piece_of_letter(char c) {
    switch (std::toupper(static_cast<unsigned char>(c))) {
        case 'K':
            return KING;
        case 'Q':
            return QUEEN;
        case 'R':
            return ROOK;
        case 'B':
            return BISHOP;
        case 'N':
            return KNIGHT;
        case 'P':
            return PAWN;
        default:
            return NO_PIECE_TYPE;
    }
}

// Total "size" of a material used to order generation: fewer pieces first, and among tables
// of the same size those without pawns first (pawns promote into pawnless tables of the same
// size), then fewer pawns (a pawn never becomes a pawn again).
int generation_rank(const Material& m) {
    int pawns = m.count(WHITE, PAWN) + m.count(BLACK, PAWN);
    return m.total() * 100 + pawns;
}

}  // namespace

std::optional<Material> Material::parse(std::string_view name) {
    Material m;
    size_t v = name.find_first_of("vV");
    if (v == std::string_view::npos) return std::nullopt;
    std::string_view sides[2] = {name.substr(0, v), name.substr(v + 1)};
    for (int c = 0; c < 2; ++c) {
        if (sides[c].empty()) return std::nullopt;
        for (char ch : sides[c]) {
            PieceType pt = piece_of_letter(ch);
            if (pt == NO_PIECE_TYPE) return std::nullopt;
            ++m.count_[c][pt];
        }
        if (m.count_[c][KING] != 1) return std::nullopt;
        if (m.count_[c][PAWN] > 8) return std::nullopt;
    }
    if (m.total() > 32) return std::nullopt;
    return m;
}

Material Material::of(const Position& pos) {
    Material m;
    for (Color c : {WHITE, BLACK})
        for (int pt = PAWN; pt <= KING; ++pt) m.count_[c][pt] = pos.count(c, PieceType(pt));
    return m;
}

int Material::pieces(Color c) const {
    int n = 0;
    for (int pt = PAWN; pt <= KING; ++pt) n += count_[c][pt];
    return n;
}

Material Material::flipped() const {
    Material m;
    for (int pt = 0; pt < PIECE_TYPE_NB; ++pt) {
        m.count_[WHITE][pt] = count_[BLACK][pt];
        m.count_[BLACK][pt] = count_[WHITE][pt];
    }
    return m;
}

bool Material::is_normalized() const {
    if (pieces(WHITE) != pieces(BLACK)) return pieces(WHITE) > pieces(BLACK);
    int value[2] = {};
    for (Color c : {WHITE, BLACK})
        for (PieceType pt : NAME_ORDER) value[c] += VALUE[pt] * count_[c][pt];
    if (value[WHITE] != value[BLACK]) return value[WHITE] > value[BLACK];
    for (PieceType pt : NAME_ORDER)
        if (count_[WHITE][pt] != count_[BLACK][pt]) return count_[WHITE][pt] > count_[BLACK][pt];
    return true;  // identical sides
}

std::string Material::name() const {
    std::string s;
    for (Color c : {WHITE, BLACK}) {
        if (c == BLACK) s += 'v';
        s += 'K';
        for (PieceType pt : NAME_ORDER) s.append(count_[c][pt], " PNBRQK"[pt]);
    }
    return s;
}

bool Material::operator==(const Material& o) const {
    for (int c = 0; c < 2; ++c)
        for (int pt = 0; pt < PIECE_TYPE_NB; ++pt)
            if (count_[c][pt] != o.count_[c][pt]) return false;
    return true;
}

std::vector<std::pair<Material, uint8_t>> Material::successor_sides() const {
    std::vector<std::pair<Material, uint8_t>> out;
    auto add = [&](const Material& m, Color to_move) {
        // As TableSet::lookup: colours (and the side to move) flip when m is not normalized.
        const bool flip = !m.is_normalized();
        const Material n = flip ? m.flipped() : m;
        const uint8_t side = uint8_t(1 << (flip ? ~to_move : to_move));
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == n; });
        if (it == out.end())
            out.emplace_back(n, side);
        else
            it->second |= side;
    };
    for (Color c : {WHITE, BLACK}) {
        for (int pt = PAWN; pt < KING; ++pt) {  // captures of c's pieces: c to move
            if (!count_[c][pt]) continue;
            Material m = *this;
            --m.count_[c][pt];
            if (m.total() > 2) add(m, c);
        }
        if (!count_[c][PAWN]) continue;
        for (PieceType promo : {QUEEN, ROOK, BISHOP, KNIGHT}) {  // promotions of c's pawns
            Material m = *this;
            --m.count_[c][PAWN];
            ++m.count_[c][promo];
            add(m, ~c);
            for (int pt = KNIGHT; pt < KING; ++pt) {
                if (!count_[~c][pt]) continue;
                Material mc = m;
                --mc.count_[~c][pt];
                add(mc, ~c);
            }
        }
    }
    return out;
}

std::vector<Material> Material::successors() const {
    std::vector<Material> out;
    for (const auto& [m, sides] : successor_sides()) out.push_back(m);
    return out;
}

std::vector<Material> all_materials(int max_pieces) {
    std::vector<Material> out;
    // Enumerate multisets of non-king pieces for both sides.
    std::vector<std::vector<int>> side_sets;  // counts of Q R B N P
    std::function<void(std::vector<int>&, int, int)> rec = [&](std::vector<int>& counts, int idx, int left) {
        if (idx == 5) {
            side_sets.push_back(counts);
            return;
        }
        for (int n = 0; n <= left; ++n) {
            counts[idx] = n;
            rec(counts, idx + 1, left - n);
        }
        counts[idx] = 0;
    };
    std::vector<int> counts(5, 0);
    rec(counts, 0, max_pieces - 2);
    for (const auto& w : side_sets)
        for (const auto& b : side_sets) {
            Material m;
            m.set_count(WHITE, KING, 1);
            m.set_count(BLACK, KING, 1);
            for (int i = 0; i < 5; ++i) {
                m.set_count(WHITE, NAME_ORDER[i], w[i]);
                m.set_count(BLACK, NAME_ORDER[i], b[i]);
            }
            if (m.total() < 3 || m.total() > max_pieces || !m.is_normalized()) continue;
            if (!(m == m.normalized())) continue;
            if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
        }
    std::stable_sort(out.begin(), out.end(), [](const Material& a, const Material& b) {
        int ra = generation_rank(a), rb = generation_rank(b);
        return ra != rb ? ra < rb : a.name() < b.name();
    });
    return out;
}

std::vector<Material> with_dependencies(const std::vector<Material>& tables) {
    std::vector<Material> out;
    std::function<void(const Material&)> visit = [&](const Material& m) {
        if (std::find(out.begin(), out.end(), m) != out.end()) return;
        for (const Material& s : m.successors()) visit(s);
        out.push_back(m);
    };
    for (const Material& m : tables) visit(m.normalized());
    return out;
}

}  // namespace pythia::tb
