#include "tablebase/format/table_index.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace pythia::tb {

namespace {

struct Tables {
    uint64_t binom[65][MAX_PIECES + 1];
    Square transformed[8][SQUARE_NB];
    int kk_index[SQUARE_NB][SQUARE_NB];  // -1 where the pair is not canonical or not legal
    Square kk_squares[462][2];
    int transform_of_king[SQUARE_NB];  // a transform taking the square into the a1-d1-d4 triangle

    Tables() {
        for (int n = 0; n <= 64; ++n)
            for (int k = 0; k <= MAX_PIECES; ++k)
                binom[n][k] = k == 0 ? 1 : n == 0 ? 0 : binom[n - 1][k - 1] + binom[n - 1][k];
        for (int t = 0; t < 8; ++t)
            for (int s = 0; s < 64; ++s) {
                int f = s & 7, r = s >> 3;
                if (t & 1) f = 7 - f;
                if (t & 2) r = 7 - r;
                if (t & 4) std::swap(f, r);
                transformed[t][s] = make_square(f, r);
            }
        for (int s = 0; s < 64; ++s) {
            transform_of_king[s] = -1;
            for (int t = 0; t < 8 && transform_of_king[s] < 0; ++t)
                if (in_triangle(transformed[t][s])) transform_of_king[s] = t;
        }
        int n = 0;
        for (int w = 0; w < 64; ++w)
            for (int b = 0; b < 64; ++b) kk_index[w][b] = -1;
        for (int w = 0; w < 64; ++w) {
            if (!in_triangle(Square(w))) continue;
            for (int b = 0; b < 64; ++b) {
                // Kings on the same or neighbouring squares (Chebyshev distance; the core's
                // distance table may not be built yet during static initialisation).
                if (std::max(std::abs(file_of(Square(w)) - file_of(Square(b))),
                             std::abs(rank_of(Square(w)) - rank_of(Square(b)))) <= 1)
                    continue;
                if (on_diagonal(Square(w)) && above_diagonal(Square(b))) continue;
                kk_squares[n][0] = Square(w);
                kk_squares[n][1] = Square(b);
                kk_index[w][b] = n++;
            }
        }
        if (n != 462) throw std::logic_error("king pair count is not 462");
    }

