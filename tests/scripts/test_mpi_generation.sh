#!/usr/bin/env bash
# pythia-mpi makes the files pythia makes: a pawnless table (KQvKR) and one with pawns (KRvKP)
# by four ranks over shared memory, and KQvKR by three over TCP on the loopback, each compared
# with one process's files (same_table_files.py: all but the write id and the times).
#   test_mpi_generation.sh PYTHIA PYTHIA_MPI MPIEXEC TABLES
# TABLES: a folder of 3-4-piece tables to start from (the tests' own); without them every run
# makes the subtables too, and those are compared as well.
set -euo pipefail
pythia=$1 pythia_mpi=$2 mpiexec=$3 tables=$4
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

start_folder() {  # the tables to start from, less those the runs make
    mkdir -p "$1"
    for f in "$tables"/*.pytw "$tables"/*.pytd; do
        [ -f "$f" ] && { ln "$f" "$1/" 2>/dev/null || cp "$f" "$1/"; }
    done
    rm -f "$1"/KQvKR.* "$1"/KRvKP.*
}

same_files() {  # every table file of $1 is in $2, the same
    local f n=0
    for f in "$1"/*.pytw "$1"/*.pytd; do
        python3 "$here/same_table_files.py" "$f" "$2/$(basename "$f")"
        n=$((n + 1))
    done
    echo "$n files of $1 the same in $2"
}

mpirun=("$mpiexec" --allow-run-as-root --oversubscribe --bind-to none)
start_folder "$work/one"
"$pythia" tb generate KQvKR KRvKP --dir "$work/one" --threads 1 > /dev/null
start_folder "$work/shared-memory"
"${mpirun[@]}" -np 4 "$pythia_mpi" tb generate KQvKR KRvKP --dir "$work/shared-memory" --threads 1 > /dev/null
same_files "$work/one" "$work/shared-memory"
start_folder "$work/tcp"
"${mpirun[@]}" -np 3 --mca btl tcp,self "$pythia_mpi" tb generate KQvKR --dir "$work/tcp" --threads 1 > /dev/null
for f in "$work/tcp"/KQvKR.*; do python3 "$here/same_table_files.py" "$work/one/$(basename "$f")" "$f"; done
echo "KQvKR over TCP the same"

# Usage: pythia-mpi does tb generate and nothing else, on every rank.
if "${mpirun[@]}" -np 2 "$pythia_mpi" bench 2> "$work/usage.err"; then
    echo "pythia-mpi ran something other than tb generate" >&2
    exit 1
fi
grep -q "usage: mpirun --bind-to none -np N pythia-mpi tb generate" "$work/usage.err"
echo "pass"
