#!/bin/sh
# progress — long commands draw progress on stderr when it is a terminal (cli/progress.h):
# a prove (of an attention layer taking about a second) run under a pseudo-terminal
# (python3's pty module) shows at least three distinct percentages for at least two
# phases, also with --json (whose object still goes alone to stdout); setup shows its
# steps; with stderr not a terminal nothing is drawn.
set -eu
me=progress
. "$(dirname "$0")/common.sh"
need_built "$EINZK"
cd "$work"

expect 0 "compile" -- "$EINZK" compile "$top_srcdir/examples/attention.ein" -D S=32 -D D=128 -D E=32 -o a.einc
expect 0 "gen" -- "$EINZK" gen a.einc --seed 1 --weights w.st --input in.json

# under_pty OUT ERR command...: run with stderr on a pseudo-terminal (stdout to OUT)
under_pty() {
    "$PY" - "$@" <<'PYEOF'
import os, pty, subprocess, sys
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
m, s = pty.openpty()
with open(out, "wb") as fo:
    p = subprocess.Popen(cmd, stdout=fo, stderr=s, stdin=subprocess.DEVNULL)
    os.close(s)
    buf = b""
    while True:
        try:
            d = os.read(m, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not d:
            break
        buf += d
    rc = p.wait()
open(err, "wb").write(buf)
sys.exit(rc)
PYEOF
}

# phases PHASES_MIN FILE: at least PHASES_MIN phases with 3 distinct percentages
phases() {
    "$PY" - "$@" <<'PYEOF'
import re, sys
need, text = int(sys.argv[1]), open(sys.argv[2], "rb").read().decode()
seen = {}
for part in re.split(r"[\r\n]+", text):
    m = re.match(r"einzk \w+: (\w+) +(\d+)%$", part.strip())
    if m:
        seen.setdefault(m.group(1), set()).add(int(m.group(2)))
rich = sorted(p for p, v in seen.items() if len(v) >= 3)
print(" ".join(rich))
sys.exit(0 if len(rich) >= need else 1)
PYEOF
}

under_pty out.txt err.txt "$EINZK" prove a.einc --weights w.st --input in.json -o a.proof --json ||
    fail "prove under a terminal: exit $?"
phases 2 err.txt >phases.txt || fail "prove: fewer than two phases with 3 percentages: $(cat phases.txt)"
for ph in witness commit lookups sumchecks openings; do
    grep -qw "$ph" phases.txt || fail "prove: phase $ph shows fewer than 3 percentages (3 or more: $(cat phases.txt))"
done
"$PY" -c 'import json,sys; json.load(open(sys.argv[1]))["proof_bytes"]' out.txt || fail "prove --json: stdout"
echo "progress: prove under a terminal: 3 or more percentages for $(cat phases.txt)"

under_pty out.txt err.txt "$EINZK" setup a.einc --weights w.st --vk a.vk --pk a.pk || fail "setup under a terminal"
for step in load commit widths; do
    grep -q "einzk setup: $step " err.txt || fail "setup: no '$step' step"
done
echo "progress: setup shows its steps"

expect 0 "prove, stderr a file" -- "$EINZK" prove a.einc --pk a.pk --input in.json -o b.proof
! grep -q "%" err.txt || fail "progress drawn when stderr is not a terminal"
echo "progress: nothing drawn when stderr is not a terminal"
