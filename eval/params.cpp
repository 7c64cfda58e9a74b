#include "eval/params.h"

#include <cstddef>
#include <sstream>

namespace pythia {

namespace {

// Every field of EvalParams with its name, for params_to_source.
struct Field {
    const char* name;
    size_t offset;
    int rows, cols;  // psqt is 7 x 64, the other arrays 1 x n, single Scores 1 x 1
};

#define ARRAY_FIELD(f) \
    { #f, offsetof(EvalParams, f), 1, int(std::tuple_size_v <decltype(EvalParams::f)>) }
#define SCALAR_FIELD(f) \
    { #f, offsetof(EvalParams, f), 0, 1 }
const Field FIELDS[] = {
    ARRAY_FIELD(piece_value),
    {"psqt", offsetof(EvalParams, psqt), PIECE_TYPE_NB, SQUARE_NB},
    ARRAY_FIELD(knight_mobility),
    ARRAY_FIELD(bishop_mobility),
    ARRAY_FIELD(rook_mobility),
    ARRAY_FIELD(queen_mobility),
    ARRAY_FIELD(passed_pawn),
    ARRAY_FIELD(passed_free_advance),
    ARRAY_FIELD(passed_our_king_distance),
    ARRAY_FIELD(passed_their_king_distance),
    ARRAY_FIELD(connected_pawn),
    SCALAR_FIELD(isolated_pawn),
    SCALAR_FIELD(doubled_pawn),
    SCALAR_FIELD(backward_pawn),
    ARRAY_FIELD(pawn_shelter),
    ARRAY_FIELD(pawn_storm),
    ARRAY_FIELD(king_zone_attack),
    ARRAY_FIELD(safe_check),
    SCALAR_FIELD(bishop_pair),
    SCALAR_FIELD(rook_open_file),
    SCALAR_FIELD(rook_semi_open_file),
    SCALAR_FIELD(knight_outpost),
    ARRAY_FIELD(threat_by_pawn),
    ARRAY_FIELD(threat_by_minor),
    ARRAY_FIELD(threat_by_rook),
    SCALAR_FIELD(hanging),
    SCALAR_FIELD(tempo),
};
#undef ARRAY_FIELD
#undef SCALAR_FIELD

std::string score_text(Score s) {
    return "S(" + std::to_string(mg_value(s)) + ", " + std::to_string(eg_value(s)) + ")";
}

}  // namespace

EvalParams PARAMS = default_params();

std::string params_to_source(const EvalParams& p) {
    std::ostringstream out;
    const auto* base = reinterpret_cast<const char*>(&p);
    for (const Field& f : FIELDS) {
        const auto* v = reinterpret_cast<const Score*>(base + f.offset);
        auto row_text = [&](const Score* row, int n) {
            std::string t = "{";
            for (int i = 0; i < n; ++i) t += (i ? (i % 8 ? ", " : ",\n        ") : "") + score_text(row[i]);
            return t + "}";
        };
        if (f.rows == 0)
            out << "    p." << f.name << " = " << score_text(*v) << ";\n";
        else if (f.rows == 1)
            out << "    p." << f.name << " = " << row_text(v, f.cols) << ";\n";
        else
            for (int r = 0; r < f.rows; ++r)
                out << "    p." << f.name << "[" << r << "] = " << row_text(v + r * f.cols, f.cols) << ";\n";
    }
    return out.str();
}

EvalParams default_params() {
    EvalParams p{};
#include "eval/params_values.inc"
    return p;
}

}  // namespace pythia