    static bool in_triangle(Square s) { return file_of(s) <= FILE_D && rank_of(s) <= file_of(s); }
    static bool on_diagonal(Square s) { return file_of(s) == rank_of(s); }
    static bool above_diagonal(Square s) { return rank_of(s) > file_of(s); }
    static bool below_diagonal(Square s) { return rank_of(s) < file_of(s); }
};

// Built once at start-up; read without a guard on every index computation.
const Tables TABLES;
inline const Tables& tables() { return TABLES; }

// Unranking of small combinations by table lookup (k = 2, 3 over 64 or 48 values), the
// hot path of decoding.
struct UnrankTables {
    std::vector<std::array<uint8_t, 3>> by_k_n[4][2];  // [k][n == 64 ? 0 : 1]
    UnrankTables() {
        for (int k = 2; k <= 3; ++k)
            for (int which = 0; which < 2; ++which) {
                int n = which == 0 ? 64 : 48;
                auto& t = by_k_n[k][which];
                t.resize(TABLES.binom[n][k]);
                // Enumerate combinations in colex order: rank increases with the largest value.
                int v[3];
                for (v[2] = 0; v[2] < n; ++v[2])
                    for (v[1] = 0; v[1] < (k == 3 ? v[2] : n); ++v[1])
                        for (v[0] = 0; v[0] < v[1]; ++v[0]) {
                            if (k == 2 && v[2] != 0) continue;
                            uint64_t r =
                                TABLES.binom[v[0]][1] + TABLES.binom[v[1]][2] + (k == 3 ? TABLES.binom[v[2]][3] : 0);
                            t[r] = {uint8_t(v[0]), uint8_t(v[1]), uint8_t(v[2])};
                        }
            }
    }
};
const UnrankTables UNRANK;

// Colex rank of k sorted values: sum of C(v_i, i + 1).
uint64_t rank_combination(const Square* sorted, int k, int offset) {
    const auto& T = tables();
    uint64_t r = 0;
    for (int i = 0; i < k; ++i) r += T.binom[sorted[i] - offset][i + 1];
    return r;
}

// Inverse of rank_combination over values [0, n).
void unrank_combination(uint64_t r, int k, int n, Square* out, int offset) {
    if (k == 1) {
        out[0] = Square(r + offset);
        return;
    }
    if (k <= 3 && (n == 64 || n == 48)) {
        const auto& e = UNRANK.by_k_n[k][n == 64 ? 0 : 1][r];
        for (int i = 0; i < k; ++i) out[i] = Square(e[i] + offset);
        return;
    }
    const auto& T = tables();
    int hi = n;  // values are strictly below hi
    for (int i = k - 1; i >= 0; --i) {
        // The largest v < hi with C(v, i + 1) <= r, by binary search.
        int lo = i, up = hi - 1;
        while (lo < up) {
            int mid = (lo + up + 1) / 2;
            if (T.binom[mid][i + 1] <= r)
                lo = mid;
            else
                up = mid - 1;
        }
        out[i] = Square(lo + offset);
        r -= T.binom[lo][i + 1];
        hi = lo;
    }
}

// x / d and x % d, by a shift and a mask when d = 2^bits (bits >= 0): the index's divisors are
// runtime values, so the compiler cannot make that choice itself.
inline uint64_t quotient(uint64_t x, uint64_t d, int bits) { return bits >= 0 ? x >> bits : x / d; }
inline uint64_t modulo(uint64_t x, uint64_t d, int bits) { return bits >= 0 ? x & (d - 1) : x % d; }

// rank_combination of the squares of a bitboard: its set bits come lowest first, the sorted
// order, without sorting an array in memory (which stalled on store forwarding).
uint64_t rank_of_set(uint64_t set) {
    const auto& T = tables();
    uint64_t r = 0;
    for (int i = 1; set; ++i, set &= set - 1) r += T.binom[__builtin_ctzll(set)][i];
    return r;
}

void sort_small(Square* s, int k) {
    for (int i = 1; i < k; ++i)
        for (int j = i; j > 0 && s[j] < s[j - 1]; --j) std::swap(s[j], s[j - 1]);
}

}  // namespace

Square transform_square(Square s, int transform) { return tables().transformed[transform][s]; }

