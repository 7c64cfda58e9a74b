#!/usr/bin/python3
"""The trainer (eval/nnue/train.py) against the engine: what one writes, the other reads.

    test_trainer.py PYTHIA NET

1. `read_net` then `write_net` of a net file gives the same bytes (dequantising is exact).
2. A net file with one payload byte changed is refused by `--init`.
3. A short run fine-tuned from NET (`--init`) on a few `pythia datagen` games writes a net that
   the engine loads. The engine's network evaluation of the trainer's check positions equals,
   to the centipawn, the integer inference computed here from the file's weights (the engine's
   arithmetic: accumulator, SCReLU, dot product, truncating divisions), and is within
   quantisation error of the float model's.
4. The same for a net of king buckets (mirrored, format version 2) started from NET's weights,
   and for one of another width trained from random weights.

Exit 77 (skipped) when PyTorch or numpy is not installed (Debian's python3-torch, python3-numpy).
"""

import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
except ImportError:
    print("skipped: python3-torch and python3-numpy are not installed")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "..", "..", "eval", "nnue", "train.py")
sys.path.insert(0, os.path.dirname(TRAIN))
import train  # noqa: E402

TOLERANCE_CP = 40  # quantisation error of a net the clipping allows; pythia-1's was 3-5 cp


def truncating_div(a, b):
    """C++'s integer division (towards zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def integer_eval(path, fen):
    """The engine's evaluation (eval/nnue/evaluate_nnue.cpp) of fen with the net file at path."""
    h, layout, ft_w, ft_b, out_w, out_b = train.read_weights(path)
    stm, other, _ = train.features(train.record_of_fen(fen), layout)
    total = 0
    for indices, weights in ((stm, out_w[:h]), (other, out_w[h:])):
        acc = ft_b + ft_w[indices.numpy()].sum(axis=0)
        x = numpy.clip(acc, 0, train.QA)
        total += int((x * x * weights).sum())
    raw = truncating_div(total, train.QA) + int(out_b[0])
    return truncating_div(raw * train.SCALE, train.QA * train.QB)


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def engine_network_eval(pythia, net, fen):
    script = f"setoption name EvalFile value {net}\nposition fen {fen}\neval\nquit\n"
    out = subprocess.run([pythia], input=script, capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"network evaluation (-?\d+) \(side to move", out)
    if not m:
        fail(f"no network evaluation from the engine for {fen} with {net}:\n{out}")
    return int(m.group(1))


def main():
    pythia, net = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        # 1. Round trip.
        model = train.Net(128)
        train.read_net(model, net)
        copy = os.path.join(tmp, "copy.nnue")
        train.write_net(model, copy)
        with open(net, "rb") as a, open(copy, "rb") as b:
            if a.read() != b.read():
                fail("read_net + write_net changed the net's bytes")

        # 2. A corrupt net is refused.
        blob = bytearray(open(net, "rb").read())
        blob[1000] ^= 0x55
        corrupt = os.path.join(tmp, "corrupt.nnue")
        open(corrupt, "wb").write(blob)
        data = os.path.join(tmp, "games.bin")
        subprocess.run([pythia, "datagen", "--out", data, "--games", "4", "--nodes", "800", "--seed", "7"],
                       check=True, capture_output=True, timeout=300)
        run = subprocess.run([sys.executable, TRAIN, data, "--out", os.path.join(tmp, "x.nnue"),
                              "--init", corrupt, "--epochs", "1"], capture_output=True, text=True, timeout=300)
        if run.returncode == 0 or "checksum" not in run.stderr:
            fail(f"--init accepted a corrupt net (exit {run.returncode}): {run.stderr}")

        # 3. Fine-tune, then the engine reads what the trainer wrote; 4. the same for other shapes.
        runs = [("tuned", ["--init", net]),
                ("buckets", ["--init", net, "--king-buckets", "4"]),
                ("narrow", ["--hidden", "32", "--king-buckets", "8"])]
        for name, options in runs:
            tuned = os.path.join(tmp, name + ".nnue")
            run = subprocess.run([sys.executable, TRAIN, data, "--out", tuned, "--epochs", "2", "--batch", "64",
                                  "--lr", "0.001", "--validation", "0"] + options,
                                 capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                fail(f"train.py {' '.join(options)} failed: {run.stderr}")
            if open(tuned, "rb").read() == open(net, "rb").read():
                fail("two epochs of training left the net unchanged")
            version = open(tuned, "rb").read()[8]
            if version != (train.FORMAT_PLAIN if name == "tuned" else train.FORMAT_BUCKETED):
                fail(f"{name}: format version {version}")
            floats = re.findall(r"float model: (-?[\d.]+) cp \(side to move\) for (.+)", run.stderr)
            if len(floats) != len(train.CHECK_FENS):
                fail(f"the trainer printed {len(floats)} check positions:\n{run.stderr}")
            for value, fen in floats:
                engine = engine_network_eval(pythia, tuned, fen)
                if engine != integer_eval(tuned, fen):
                    fail(f"{name}, {fen}: the engine says {engine} cp, the integer inference "
                         f"{integer_eval(tuned, fen)}")
                if abs(engine - float(value)) > TOLERANCE_CP:
                    fail(f"{name}, {fen}: the engine says {engine} cp, the float model {value}")
                print(f"ok: {name}: {fen}: engine {engine} cp, float model {value}")
    print("trainer and engine agree")


if __name__ == "__main__":
    main()
