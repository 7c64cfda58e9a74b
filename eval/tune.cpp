// Texel tuning of the evaluation weights (a developer tool, not part of the engine).
//
//   pythia-tune extract GAMES.pgn... > positions.txt
//       quiet positions of finished games with the game's result: "FEN;result" (result 1, 0.5,
//       0 from White's side). Skips the first plies, positions in check, positions whose
//       next move captures or promotes, and positions the engine already saw as mates.
//   pythia-tune tune positions.txt [epochs] [validation.txt] > params_values.inc
//       fits K of the logistic 1 / (1 + exp(-K * eval)) to the results, then minimises the
//       mean squared error of the results over the weights (Adam on the exact gradient of the
//       linear traced evaluation), and prints the weights in params_values.inc form.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/movegen.h"
#include "engine/core/notation.h"
#include "eval/evaluate.h"

using namespace pythia;

namespace {

// ---- extract -------------------------------------------------------------------------

struct PgnGame {
    std::string fen = std::string(START_FEN), result;
    std::vector<std::string> sans, comments;
};

// Splits movetext into SAN moves and the comment after each.
void parse_movetext(const std::string& text, PgnGame& g) {
    size_t i = 0;
    while (i < text.size()) {
        char c = text[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '{') {
            size_t end = text.find('}', i);
            if (!g.comments.empty()) g.comments.back() = text.substr(i + 1, end - i - 1);
            i = end == std::string::npos ? text.size() : end + 1;
            continue;
        }
        size_t end = i;
        while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != '{') ++end;
        std::string tok = text.substr(i, end - i);
        i = end;
        if (tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "*") continue;
        size_t dot = tok.find_last_of('.');
        if (dot != std::string::npos) tok = tok.substr(dot + 1);  // "12." "12..." "12.e4"
        if (tok.empty() || tok[0] == '$') continue;
        g.sans.push_back(tok);
        g.comments.emplace_back();
    }
}