TableIndex::TableIndex(const Material& material) : material_(material) {
    if (!material.is_normalized()) throw std::invalid_argument("table material must be normalised");
    if (material.total() > MAX_PIECES) throw std::invalid_argument("too many pieces for a table");
    const auto& T = tables();

    slots_[num_slots_++] = {WHITE, KING};
    slots_[num_slots_++] = {BLACK, KING};
    for (Color c : {WHITE, BLACK})
        for (PieceType pt : {QUEEN, ROOK, BISHOP, KNIGHT, PAWN}) {
            int n = material.count(c, pt);
            if (!n) continue;
            Group g{num_slots_, n, pt == PAWN};
            for (int i = 0; i < n; ++i) slots_[num_slots_++] = {c, pt};
            (pt == PAWN ? pawn_groups_ : piece_groups_).push_back(g);
        }
    has_pawns_ = !pawn_groups_.empty();
    std::fill(std::begin(first_slot_), std::end(first_slot_), int8_t(-1));
    for (int i = num_slots_ - 1; i >= 0; --i) first_slot_[slots_[i].color * 8 + slots_[i].type] = int8_t(i);
    for (const Group& g : piece_groups_) rest_size_ *= T.binom[64][g.count];
    for (int& g : group_of_slot_) g = -1;
    uint64_t weight = 1;
    for (int gi = int(piece_groups_.size()) - 1; gi >= 0; --gi) {
        group_weight_[gi] = weight;
        weight *= T.binom[64][piece_groups_[gi].count];
        for (int i = 0; i < piece_groups_[gi].count; ++i) group_of_slot_[piece_groups_[gi].first_slot + i] = gi;
        if (piece_groups_[gi].count == 1) slot_weight_[piece_groups_[gi].first_slot] = int64_t(group_weight_[gi]);
    }
    if (std::all_of(piece_groups_.begin(), piece_groups_.end(), [](const Group& g) { return g.count == 1; }))
        rest_bits_ = 6 * int(piece_groups_.size());
    if (has_pawns_) {
        slot_weight_[0] = int64_t(64 * rest_size_);
        slot_weight_[1] = int64_t(rest_size_);
    }

    if (!has_pawns_) {
        slice_size_ = 462 * rest_size_;
        slice_pawns_.resize(1);
        size_ = slice_size_;
        return;
    }

    // Enumerate pawn configurations: white pawns, then black pawns, each a combination of the
    // 48 squares a2-h7. Keep the canonical ones and order them by advancement.
    const int nw = material.count(WHITE, PAWN), nb = material.count(BLACK, PAWN);
    const uint64_t white_combos = T.binom[48][nw], black_combos = T.binom[48][nb];
    slice_of_key_.assign(white_combos * black_combos, -1);
    struct Config {
        uint64_t key;
        int advancement;
        std::array<Square, MAX_PIECES> pawns;
    };
    std::vector<Config> configs;
    for (uint64_t wr = 0; wr < white_combos; ++wr)
        for (uint64_t br = 0; br < black_combos; ++br) {
            Placement p{};
            Square* wp = &p[pawn_groups_[0].first_slot];
            int first_black = nw > 0 ? 1 : 0;
            if (nw) unrank_combination(wr, nw, 48, wp, 8);
            if (nb) unrank_combination(br, nb, 48, &p[pawn_groups_[first_black].first_slot], 8);
            Bitboard seen = 0;
            bool overlap = false;
            int advancement = 0;
            for (const Group& g : pawn_groups_)
                for (int i = 0; i < g.count; ++i) {
                    Square s = p[g.first_slot + i];
                    overlap |= bool(seen & square_bb(s));
                    seen |= square_bb(s);
                    advancement += slots_[g.first_slot].color == WHITE ? rank_of(s) : 7 - rank_of(s);
                }
            if (overlap) continue;
            if (pawn_key(p, true) < pawn_key(p, false)) continue;  // the mirror is canonical
            Config c{wr * black_combos + br, advancement, {}};
            for (const Group& g : pawn_groups_)
                for (int i = 0; i < g.count; ++i) c.pawns[g.first_slot + i] = p[g.first_slot + i];
            configs.push_back(c);
        }
    std::stable_sort(configs.begin(), configs.end(),
                     [](const Config& a, const Config& b) { return a.advancement > b.advancement; });
    for (const Config& c : configs) {
        slice_of_key_[c.key] = int32_t(slice_pawns_.size());
        slice_pawns_.push_back(c.pawns);
    }
    slice_size_ = 64 * 64 * rest_size_;
    size_ = slice_size_ * slice_pawns_.size();
}

std::vector<uint64_t> TableIndex::digit_radices() const {
    std::vector<uint64_t> r;
    if (has_pawns_)
        r = {uint64_t(slice_pawns_.size()), 64, 64};
    else
        r = {462};
    for (const Group& g : piece_groups_) r.push_back(tables().binom[64][g.count]);
    return r;
}

std::vector<std::string> TableIndex::digit_names() const {
    std::vector<std::string> names;
    if (has_pawns_)
        names = {"P", "K", "k"};
    else
        names = {"KK"};
    for (const Group& g : piece_groups_) {
        const Slot& s = slots_[g.first_slot];
        const char letter = "PNBRQK"[int(s.type) - int(PAWN)];
        std::string name(1, s.color == WHITE ? letter : char(letter - 'A' + 'a'));
        if (g.count > 1) name += std::to_string(g.count);
        names.push_back(name);
    }
    return names;
}

