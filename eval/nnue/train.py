#!/usr/bin/python3
"""Trains Pythia's network on `pythia datagen` records and writes it as a quantised net file.

Run with Debian's Python (/usr/bin/python3, python3-torch 1.13). The model is the engine's
(eval/nnue/architecture.h): 768 piece-square inputs per perspective -> HIDDEN -> SCReLU of
[side to move, other side] -> 1. Its output o is an evaluation of o * SCALE centipawns; the loss
is the squared distance between sigmoid(o) and the target

    lambda * sigmoid(score / SCALE) + (1 - lambda) * result      (side to move's view)

Every weight is clipped to +-1.98 after each step (as Bullet does), so that the quantised net fits
the engine's int16 arithmetic (accumulators, and activation x output weight in the SIMD SCReLU).

    /usr/bin/python3 eval/nnue/train.py DATA.bin [DATA2.bin ...] --out net.nnue [--epochs 15]
"""

import argparse
import ctypes
import ctypes.util
import math
import os
import struct
import sys
import time

import numpy as np
import torch

# Must equal eval/nnue/packed_position.h.
RECORD = np.dtype([("occ", "<u8"), ("pieces", "u1", 16), ("score", "<i2"), ("result", "u1"),
                   ("stm", "u1"), ("game", "<u4")])
assert RECORD.itemsize == 32

# Must equal eval/nnue/architecture.h and network_file.h.
INPUTS, QA, QB, SCALE = 768, 255, 64, 400
MAGIC, FORMAT_VERSION, ACTIVATION_SCRELU = b"PYTHNNUE", 1, 1
WEIGHT_CLIP = 1.98            # 1.98 * QB = 126.7 <= OUTPUT_WEIGHT_LIMIT (127)
SCORE_LIMIT = 4000            # records beyond this score (won or lost anyway) are left out


def log(*args):
    print(time.strftime("[%H:%M:%S]"), *args, file=sys.stderr, flush=True)


CHECK_FENS = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
              "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
              "4k3/8/8/8/8/8/4P3/4K2Q b - - 0 1"]
PIECES = " PNBRQK  pnbrqk"


