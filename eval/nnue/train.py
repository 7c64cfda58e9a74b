#!/usr/bin/python3
"""Trains Pythia's network on `pythia datagen` records and writes it as a quantised net file.

Run with Debian's Python (/usr/bin/python3, python3-torch 1.13). The model is the engine's
(eval/nnue/architecture.h): 768 piece-square inputs per perspective and king bucket -> hidden ->
SCReLU of [side to move, other side] -> 1. `--king-buckets` picks a layout of LAYOUTS (the
default, none, is the plain 768-input net of format version 1). Its output o is an evaluation of
o * SCALE centipawns; the loss is the squared distance between sigmoid(o) and the target

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
INPUTS, QA, QB, SCALE = 768, 255, 64, 400     # INPUTS: of one king bucket
MAGIC, FORMAT_PLAIN, FORMAT_BUCKETED, ACTIVATION_SCRELU, FLAG_MIRRORED = b"PYTHNNUE", 1, 2, 1, 1

# King bucket layouts: (mirrored, the bucket of the perspective's own king on each square of files
# a-d, rank 1 first, as that perspective sees the board). A mirrored net sees the board left to
# right mirrored while its king is on files e-h, so those squares take their mirror's bucket.
LAYOUTS = {
    "none": (False, [0] * 32),
    "mirror": (True, [0] * 32),
    "4": (True, [0, 0, 1, 1] + [2] * 4 + [3] * 24),
    "8": (True, [0, 1, 2, 3] + [4, 4, 5, 5] + [6] * 8 + [7] * 16),
    "16": (True, [0, 1, 2, 3] + [4, 5, 6, 7] + [8, 8, 9, 9] + [10, 10, 11, 11] + [12, 12, 13, 13] * 2 +
           [14, 14, 15, 15] * 2),
}


class Layout:
    """A king bucket layout as the net file stores it: mirrored or not, and a bucket for each of
    the 64 squares of the perspective's own king."""

    def __init__(self, mirrored, table64):
        self.mirrored = bool(mirrored)
        self.table = np.asarray(table64, dtype=np.int64)
        self.buckets = int(self.table.max()) + 1

    @staticmethod
    def named(name):
        mirrored, half = LAYOUTS[name]
        table = [half[(sq >> 3) * 4 + min(sq & 7, 7 - (sq & 7))] for sq in range(64)]
        return Layout(mirrored, table)

    def plain(self):
        return not self.mirrored and self.buckets == 1
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


def features(batch, layout, mirror=None):
    """EmbeddingBag inputs of a batch: (stm indices, other side's indices, offsets). Positions
    whose `mirror` entry is true are mirrored left to right (a-file <-> h-file): the network does
    not see castling rights, and for everything else the mirrored position is as good or bad.
    Each perspective's inputs are those of its king's bucket, mirrored while that king is on
    files e-h in a mirrored layout (eval/nnue/architecture.h, feature_index)."""
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
    # Each position's kings (a position has exactly one of each), as each perspective sees them.
    white_king, black_king = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    white_king[row[p == 6]] = square[p == 6]
    black_king[row[p == 14]] = square[p == 14] ^ 56
    views = []
    for king, flip_ranks in ((white_king, 0), (black_king, 56)):
        flip_files = np.where(layout.mirrored & ((king & 7) >= 4), 7, 0)
        views.append(((layout.table[king] * INPUTS)[row], flip_ranks ^ flip_files[row]))
    (white_bucket, white_flip), (black_bucket, black_flip) = views
    white_view = white_bucket + color * 384 + kind * 64 + (square ^ white_flip)
    black_view = black_bucket + (1 - color) * 384 + kind * 64 + (square ^ black_flip)
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
    def __init__(self, hidden, layout=None):
        super().__init__()
        self.hidden = hidden
        self.layout = layout or Layout.named("none")
        self.ft = torch.nn.EmbeddingBag(INPUTS * self.layout.buckets, hidden, mode="sum")
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

    layout = model.layout
    ft_w = q(model.ft.weight, QA)                 # (inputs, hidden): input-major, as the engine's rows
    ft_b = q(model.ft_bias, QA)
    out_w = np.clip(q(model.out.weight.reshape(-1), QB), -127, 127).astype("<i2")
    out_b = q(model.out.bias, QA * QB)
    payload = ft_w.tobytes() + ft_b.tobytes() + out_w.tobytes() + out_b.tobytes()
    if not layout.plain():
        payload = layout.table.astype(np.uint8).tobytes() + payload
    version, flags = (FORMAT_PLAIN, 0) if layout.plain() else (FORMAT_BUCKETED, FLAG_MIRRORED * layout.mirrored)
    header = MAGIC + struct.pack("<8I", version, INPUTS * layout.buckets, model.hidden, ACTIVATION_SCRELU, QA, QB,
                                 SCALE, flags)
    header += struct.pack("<Q", xxh64(payload))
    assert len(header) == 48
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header + payload)
    os.replace(tmp, path)