// Lexicographic key of the sorted pawn squares (white group first) in the given orientation,
// packed so that comparing keys compares the lists.
uint64_t TableIndex::pawn_key(const Placement& squares, bool mirror) const {
    uint64_t key = 0;
    for (const Group& g : pawn_groups_) {
        Square s[MAX_PIECES];
        for (int i = 0; i < g.count; ++i) {
            s[i] = squares[g.first_slot + i];
            if (mirror) s[i] = flip_file(s[i]);
        }
        sort_small(s, g.count);
        for (int i = 0; i < g.count; ++i) key = (key << 6) | s[i];
    }
    return key;
}

uint64_t TableIndex::encode_rest(const Placement& squares, int transform) const {
    const auto& T = tables();
    uint64_t rest = 0;
    if (rest_bits_ >= 0) {
        for (const Group& g : piece_groups_) rest = rest << 6 | T.transformed[transform][squares[g.first_slot]];
        return rest;
    }
    for (const Group& g : piece_groups_) {
        uint64_t set = 0;
        for (int i = 0; i < g.count; ++i) set |= uint64_t(1) << T.transformed[transform][squares[g.first_slot + i]];
        rest = rest * T.binom[64][g.count] + rank_of_set(set);
    }
    return rest;
}

void TableIndex::decode_rest(uint64_t rest, Placement& squares) const {
    if (rest_bits_ >= 0) {
        for (int gi = int(piece_groups_.size()) - 1; gi >= 0; --gi, rest >>= 6)
            squares[piece_groups_[gi].first_slot] = Square(rest & 63);
        return;
    }
    const auto& T = tables();
    for (int gi = int(piece_groups_.size()) - 1; gi >= 0; --gi) {
        const Group& g = piece_groups_[gi];
        uint64_t n = T.binom[64][g.count];
        unrank_combination(rest % n, g.count, 64, &squares[g.first_slot], 0);
        rest /= n;
    }
}

uint64_t TableIndex::encode(const Placement& squares) const {
    const auto& T = tables();
    if (!has_pawns_) {
        int t = T.transform_of_king[squares[0]];
        Square w = T.transformed[t][squares[0]], b = T.transformed[t][squares[1]];
        if (Tables::on_diagonal(w)) {
            if (Tables::above_diagonal(b)) {
                t ^= 4;
                b = T.transformed[t][squares[1]];
            } else if (Tables::on_diagonal(b)) {
                // Both kings on the diagonal: the reflection in it is decided by the rest.
                uint64_t r0 = encode_rest(squares, t), r1 = encode_rest(squares, t ^ 4);
                return uint64_t(T.kk_index[w][b]) * rest_size_ + std::min(r0, r1);
            }
        }
        return uint64_t(T.kk_index[w][b]) * rest_size_ + encode_rest(squares, t);
    }

    const bool mirror = pawn_key(squares, true) < pawn_key(squares, false);
    const int t = mirror ? 1 : 0;
    Placement p;
    for (int i = 0; i < num_slots_; ++i) p[i] = T.transformed[t][squares[i]];
    uint64_t key = 0;
    for (const Group& g : pawn_groups_) {
        Square s[MAX_PIECES];
        for (int i = 0; i < g.count; ++i) s[i] = p[g.first_slot + i];
        sort_small(s, g.count);
        key = key * T.binom[48][g.count] + rank_combination(s, g.count, 8);
    }
    int32_t slice = slice_of_key_[key];
    return uint64_t(slice) * slice_size_ + (uint64_t(p[0]) * 64 + p[1]) * rest_size_ + encode_rest(p, 0);
}