def record_of_fen(fen):
    """A one-record array of a FEN's board and side to move (as pack_position writes it)."""
    r = np.zeros(1, dtype=RECORD)
    board, stm = fen.split()[:2]
    occ, nibbles = 0, []
    for rank_index, row in enumerate(board.split("/")):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
                continue
            sq = (7 - rank_index) * 8 + f
            occ |= 1 << sq
            nibbles.append((sq, PIECES.index(c)))
            f += 1
    nibbles = [p for _, p in sorted(nibbles)] + [0]
    r["occ"] = np.uint64(occ)
    r["pieces"][0, :len(nibbles) // 2] = [nibbles[i] | (nibbles[i + 1] << 4) for i in range(0, len(nibbles) - 1, 2)]
    r["stm"] = 1 if stm == "b" else 0
    return r


def load(paths):
    data = np.concatenate([np.fromfile(p, dtype=RECORD) for p in paths])
    keep = np.abs(data["score"].astype(np.int32)) <= SCORE_LIMIT
    return data[keep]


def features(batch, mirror=None):
    """EmbeddingBag inputs of a batch: (stm indices, other side's indices, offsets). Positions
    whose `mirror` entry is true are mirrored left to right (a-file <-> h-file): the network does
    not see castling rights, and for everything else the mirrored position is as good or bad."""
    n = len(batch)
    occ = np.ascontiguousarray(batch["occ"]).view(np.uint8).reshape(n, 8)
    bits = np.unpackbits(occ, axis=1, bitorder="little")
    nibbles = np.empty((n, 32), dtype=np.uint8)
    nibbles[:, 0::2] = batch["pieces"] & 15
    nibbles[:, 1::2] = batch["pieces"] >> 4
    # The k-th occupied square (in square order) holds the k-th nibble.
    rank = np.clip(np.cumsum(bits, axis=1, dtype=np.int64) - 1, 0, 31)
    piece = np.take_along_axis(nibbles, rank, axis=1) * bits
    row, square = np.nonzero(piece)  # row-major: positions in order, squares ascending
    p = piece[row, square].astype(np.int64)
    if mirror is not None:
        square = np.where(mirror[row], square ^ 7, square)
    color, kind = p >> 3, (p & 7) - 1
    white_view = color * 384 + kind * 64 + square
    black_view = (1 - color) * 384 + kind * 64 + (square ^ 56)
    black_to_move = batch["stm"][row] == 1
    stm = np.where(black_to_move, black_view, white_view)
    other = np.where(black_to_move, white_view, black_view)
    counts = bits.sum(axis=1, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return torch.from_numpy(stm), torch.from_numpy(other), torch.from_numpy(offsets)


def targets(batch, lam):
    sign = np.where(batch["stm"] == 0, 1.0, -1.0)
    score = batch["score"].astype(np.float64) * sign
    result = (batch["result"].astype(np.float64) / 2.0 - 0.5) * sign + 0.5
    t = lam * (1.0 / (1.0 + np.exp(-score / SCALE))) + (1.0 - lam) * result
    return torch.from_numpy(t.astype(np.float32)).unsqueeze(1)


class Net(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.hidden = hidden
        self.ft = torch.nn.EmbeddingBag(INPUTS, hidden, mode="sum")
        self.ft_bias = torch.nn.Parameter(torch.zeros(hidden))
        self.out = torch.nn.Linear(2 * hidden, 1)
        with torch.no_grad():
            self.ft.weight.uniform_(-0.1, 0.1)
            self.out.weight.uniform_(-0.05, 0.05)
            self.out.bias.zero_()

    def forward(self, stm, other, offsets):
        a = self.ft(stm, offsets) + self.ft_bias
        b = self.ft(other, offsets) + self.ft_bias
        x = torch.cat([torch.clamp(a, 0, 1) ** 2, torch.clamp(b, 0, 1) ** 2], dim=1)
        return self.out(x)

    def clip(self):
        with torch.no_grad():
            for p in self.parameters():
                p.clamp_(-WEIGHT_CLIP, WEIGHT_CLIP)


def xxh64(data):
    lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
    lib.XXH64.restype = ctypes.c_uint64
    lib.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
    return lib.XXH64(data, len(data), 0)


def write_net(model, path):
    def q(t, scale):
        return np.clip(np.round(t.detach().numpy().astype(np.float64) * scale), -32767, 32767).astype("<i2")

    ft_w = q(model.ft.weight, QA)                 # (768, hidden): input-major, as the engine's rows
    ft_b = q(model.ft_bias, QA)
    out_w = np.clip(q(model.out.weight.reshape(-1), QB), -127, 127).astype("<i2")
    out_b = q(model.out.bias, QA * QB)
    payload = ft_w.tobytes() + ft_b.tobytes() + out_w.tobytes() + out_b.tobytes()
    header = MAGIC + struct.pack("<8I", FORMAT_VERSION, INPUTS, model.hidden, ACTIVATION_SCRELU, QA, QB, SCALE, 0)
    header += struct.pack("<Q", xxh64(payload))
    assert len(header) == 48
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header + payload)
    os.replace(tmp, path)


def read_weights(path, h):
    """The quantised weights of a net file written by write_net, checked: feature weights
    (INPUTS x h), feature bias (h), output weights (2h), output bias (1), as int64 arrays."""
    with open(path, "rb") as f:
        blob = f.read()
    fields = struct.unpack_from("<8I", blob, 8) if len(blob) >= 48 else None
    if blob[:8] != MAGIC or fields is None or fields[:3] != (FORMAT_VERSION, INPUTS, h) or \
            fields[4:7] != (QA, QB, SCALE):
        sys.exit(f"{path}: not a version-{FORMAT_VERSION} net of {INPUTS} inputs and hidden width {h}")
    payload = blob[48:]
    if len(payload) != 2 * (INPUTS * h + h + 2 * h + 1) or struct.unpack_from("<Q", blob, 40)[0] != xxh64(payload):
        sys.exit(f"{path}: wrong length or checksum")
    ft_w, ft_b, out_w, out_b = np.split(np.frombuffer(payload, dtype="<i2").astype(np.int64),
                                        np.cumsum([INPUTS * h, h, 2 * h]))
    return ft_w.reshape(INPUTS, h), ft_b, out_w, out_b


def read_net(model, path):
    """Loads a net file written by write_net into the float model (dequantised), to go on
    training it: the next generation starts from the last net instead of from random weights."""
    ft_w, ft_b, out_w, out_b = (torch.from_numpy(x.astype(np.float32)) for x in read_weights(path, model.hidden))
    with torch.no_grad():
        model.ft.weight.copy_(ft_w / QA)
        model.ft_bias.copy_(ft_b / QA)
        model.out.weight.copy_(out_w.reshape(1, -1) / QB)
        model.out.bias.copy_(out_b / (QA * QB))


def evaluate(model, data, batch_size, lam):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(data), batch_size):
            b = data[i:i + batch_size]
            pred = torch.sigmoid(model(*features(b)))
            total += float(((pred - targets(b, lam)) ** 2).sum())
            n += len(b)
    model.train()
    return total / max(n, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", nargs="+", help="files written by pythia datagen")
    ap.add_argument("--out", required=True, help="the quantised net file to write")
    ap.add_argument("--hidden", type=int, default=128, help="accumulator width (the engine's HIDDEN)")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lr-drop", type=float, default=0.3,
                    help="learning rate factor after 60 %% and 85 %% of the epochs")
    ap.add_argument("--lam", type=float, default=1.0,
                    help="weight of the search score against the game result (1: the score alone)")
    ap.add_argument("--validation", type=float, default=0.05, help="share of games held out")
    ap.add_argument("--no-mirror", dest="mirror", action="store_false",
                    help="do not mirror half of each batch left to right (mirroring doubles the data)")
    ap.add_argument("--init", metavar="NET",
                    help="start from this net file's weights instead of random ones (fine-tuning)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    start = time.time()
    data = load(args.data)
    # Hold out whole games (a game's positions are alike): those whose number hashes low.
    held = (data["game"].astype(np.uint64) * np.uint64(2654435761) % np.uint64(1000)) < args.validation * 1000
    train, valid = data[~held], data[held]
    log(f"{len(data)} positions ({len(train)} training, {len(valid)} validation) from {len(args.data)} file(s), "
        f"loaded in {time.time() - start:.1f} s")

    model = Net(args.hidden)
    if args.init:
        read_net(model, args.init)
        log(f"starting from {args.init}: validation {evaluate(model, valid, args.batch, args.lam):.6f}")
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    drops = {int(args.epochs * 0.6), int(args.epochs * 0.85)}
    best, best_state = (float("inf"), 0), None
    for epoch in range(1, args.epochs + 1):
        if epoch in drops:
            for g in opt.param_groups:
                g["lr"] *= args.lr_drop
        t0 = time.time()
        order = rng.permutation(len(train))
        total, n = 0.0, 0
        for i in range(0, len(order), args.batch):
            b = train[np.sort(order[i:i + args.batch])]
            mirror = rng.random(len(b)) < 0.5 if args.mirror else None
            pred = torch.sigmoid(model(*features(b, mirror)))
            loss = ((pred - targets(b, args.lam)) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            model.clip()
            total += float(loss) * len(b)
            n += len(b)
        v = evaluate(model, valid, args.batch, args.lam) if len(valid) else float("nan")
        # Early stopping: the net written is the one of the best validation loss so far (a
        # stopped run leaves it too); without validation data, the last one.
        saved = not len(valid) or v < best[0]
        if saved:
            best = (v, epoch)
            write_net(model, args.out)
            best_state = {k: t.clone() for k, t in model.state_dict().items()}
        log(f"epoch {epoch}/{args.epochs}: training loss {total / n:.6f}, validation {v:.6f}, "
            f"lr {opt.param_groups[0]['lr']:.2e}, {time.time() - t0:.0f} s{', written' if saved else ''}")
    model.load_state_dict(best_state)
    log(f"wrote {args.out} ({os.path.getsize(args.out)} bytes, epoch {best[1]}, validation {best[0]:.6f}) "
        f"after {time.time() - start:.0f} s")
    # The float model's view of a few positions, to compare with the engine's `eval` command.
    with torch.no_grad():
        model.eval()
        for fen in CHECK_FENS:
            log(f"float model: {float(model(*features(record_of_fen(fen)))) * SCALE:.1f} cp (side to move) for {fen}")


if __name__ == "__main__":
    main()
