#!/usr/bin/env python3
"""Exits 0 if two tablebase files (.pytw or .pytd) are the same but for what differs between any
two writes of one table: the write id, the header's checksum, and the statistics' times and
thread count (tablebase/format/file_format.h). Otherwise prints the first difference, exits 1.
    same_table_files.py A B"""
import struct
import sys

HEADER = 120  # sizeof(FileHeader)
STATS_TIMES = 192  # the two SideStatistics before generation_seconds in TableStatistics


def normalised(path):
    data = bytearray(open(path, "rb").read())
    if len(data) < HEADER:
        return data
    data[56:64] = bytes(8)  # write_id
    data[72:80] = bytes(8)  # header_hash
    stats_offset, stats_size = struct.unpack_from("<II", data, 80)
    if stats_offset:
        # generation_seconds, write_seconds, written_unix_time, generation_threads
        start = stats_offset + STATS_TIMES
        data[start : start + 28] = bytes(28)
    return data


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = (normalised(p) for p in sys.argv[1:])
    if a == b:
        return 0
    at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    print(f"{sys.argv[1]} and {sys.argv[2]} differ at byte {at} (sizes {len(a)} and {len(b)})")
    return 1


if __name__ == "__main__":
    sys.exit(main())
