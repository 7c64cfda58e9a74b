# Shared setup for scripts/run and scripts/test: Debian packages, then the CMake build.
# Everything here writes to stderr, so that stdout stays the engine's UCI channel.

PYTHIA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Packages the build needs (the tablebase server's HTTP and JSON libraries, Open MPI for pythia-mpi), and those
# only the tests need (clang-format for the format check; reference tablebase probers; Chromium
# and Selenium for the explorer's test; PyTorch for the trainer's test, eval/nnue/train.py).
BUILD_PACKAGES=(build-essential cmake pkg-config catch2 libspdlog-dev libfmt-dev libxxhash-dev liblz4-dev
                libcpp-httplib-dev libboost-dev nlohmann-json3-dev openmpi-bin libopenmpi-dev)
TEST_PACKAGES=(clang-format libgaviotatb-dev gaviotatb libfathom-dev polyglot gnuchess-book
               python3-selenium chromium chromium-driver python3-torch python3-numpy)

log() { printf '[pythia] %s\n' "$*" >&2; }

# Installs the given Debian packages that are missing. With all present, apt is not touched.
# Not root and something missing: prints the exact command and fails.
ensure_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local cmd="apt-get install -y --no-install-recommends ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        log "missing Debian packages: ${missing[*]}"
        log "install them as root with:"
        printf 'apt-get update && %s\n' "$cmd" >&2
        exit 1
    fi
    log "installing ${missing[*]}"
    # Try without a refresh first (fast, offline-friendly); refresh the lists only if needed.
    DEBIAN_FRONTEND=noninteractive $cmd >&2 ||
        { DEBIAN_FRONTEND=noninteractive apt-get update >&2 && DEBIAN_FRONTEND=noninteractive $cmd >&2; }
}

# True when some source or build file is newer than the given file.
sources_newer_than() {
    local target="$1"
    [ -e "$target" ] || return 0
    [ -n "$(find "$PYTHIA_ROOT" \( -path "$PYTHIA_ROOT/build" -o -path "$PYTHIA_ROOT/.git" -o -path "$PYTHIA_ROOT/tablebases" \) -prune -o \
        -type f \( -name '*.cpp' -o -name '*.h' -o -name 'CMakeLists.txt' -o -name 'CMakePresets.json' -o -name '*.cmake' \
        -o -name '*.html' -o -name '*.js' -o -name '*.css' \) \
        -newer "$target" -print -quit)" ]
}

# Configures (once) and builds a preset: the given targets, or everything. The engine alone
# (`build_preset release engine`: the binary and the default book, not the tests) is skipped when
# the binary is newer than every source file.
build_preset() {
    local preset="$1" dir="$PYTHIA_ROOT/build/$1"
    shift
    local targets=()
    [ "${1:-}" = engine ] && targets=(pythia pythia_default_book)
    # The default opening book is made from book/openings.pgn by the build: a newer PGN rebuilds too.
    if [ ${#targets[@]} -gt 0 ] && ! sources_newer_than "$dir/pythia" &&
        ! [ "$PYTHIA_ROOT/book/openings.pgn" -nt "$dir/book/pythia.bin" ]; then
        return 0
    fi
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        log "configuring the $preset build"
        (cd "$PYTHIA_ROOT" && cmake --preset "$preset" >&2)
    fi
    log "building ($preset${targets:+: the engine})"
    (cd "$PYTHIA_ROOT" && cmake --build --preset "$preset" -j "$(nproc)" ${targets:+--target "${targets[@]}"} >&2)
}

# The default tablebases (every table of 3 and 4 pieces) in tablebases/, generated on first
# use. `tb generate` checks the stored tables and skips those present and valid, so after the
# first run this takes a moment; its report goes to stderr like all setup output.
ensure_default_tablebases() {
    "$PYTHIA_ROOT/build/release/pythia" tb generate --all 4 --dir "$PYTHIA_ROOT/tablebases" >&2
}