uint64_t TableIndex::encode_moved_slow(uint64_t index, const Placement& canonical, int slot, Square to) const {
    const Square from = canonical[slot];
    if (slot < 2) {
        // A king: pawn tables keep their orientation (the pawns decide it); pawnless tables may
        // need another symmetry, except when the moved position is canonical as it stands: the
        // white king in the triangle, and off the diagonal or with the black king below it.
        // Then only the king pair changes (the canonical placement's rest is the index's).
        if (!has_pawns_) {
            const Square wk = slot == 0 ? to : canonical[0], bk = slot == 1 ? to : canonical[1];
            if (Tables::in_triangle(wk) && (!Tables::on_diagonal(wk) || Tables::below_diagonal(bk))) {
                const int64_t kk_before = TABLES.kk_index[canonical[0]][canonical[1]];
                const int64_t kk_after = TABLES.kk_index[wk][bk];
                return index + (kk_after - kk_before) * int64_t(rest_size_);
            }
            Placement moved = canonical;
            moved[slot] = to;
            return encode(moved);
        }
        const uint64_t weight = slot == 0 ? 64 * rest_size_ : rest_size_;
        return index + (int64_t(to) - int64_t(from)) * int64_t(weight);
    }
    if (!has_pawns_ && Tables::on_diagonal(canonical[0]) && Tables::on_diagonal(canonical[1])) {
        Placement moved = canonical;  // the diagonal twins are told apart by the other pieces
        moved[slot] = to;
        return encode(moved);
    }
    const int gi = group_of_slot_[slot];
    const Group& g = piece_groups_[gi];
    if (g.count == 2) {
        // A pair of like pieces (KBBvKN): its rank is low + C(high, 2) (rank_combination), worked
        // out in registers. The general sort below goes through memory and stalled on store
        // forwarding: 8 % of a 5-piece table's generation and writing.
        const Square other = canonical[g.first_slot == slot ? slot + 1 : g.first_slot];
        auto rank_pair = [](int64_t a, int64_t b) { return a < b ? a + b * (b - 1) / 2 : b + a * (a - 1) / 2; };
        return index + (rank_pair(other, to) - rank_pair(other, from)) * int64_t(group_weight_[gi]);
    }
    // Three or more like pieces (KRRRvK, KRRRRvK): the group's squares as a bitboard before and
    // after (sorting two arrays took 38 % of KRRRvK's generation and writing).
    uint64_t before = 0;
    for (int i = 0; i < g.count; ++i) before |= uint64_t(1) << canonical[g.first_slot + i];
    const uint64_t after = before ^ (uint64_t(1) << from) ^ (uint64_t(1) << to);
    const int64_t delta = int64_t(rank_of_set(after)) - int64_t(rank_of_set(before));
    return index + delta * int64_t(group_weight_[gi]);
}

bool TableIndex::decode(uint64_t index, Placement& squares) const {
    const auto& T = tables();
    if (index >= size_) return false;
    Bitboard occupied = 0;
    auto place = [&](Square s) {
        bool clash = occupied & square_bb(s);
        occupied |= square_bb(s);
        return !clash;
    };

    if (!has_pawns_) {
        const uint64_t kk = quotient(index, rest_size_, rest_bits_), rest = modulo(index, rest_size_, rest_bits_);
        squares[0] = T.kk_squares[kk][0];
        squares[1] = T.kk_squares[kk][1];
        decode_rest(rest, squares);
        for (int i = 0; i < num_slots_; ++i)
            if (!place(squares[i])) return false;
        if (Tables::on_diagonal(squares[0]) && Tables::on_diagonal(squares[1]))
            return rest <= encode_rest(squares, 4);  // the smaller of the two reflections
        return true;
    }

    // slice_size_ = 64 x 64 x rest_size_: with single pieces a power of two as well.
    const int slice_bits = rest_bits_ >= 0 ? 12 + rest_bits_ : -1;
    const uint64_t slice = quotient(index, slice_size_, slice_bits);
    const uint64_t in_slice = modulo(index, slice_size_, slice_bits);
    const auto& pawns = slice_pawns_[slice];
    for (const Group& g : pawn_groups_)
        for (int i = 0; i < g.count; ++i) squares[g.first_slot + i] = pawns[g.first_slot + i];
    const uint64_t kings = quotient(in_slice, rest_size_, rest_bits_);
    squares[0] = Square(kings / 64);
    squares[1] = Square(kings % 64);
    decode_rest(modulo(in_slice, rest_size_, rest_bits_), squares);
    for (int i = 0; i < num_slots_; ++i)
        if (!place(squares[i])) return false;
    return true;
}

}  // namespace pythia::tb
