#!/usr/bin/env bash
# tests/sanitize.sh — the whole test suite (`make check`) on an ASan+UBSan build
# (configure --enable-sanitizers), as docs/architecture.md "Tests" asks. Used by `./quickstart test`.
#
#   tests/sanitize.sh [DIR]      DIR defaults to build-asan (in the source tree; ignored by git)
#
# A source tree configured in place cannot host a VPATH build, so the sources are copied
# to DIR/src and built there in place. The copy is incremental: only files whose contents
# changed are rewritten (with a fresh mtime, so make rebuilds exactly what they affect),
# files gone from the source are removed, and autoreconf/configure run only when the
# copy has never been configured; later changes to configure.ac or Makefile.am are
# picked up by the generated Makefile's own regeneration rules.
# Sanitizer options (abort on any report, leaks included) come from AM_TESTS_ENVIRONMENT.
# Environment: CFLAGS (default "-O1 -g"), JOBS (default nproc).
# Exit status: that of `make check` (0 when every test passed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

dir=${1:-build-asan}
case "$dir" in /*) ;; *) dir="$top/$dir" ;; esac
src="$dir/src"
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$src"

# --- 1. the list of source files (NUL-separated, relative to $top) -------------------
list="$dir/files.new"
rel=${dir#"$top"/} # DIR inside the tree must not copy itself
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
    [ "$(git -C "$top" rev-parse --show-toplevel)" = "$top" ]; then
    # tracked files plus new files not ignored yet (work in progress is tested too)
    git -C "$top" ls-files -z --cached --others --exclude-standard
else
    # no git: everything except build outputs and configure's products
    find . \( -name .git -o -name autom4te.cache -o -name .deps -o -path "./$rel" -o -path ./out \) -prune -o \
        -type f ! \( -name '*.o' -o -name '*.a' -o -name '*.log' -o -name '*.trs' -o -name Makefile \
        -o -name config.status -o -name config.h -o -name stamp-h1 -o -name .dirstamp -o -name '*~' \
        -o -name '*.einc' -o -name '*.vk' -o -name '*.pk' -o -name '*.proof' \
        -o -path ./einzk -o -path ./bench/kernel -o -path ./tests/check_einzk \
        -o \( -path './tests/fuzz/fuzz_*' ! -name '*.c' \) \) -print0 | sed -z 's|^\./||'
fi | while IFS= read -r -d '' f; do
    # skip DIR itself and files listed by git but deleted from the work tree
    case "$f" in "$rel"/*) continue ;; esac
    [ -f "$f" ] && printf '%s\0' "$f"
done >"$list"

# --- 2. incremental copy ------------------------------------------------------------
changed=0
while IFS= read -r -d '' f; do
    if ! cmp -s "$f" "$src/$f"; then
        mkdir -p "$src/$(dirname "$f")"
        rm -f "$src/$f"
        cp -p "$f" "$src/$f" # keeps the mode (scripts stay executable) ...
        touch "$src/$f"      # ... but a fresh mtime, so make sees the change
        changed=$((changed + 1))
    fi
done <"$list"
removed=0
if [ -f "$dir/files" ]; then
    # files copied last time that are no longer sources (e.g. a deleted example)
    while IFS= read -r -d '' f; do
        rm -f "$src/$f"
        removed=$((removed + 1))
    done < <(comm -z -23 <(sort -z "$dir/files") <(sort -z "$list"))
fi
mv "$list" "$dir/files"
echo "sanitize: $src: $changed file(s) updated, $removed removed" >&2

# --- 3. configure (once), build, test -----------------------------------------------
cd "$src"
if [ ! -x configure ]; then
    autoreconf -fi >&2
fi
if [ ! -f config.status ]; then
    ./configure --enable-sanitizers CFLAGS="${CFLAGS:--O1 -g}" >&2
fi
rm -f test-suite.log # a failed build must not leave an old summary behind
make -j"$jobs" >&2
start=$(date +%s)
rc=0
make -j"$jobs" check || rc=$?
echo "sanitize: make check (ASan+UBSan) took $(($(date +%s) - start)) s, exit $rc" >&2
exit "$rc"
