#!/usr/bin/env bash
# scripts/spsa as a tuner must behave: with a stand-in match tool in which the side with the
# larger RFP_MARGIN - FUTILITY_BASE wins every game, SPSA has to raise RFP_MARGIN and lower
# FUTILITY_BASE (a sign error anywhere in the perturbation, the scoring or the update moves
# them the other way); a finished run resumed does nothing more; an engine without tunables
# (the release build) and bad arguments are refused with status 2.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
pythia="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A tuning build's `uci` answer, for two of search/params.h's tunables.
cat > "$work/engine" <<'ENGINE'
#!/bin/sh
echo "id name stand-in"
echo "option name Hash type spin default 16 min 1 max 65536"
echo "option name RFP_MARGIN type spin default 80 min 30 max 160"
echo "option name FUTILITY_BASE type spin default 100 min 20 max 250"
echo "uciok"
ENGINE
# fastchess as scripts/spsa calls it: two engines named plus and minus with their options, one
# game pair. The side with the larger RFP_MARGIN - FUTILITY_BASE wins both games; equal: draws.
cat > "$work/fastchess" <<'TOOL'
#!/usr/bin/env python3
import sys
sides, current = {}, None
for a in sys.argv[1:]:
    if a.startswith("name="):
        current = a[5:]
        sides[current] = {}
    elif a.startswith("option.") and current in ("plus", "minus"):
        k, v = a[7:].split("=")
        sides[current][k] = int(v)
    elif a == "-each":
        current = None
edge = lambda s: s["RFP_MARGIN"] - s["FUTILITY_BASE"]
d = edge(sides["plus"]) - edge(sides["minus"])
first = "1-0" if d > 0 else "0-1" if d < 0 else "1/2-1/2"
second = {"1-0": "0-1", "0-1": "1-0"}.get(first, first)
print(f"Finished game 1 (plus vs minus): {first} {{White mates}}")
print(f"Finished game 2 (minus vs plus): {second} {{Black mates}}")
TOOL
chmod +x "$work/engine" "$work/fastchess"
printf 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n' > "$work/openings.epd"

run() { FASTCHESS="$work/fastchess" "$root/scripts/spsa" --engine "$work/engine" --openings "$work/openings.epd" \
        --state "$work/state.json" --report 1000 "$@"; }
run --pairs 200 --concurrency 2 > "$work/out" 2>&1 || fail "the run failed: $(tail -3 "$work/out")"
value() { python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['params'][sys.argv[2]]['value']))" \
          "$work/state.json" "$1"; }
[ "$(python3 -c "import json; print(json.load(open('$work/state.json'))['pairs_done'])")" = 200 ] ||
    fail "not 200 pairs played"
rfp="$(value RFP_MARGIN)" fut="$(value FUTILITY_BASE)"
[ "$rfp" -ge 95 ] || fail "RFP_MARGIN went from 80 to $rfp, not up"
[ "$fut" -le 85 ] || fail "FUTILITY_BASE went from 100 to $fut, not down"
grep -q "RFP_MARGIN" "$work/out" || fail "the final values were not printed"

cp "$work/state.json" "$work/before.json"
run --pairs 200 > "$work/out" 2>&1 || fail "resuming failed"
grep -q "resuming" "$work/out" || fail "a second run did not resume"
cmp -s "$work/state.json" "$work/before.json" || fail "resuming a finished run changed it"

status=0; FASTCHESS="$work/fastchess" "$root/scripts/spsa" --engine "$pythia" --state "$work/x.json" \
    > "$work/out" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "tuning build" "$work/out" || fail "the release build was not refused (status $status)"
status=0; run --pairs 0 > /dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--pairs 0 exited with $status, not 2"
status=0; run --params NO_SUCH_PARAM --state "$work/y.json" > "$work/out" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q "NO_SUCH_PARAM" "$work/out" || fail "an unknown --params was not refused"
echo "scripts/spsa: follows the gradient, resumes, refuses what it cannot tune"