def read_weights(path):
    """The shape and quantised weights of a net file (either version), checked: (hidden, Layout,
    feature weights (inputs x hidden), feature bias (hidden), output weights (2 hidden), output
    bias (1)), the weights as int64 arrays."""
    with open(path, "rb") as f:
        blob = f.read()
    fields = struct.unpack_from("<8I", blob, 8) if len(blob) >= 48 else None
    if blob[:8] != MAGIC or fields is None or fields[0] not in (FORMAT_PLAIN, FORMAT_BUCKETED) or \
            fields[1] % INPUTS or fields[3:7] != (ACTIVATION_SCRELU, QA, QB, SCALE):
        sys.exit(f"{path}: not a Pythia net file this trainer reads")
    version, inputs, h, flags = fields[0], fields[1], fields[2], fields[7]
    rest = blob[48:]
    if struct.unpack_from("<Q", blob, 40)[0] != xxh64(rest):
        sys.exit(f"{path}: checksum mismatch")
    if version == FORMAT_BUCKETED:
        layout, rest = Layout(flags & FLAG_MIRRORED, np.frombuffer(rest[:64], dtype=np.uint8)), rest[64:]
    else:
        layout = Layout.named("none")
    if len(rest) != 2 * (inputs * h + h + 2 * h + 1) or layout.buckets * INPUTS != inputs:
        sys.exit(f"{path}: wrong length for its shape")
    ft_w, ft_b, out_w, out_b = np.split(np.frombuffer(rest, dtype="<i2").astype(np.int64),
                                        np.cumsum([inputs * h, h, 2 * h]))
    return h, layout, ft_w.reshape(inputs, h), ft_b, out_w, out_b


def read_net(model, path):
    """Loads a net file written by write_net into the float model (dequantised), to go on
    training it: the next generation starts from the last net instead of from random weights.
    A plain net's weights start every king bucket of a bucketed model alike."""
    h, layout, *weights = read_weights(path)
    if h != model.hidden or not (layout.plain() or np.array_equal(layout.table, model.layout.table)) or \
            (not layout.plain() and layout.mirrored != model.layout.mirrored):
        sys.exit(f"{path}: a net of another shape (hidden {h}, {layout.buckets} king bucket(s)) than the model's")
    ft_w, ft_b, out_w, out_b = (torch.from_numpy(x.astype(np.float32)) for x in weights)
    if layout.buckets != model.layout.buckets:
        ft_w = ft_w.repeat(model.layout.buckets, 1)
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
            pred = torch.sigmoid(model(*features(b, model.layout)))
            total += float(((pred - targets(b, lam)) ** 2).sum())
            n += len(b)
    model.train()
    return total / max(n, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", nargs="+", help="files written by pythia datagen")
    ap.add_argument("--out", required=True, help="the quantised net file to write")
    ap.add_argument("--hidden", type=int, default=128,
                    help="accumulator width (a multiple of 16, at most 1024: eval/nnue/architecture.h)")
    ap.add_argument("--king-buckets", choices=sorted(LAYOUTS), default="none",
                    help="king bucket layout (LAYOUTS); none: the plain 768-input net")
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

    if args.hidden <= 0 or args.hidden % 16 or args.hidden > 1024:
        sys.exit(f"--hidden {args.hidden}: a multiple of 16 up to 1024")
    model = Net(args.hidden, Layout.named(args.king_buckets))
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
            pred = torch.sigmoid(model(*features(b, model.layout, mirror)))
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
            value = float(model(*features(record_of_fen(fen), model.layout))) * SCALE
            log(f"float model: {value:.1f} cp (side to move) for {fen}")


if __name__ == "__main__":
    main()
