#!/usr/bin/env bash
# scripts/match as a user meets it: --help shows the help and nothing of the script's code, bad
# arguments are usage errors (status 2), and the 960 openings are the 960 distinct start
# positions, each taken by Pythia in Chess960 mode with the right moves.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
pythia="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }

help="$("$root/scripts/match" --help)" || fail "--help exited with $?"
grep -q -- '--opponent CMD' <<<"$help" || fail "--help does not describe --opponent"
grep -q -- '--variant' <<<"$help" || fail "--help does not describe --variant"
! grep -q -E 'set -euo|root=|^#' <<<"$help" || fail "--help shows the script's code"

status=0; "$root/scripts/match" --bogus 2>/dev/null || status=$?
[ "$status" -eq 2 ] || fail "an unknown argument exited with $status, not 2"
status=0; "$root/scripts/match" --opponent /bin/true --variant crazyhouse 2>/dev/null || status=$?
[ "$status" -eq 2 ] || fail "an unknown variant exited with $status, not 2"

epd="$(python3 "$root/scripts/lib/chess960_openings.py")"
[ "$(wc -l <<<"$epd")" -eq 960 ] || fail "not 960 openings"
[ "$(cut -d' ' -f1 <<<"$epd" | sort -u | wc -l)" -eq 960 ] || fail "the 960 openings are not distinct"
grep -q '^rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;id "960-518";$' <<<"$epd" ||
    fail "position 518 is not the standard start"
# Every opening is accepted by Pythia in Chess960 mode, with the right number of first moves:
# 16 pawn moves, a knight's moves to the third rank, and castling where king and rook stand
# side by side on their castled squares' files (king f, rook g; king d, rook c), legal at once.
expected="$(python3 -c '
import sys
for line in sys.stdin:
    rank = line.split("/")[7].split()[0]
    knights = sum((f > 0) + (f < 7) for f, p in enumerate(rank) if p == "N")
    castle = (rank[5] == "K" and rank[6] == "R") + (rank[3] == "K" and rank[2] == "R")
    print(16 + knights + castle)' <<<"$epd")"
input="uci"$'\n'"setoption name UCI_Chess960 value true"$'\n'
while IFS= read -r line; do input+="position fen ${line%% ;*}"$'\n'"go perft 1"$'\n'; done <<<"$epd"
input+="quit"$'\n'
out="$("$pythia" <<<"$input" 2>/dev/null)"
refused="$(grep 'info string' <<<"$out" | grep -v 'info string perft' || true)"
[ -z "$refused" ] || fail "Pythia refused an opening: $(head -1 <<<"$refused")"
counts="$(sed -n 's/^Nodes searched: //p' <<<"$out")"
[ "$counts" = "$expected" ] || fail "first-move counts differ: $(diff <(echo "$expected") <(echo "$counts") | head -3)"
echo "scripts/match: help, usage errors and the 960 openings are right"