int extract(int argc, char** argv) {
    long games = 0, positions = 0;
    for (int a = 0; a < argc; ++a) {
        std::ifstream in(argv[a]);
        if (!in) {
            std::cerr << "cannot read " << argv[a] << '\n';
            return 1;
        }
        std::string line, movetext;
        PgnGame g;
        auto flush_game = [&]() {
            if (g.sans.empty() && movetext.empty()) return;
            parse_movetext(movetext, g);
            double result = g.result == "1-0" ? 1.0 : g.result == "0-1" ? 0.0 : g.result == "1/2-1/2" ? 0.5 : -1;
            Position pos;
            if (result >= 0 && pos.set_fen(g.fen)) {
                ++games;
                for (size_t i = 0; i < g.sans.size(); ++i) {
                    Move m = parse_san_move(pos, g.sans[i]);
                    if (!m) break;
                    const bool mate_seen = g.comments[i].find('M') != std::string::npos;
                    // The engine's score for this position (the comment of the move made from
                    // it, from the side to move), turned to White's side.
                    double score = 0;
                    const bool has_score = std::sscanf(g.comments[i].c_str(), "%lf", &score) == 1;
                    if (pos.side_to_move() == BLACK) score = -score;
                    if (i >= 4 && has_score && !pos.in_check() && !pos.is_tactical(m) && !mate_seen &&
                        !pos.has_insufficient_material()) {
                        std::cout << pos.fen() << ';' << result << ';' << std::lround(score * 100) << '\n';
                        ++positions;
                    }
                    pos.do_move(m);
                }
            }
            g = PgnGame();
            movetext.clear();
        };
        while (std::getline(in, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (!line.empty() && line[0] == '[') {
                if (!movetext.empty()) flush_game();
                auto q1 = line.find('"'), q2 = line.rfind('"');
                std::string key = line.substr(1, line.find(' ') - 1), value = line.substr(q1 + 1, q2 - q1 - 1);
                if (key == "FEN") g.fen = value;
                if (key == "Result") g.result = value;
            } else {
                movetext += line + ' ';
            }
        }
        flush_game();
    }
    std::cerr << "extract: " << positions << " positions from " << games << " games\n";
    return 0;
}

// ---- tune ----------------------------------------------------------------------------

// Weight of the game result in the target (the rest is the search score), and the scale that
// turns a score in centipawns into an expected result.
double RESULT_WEIGHT = 0.5;
constexpr double SCORE_K = 0.006;

struct Sample {
    std::vector<std::pair<int16_t, int16_t>> coeffs;  // weight index, White minus Black count
    float mg_factor, eg_factor;                       // phase / 24 and (24 - phase) * scale / (64 * 24)
    float result;
};

double predict(const Sample& s, const std::vector<double>& mg, const std::vector<double>& eg) {
    double m = 0, e = 0;
    for (auto [i, n] : s.coeffs) {
        m += n * mg[i];
        e += n * eg[i];
    }
    return m * s.mg_factor + e * s.eg_factor;
}

double sigmoid(double k, double v) { return 1.0 / (1.0 + std::exp(-k * v)); }

double loss(const std::vector<Sample>& data, double k, const std::vector<double>& mg, const std::vector<double>& eg) {
    double sum = 0;
    for (const Sample& s : data) {
        const double d = s.result - sigmoid(k, predict(s, mg, eg));
        sum += d * d;
    }
    return sum / double(data.size());
}

std::vector<Sample> load(const char* file) {
    std::vector<Sample> data;
    std::ifstream in(file);
    if (!in) {
        std::cerr << "cannot read " << file << '\n';
        return data;
    }
    auto trace = std::make_unique<EvalTrace>();
    std::string line;
    while (std::getline(in, line)) {
        auto semi = line.find(';');
        if (semi == std::string::npos) continue;
        Position pos;
        if (!pos.set_fen(line.substr(0, semi))) continue;
        evaluate_traced(pos, *trace);
        if (trace->drawn) continue;
        Sample s;
        for (int i = 0; i < EVAL_PARAM_COUNT; ++i)
            if (int n = trace->coeff[i][WHITE] - trace->coeff[i][BLACK]) s.coeffs.emplace_back(int16_t(i), int16_t(n));
        s.mg_factor = float(trace->phase) / PHASE_MAX;
        s.eg_factor = float(PHASE_MAX - trace->phase) * trace->scale / (SCALE_NORMAL * PHASE_MAX);
        // Target: a blend of the game's result and the engine's search score of the position
        // (on the result's scale), which labels each position on its own rather than only its game.
        const auto semi2 = line.find(';', semi + 1);
        const double result = std::stod(line.substr(semi + 1, semi2 - semi - 1));
        s.result = float(result);
        if (semi2 != std::string::npos) {
            const double score = std::stod(line.substr(semi2 + 1));
            s.result = float(RESULT_WEIGHT * result + (1 - RESULT_WEIGHT) / (1 + std::exp(-SCORE_K * score)));
        }
        data.push_back(std::move(s));
    }
    return data;
}

int tune(const char* file, int epochs, const char* validation_file) {
    const std::vector<Sample> data = load(file);
    if (data.empty()) return 1;
    const std::vector<Sample> validation = validation_file ? load(validation_file) : std::vector<Sample>();
    std::cerr << "tune: " << data.size() << " positions, " << EVAL_PARAM_COUNT << " weights, " << validation.size()
              << " validation positions\n";

    std::vector<double> mg(EVAL_PARAM_COUNT), eg(EVAL_PARAM_COUNT);
    const Score* w = param_vector(PARAMS);
    for (int i = 0; i < EVAL_PARAM_COUNT; ++i) {
        mg[i] = mg_value(w[i]);
        eg[i] = eg_value(w[i]);
    }

    // K: the scale that best maps the current evaluation to results (golden-section search).
    double lo = 0.0005, hi = 0.02;
    for (int it = 0; it < 40; ++it) {
        double a = lo + (hi - lo) * 0.382, b = lo + (hi - lo) * 0.618;
        if (loss(data, a, mg, eg) < loss(data, b, mg, eg))
            hi = b;
        else
            lo = a;
    }
    const double k = (lo + hi) / 2;
    auto report = [&](int epoch) {
        std::cerr << "epoch " << epoch << " loss " << loss(data, k, mg, eg);
        if (!validation.empty()) std::cerr << " validation " << loss(validation, k, mg, eg);
        std::cerr << '\n';
    };
    std::cerr << "tune: K = " << k << '\n';
    report(0);

    // Adam over the full batch. PYTHIA_TUNE_FREEZE_PSQT=1 keeps the piece-square tables (most
    // of the weights, and the first to overfit a small set of games) as they are.
    const int n = EVAL_PARAM_COUNT;
    std::vector<bool> frozen(n, false);
    if (std::getenv("PYTHIA_TUNE_FREEZE_PSQT"))
        for (int i = param_index(PARAMS.psqt[0][0]);
             i < param_index(PARAMS.psqt[0][0]) + int(PIECE_TYPE_NB) * int(SQUARE_NB); ++i)
            frozen[i] = true;
    std::vector<double> m1(2 * n), m2(2 * n), grad(2 * n);
    const double rate = 1.0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    for (int epoch = 1; epoch <= epochs; ++epoch) {
        std::fill(grad.begin(), grad.end(), 0.0);
        for (const Sample& s : data) {
            const double p = sigmoid(k, predict(s, mg, eg));
            const double g = -2.0 * (s.result - p) * p * (1 - p) * k;
            for (auto [i, c] : s.coeffs) {
                grad[i] += g * c * s.mg_factor;
                grad[n + i] += g * c * s.eg_factor;
            }
        }
        for (int j = 0; j < 2 * n; ++j) {
            if (frozen[j % n]) continue;
            const double gj = grad[j] / double(data.size());
            m1[j] = beta1 * m1[j] + (1 - beta1) * gj;
            m2[j] = beta2 * m2[j] + (1 - beta2) * gj * gj;
            const double step =
                rate * (m1[j] / (1 - std::pow(beta1, epoch))) / (std::sqrt(m2[j] / (1 - std::pow(beta2, epoch))) + eps);
            (j < n ? mg[j] : eg[j - n]) -= step;
        }
        if (epoch % 100 == 0 || epoch == epochs) report(epoch);
    }

    EvalParams tuned = PARAMS;
    Score* out = param_vector(tuned);
    for (int i = 0; i < n; ++i) out[i] = S(int(std::lround(mg[i])), int(std::lround(eg[i])));
    std::cout << "// The evaluation weights: the body of default_params(), as eval/tune prints it.\n"
              << "// Texel-tuned (eval/README.md): K = " << k << ", " << data.size() << " positions, " << epochs
              << " epochs.\n// clang-format off\n"
              << params_to_source(tuned) << "// clang-format on\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "extract" && argc > 2) return extract(argc - 2, argv + 2);
    if (const char* w = std::getenv("PYTHIA_TUNE_RESULT_WEIGHT")) RESULT_WEIGHT = std::atof(w);
    if (cmd == "tune" && argc > 2)
        return tune(argv[2], argc > 3 ? std::atoi(argv[3]) : 500, argc > 4 ? argv[4] : nullptr);
    std::cerr << "usage: pythia-tune extract GAMES.pgn... > positions.txt\n"
                 "       pythia-tune tune positions.txt [epochs] [validation.txt] > params_values.inc\n";
    return 2;
}
