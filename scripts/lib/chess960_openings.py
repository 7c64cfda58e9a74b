#!/usr/bin/env python3
"""Prints the 960 start positions of Fischer Random chess as EPD lines, in Scharnagl's
numbering (0-959; number 518 is the standard position), for `scripts/match --variant
fischerandom`. Castling rights are written KQkq (X-FEN): at the start each side has one rook on
either side of its king, so the letters are unambiguous."""
import sys


def back_rank(n):
    """The white back rank of start position n (Scharnagl), as piece letters from a to h."""
    rank = [None] * 8
    n, light = divmod(n, 4)          # light-squared bishop: b, d, f, h
    rank[2 * light + 1] = "B"
    n, dark = divmod(n, 4)           # dark-squared bishop: a, c, e, g
    rank[2 * dark] = "B"
    n, queen = divmod(n, 6)          # the queen on the queen-th free square
    free = [i for i in range(8) if rank[i] is None]
    rank[free[queen]] = "Q"
    knights = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)][n]
    free = [i for i in range(8) if rank[i] is None]
    for k in knights:
        rank[free[k]] = "N"
    free = [i for i in range(8) if rank[i] is None]  # rook, king, rook in this order
    for square, piece in zip(free, "RKR"):
        rank[square] = piece
    return "".join(rank)


def main():
    for n in range(960):
        white = back_rank(n)
        print(f"{white.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1 ;id \"960-{n}\";")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit("usage: chess960_openings.py  (prints all 960 start positions)")
    main()
