#!/usr/bin/env python3
"""Makes varied, roughly balanced start positions for self-play (Texel data): each of the
hand-written lines of bench/openings.txt, extended by a few random legal plies, kept when a
shallow Pythia search scores it within +-SCORE centipawns. Writes EPD to stdout.

usage: random_openings.py COUNT [--plies N] [--score CP] [--seed S] [--pythia PATH]
"""
import argparse, pathlib, random, re, subprocess

root = pathlib.Path(__file__).resolve().parents[2]
ap = argparse.ArgumentParser()
ap.add_argument("count", type=int)
ap.add_argument("--plies", type=int, default=4)
ap.add_argument("--score", type=int, default=120)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--pythia", default=str(root / "build/release/pythia"))
args = ap.parse_args()
rng = random.Random(args.seed)

lines = [l.split() for l in (root / "bench/openings.txt").read_text().splitlines() if l and not l.startswith("#")]
p = subprocess.Popen([args.pythia], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

def ask(cmds, until):
    for c in cmds:
        p.stdin.write(c + "\n")
    p.stdin.flush()
    out = []
    while True:
        l = p.stdout.readline().rstrip("\n")
        out.append(l)
        if l.startswith(until):
            return out

seen, made = set(), 0
while made < args.count:
    moves = list(rng.choice(lines))
    for _ in range(rng.randint(1, args.plies)):
        out = ask([f"position startpos moves {' '.join(moves)}", "go perft 1"], "Nodes searched")
        legal = [l.split(":")[0] for l in out if re.match(r"^[a-h][1-8][a-h][1-8][qrbn]?: ", l)]
        if not legal:
            break
        moves.append(rng.choice(legal))
    out = ask([f"position startpos moves {' '.join(moves)}", "go depth 7"], "bestmove")
    scores = [int(m.group(1)) for l in out for m in [re.search(r" score cp (-?\d+)", l)] if m]
    if not scores or abs(scores[-1]) > args.score:
        continue
    fen = [l for l in ask(["d"], "Checkers") if l.startswith("Fen: ")][0][5:]
    key = " ".join(fen.split()[:4])
    if key in seen:
        continue
    seen.add(key)
    print(f"{key} c0 \"{' '.join(moves)}\";", flush=True)
    made += 1
p.stdin.write("quit\n")
p.stdin.flush()
