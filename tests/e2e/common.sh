# common.sh — the preamble of every end-to-end script, sourced first thing:
#
#     me=NAME                         # the script's name in messages
#     . "$(dirname "$0")/common.sh"
#
# It sets no shell options (each script keeps its own `set` line) and defines:
#   top_srcdir, top_builddir  absolute; `make check` passes them, a direct run from the
#                             build directory defaults to this script's tree and "."
#   PY                        a python3, Debian's /usr/bin/python3 when present; this
#                             directory is on PYTHONPATH (mutate.py: tampered files)
#   EINZK                     the built program (absolute path; not checked: need_built)
#   work                      a fresh temporary directory, removed when the script exits
#   need_built PROG...        exit 99 (a hard error for automake) unless every PROG is built
#   need_numpy                exit 77 (skipped) unless $PY imports numpy
#   fail MESSAGE...           "NAME: FAIL: MESSAGE" on stderr, exit 1
#   expect CODE WHAT -- CMD...  run CMD with stdout/stderr in $work/out.txt, $work/err.txt;
#                             fail (showing both) unless it exits with CODE
#   each_file_rejected WHAT DIR CMD...  run CMD once per file of DIR, the argument {}
#                             replaced by the file: each run must exit 1 (a rejection,
#                             never a crash); $count is set to the number of files
top_srcdir=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
top_builddir=$(cd "${top_builddir:-.}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=${PYTHON3:-python3}
PYTHONPATH=$top_srcdir/tests/e2e${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the source tree
export PYTHONPATH PYTHONDONTWRITEBYTECODE
EINZK=$top_builddir/einzk

need_built() {
    for prog_ in "$@"; do
        if [ ! -x "$prog_" ]; then
            echo "$me: $prog_ not built (make check builds it)" >&2
            exit 99
        fi
    done
}

need_numpy() {
    "$PY" -c 'import numpy' 2>/dev/null && return 0
    echo "$me: no python3 with numpy (apt-get install python3-numpy); skipped" >&2
    exit 77
}

fail() {
    echo "$me: FAIL: $*" >&2
    exit 1
}

expect() {
    want_=$1
    what_=$2
    shift 3
    rc_=0
    "$@" >"$work/out.txt" 2>"$work/err.txt" || rc_=$?
    if [ "$rc_" -ne "$want_" ]; then
        cat "$work/out.txt" "$work/err.txt" >&2
        fail "$what_: exit $rc_, expected $want_"
    fi
}

# with_file_ FILE CMD...: run CMD with every argument {} replaced by FILE
with_file_() {
    file_=$1
    shift
    for arg_; do
        shift
        if [ "$arg_" = "{}" ]; then set -- "$@" "$file_"; else set -- "$@" "$arg_"; fi
    done
    "$@"
}

each_file_rejected() {
    each_what_=$1
    each_dir_=$2
    shift 2
    count=0
    for each_f_ in "$each_dir_"/*; do
        expect 1 "$each_what_ $(basename "$each_f_")" -- with_file_ "$each_f_" "$@"
        count=$((count + 1))
    done
}

work=$(mktemp -d "${TMPDIR:-/tmp}/ez$me.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
