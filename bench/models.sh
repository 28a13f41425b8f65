#!/bin/sh
# bench/models — whole models end to end with the real CLI: compile, gen (--seed 1),
# setup, one `einzk run` process, `einzk prove --json` and `einzk verify --json` (best of
# REPS each), in that order, per row. Not part of `make check`.
#
# usage: bench/models.sh [EINZK] [REPS] [ROWS...]
#   EINZK  the binary (default ./einzk); REPS: prove and verify runs per row, the fastest
#          (by wall clock) is reported (default 3);
#   ROWS   any of: nanogpt (default), nanogpt-1t, nanogpt-ligero, nanogpt-gelu16, block
#          (the GPT-2-small block), tinylm (verify with and without function-table sharing:
#          needs EINZK_UNSHARED, below), all.
#
# Rows:
#   nanogpt         examples/nanogpt.ein at its own sizes (V = 65, context 64, D = 64,
#                   H = 4, 4 layers, F = 256: Jolt Atlas's nanoGPT shape), 2 threads, WHIR;
#   nanogpt-ligero  the same with `setup --pcs ligero`;
#   nanogpt-1t      the same on 1 thread (CPU seconds without a second thread's waits);
#   nanogpt-gelu16  the same with -D GB=16 -D GS=11: the GELU input at 16 bits, scale 11
#                   (the function table's rows cover it: the lookup alone proves GELU);
#   block           examples/block.ein -D S=128 -D D=768 -D H=12 (E = 64, F = 3072): one
#                   GPT-2-small pre-norm block, 2 threads;
#   tinylm          examples/tinylm.ein: verify seconds of this binary (every function table
#                   shared by the ops using it: one LogUp per table per proof) and of
#                   $EINZK_UNSHARED, the same tree configured with
#                   CPPFLAGS=-DEZ_UNSHARED_FUNC_TABLES (runtime/prove/advice.c: one table,
#                   one LogUp and one multiplicity poly per OP instead); verify with 1
#                   thread, best of 5 x REPS.
# Columns: proof (argument) bytes; prove seconds (`prove_seconds`: loaded pk and input to
# the written proof, integer inference included) and process CPU seconds (all threads);
# the wall-clock phases (witness = inference + advice + lookup columns; commit; lookups;
# sumchecks = output claims + walk; openings); verify milliseconds (`verify_seconds`, the
# vk's weight range proof included); peak RSS of prove; the wall time of one `einzk run`
# process and ratio = prove_seconds / run seconds. Then one JSON line per row (the CPU
# phases, per-op-kind walk seconds, setup, vk/pk bytes, the load average).
#
# The machine: OpenMP waits are passive (OMP_WAIT_POLICY=passive unless set): on a shared
# 2-core VM a spinning thread waits a whole time slice at every barrier another job holds.
set -eu

einzk=${1:-./einzk}
reps=${2:-3}
[ $# -ge 2 ] && shift 2 || shift $#
rows=${*:-nanogpt}
[ "$rows" = all ] && rows="nanogpt nanogpt-1t nanogpt-ligero nanogpt-gelu16 block tinylm"
. "$(dirname "$0")/common.sh"
: "${OMP_WAIT_POLICY:=passive}"
export OMP_WAIT_POLICY

work=$(mktemp -d "${TMPDIR:-/tmp}/ezbench-models.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

load() { uptime | sed 's/.*load average: *//'; }

echo "# $(uname -n) $(nproc) cpus, OMP_WAIT_POLICY=$OMP_WAIT_POLICY; load at start: $(load)"
printf '%-30s %8s %7s %7s %7s %7s %7s %7s %7s %8s %7s %6s %6s\n' model proof prove_s cpu_s witness commit \
    lookups sumchk opening verify_ms rss_MiB run_s ratio

# prepare NAME MODEL [-D ...]: compile, gen, setup (with $pcs) into $work/NAME.*
prepare() {
    name=$1
    shift
    setup_args="--pcs $pcs"
    bench_prepare "$work/$name" "$@" || { cat "$work/$name.err" >&2; exit 1; }
}

# row LABEL NAME THREADS: run once, prove and verify REPS times each (the fastest kept)
row() {
    label=$1
    name=$2
    thr=$3
    t0=$(now)
    "$einzk" run "$work/$name.einc" --weights "$work/$name.safetensors" --input "$work/$name.json" \
        -o "$work/out.json" --threads "$thr"
    t1=$(now)
    : >"$work/p.all"
    : >"$work/v.all"
    i=0
    while [ "$i" -lt "$reps" ]; do
        "$einzk" prove "$work/$name.einc" --pk "$work/$name.pk" --input "$work/$name.json" -o "$work/$name.proof" \
            --json --threads "$thr" >>"$work/p.all"
        "$einzk" verify --vk "$work/$name.vk" "$work/$name.proof" --json >>"$work/v.all"
        i=$((i + 1))
    done
    "$py" - "$label" "$work/p.all" "$work/v.all" "$t0" "$t1" "$setup_s" "$(wc -c <"$work/$name.vk")" \
        "$(wc -c <"$work/$name.pk")" "$thr" "$pcs" "$(load)" "$work/rows.jsonl" <<'PYEOF'
import json, sys
label = sys.argv[1]
ps = [json.loads(l) for l in open(sys.argv[2])]
vs = [json.loads(l) for l in open(sys.argv[3])]
assert all(v["accepted"] for v in vs), vs
p = min(ps, key=lambda j: j["prove_seconds"])
v = min(vs, key=lambda j: j["verify_seconds"])
run_s = float(sys.argv[5]) - float(sys.argv[4])
ph = p["phases"]
ratio = p["prove_seconds"] / run_s
kinds = {}
for o in p["ops"]:
    kinds[o["kind"]] = kinds.get(o["kind"], 0) + o["seconds"]
print("%-30s %8d %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %8.1f %7.0f %6.3f %6.1f" % (
    label, p["proof_bytes"], p["prove_seconds"], p["prove_cpu_seconds"], ph["witness"], ph["commit"],
    ph["lookups"], ph["sumchecks"], ph["openings"], v["verify_seconds"] * 1e3, p["peak_rss_bytes"] / 2**20,
    run_s, ratio))
row = {"row": label, "threads": int(sys.argv[9]), "pcs": sys.argv[10], "proof_bytes": p["proof_bytes"],
       "statement_bytes": p["statement_bytes"], "prove_seconds": round(p["prove_seconds"], 4),
       "prove_seconds_all": [round(j["prove_seconds"], 4) for j in ps],
       "prove_cpu_seconds": round(p["prove_cpu_seconds"], 4),
       "phases": {k: round(x, 4) for k, x in ph.items()},
       "phases_cpu": {k: round(x, 4) for k, x in p["phases_cpu"].items()},
       "walk_seconds_by_kind": {k: round(x, 4) for k, x in sorted(kinds.items(), key=lambda kv: -kv[1])},
       "verify_seconds": round(v["verify_seconds"], 4),
       "verify_seconds_all": [round(j["verify_seconds"], 4) for j in vs],
       "peak_rss_bytes": p["peak_rss_bytes"], "run_process_seconds": round(run_s, 4),
       "prove_over_run": round(ratio, 1), "setup_seconds": float(sys.argv[6]),
       "vk_bytes": int(sys.argv[7]), "pk_bytes": int(sys.argv[8]), "load": sys.argv[11]}
open(sys.argv[12], "a").write(json.dumps(row) + "\n")
PYEOF
}

# verify_best VK PROOF N: the fastest of N `verify --json` runs (seconds), 1 thread
verify_best() {
    bin=$1
    : >"$work/vb.all"
    i=0
    while [ "$i" -lt "$4" ]; do
        "$bin" verify --vk "$2" "$3" --json --threads 1 >>"$work/vb.all"
        i=$((i + 1))
    done
    "$py" -c 'import json, sys; v = [json.loads(l) for l in open(sys.argv[1])]; assert all(x["accepted"] for x in v); print(min(x["verify_seconds"] for x in v))' "$work/vb.all"
}

for r in $rows; do
    case $r in
    nanogpt | nanogpt-1t | nanogpt-ligero)
        pcs=whir
        [ "$r" = nanogpt-ligero ] && pcs=ligero
        prepare "$r" nanogpt
        thr=2
        [ "$r" = nanogpt-1t ] && thr=1
        row "nanogpt S=64 L=4 ($pcs, ${thr}t)" "$r" "$thr"
        ;;
    nanogpt-gelu16)
        pcs=whir
        prepare "$r" nanogpt -D GB=16 -D GS=11
        row "nanogpt GELU in 16 bits (whir, 2t)" "$r" 2
        ;;
    block)
        pcs=whir
        prepare block block -D S=128 -D D=768 -D H=12
        row "block S=128 D=768 H=12 (whir, 2t)" block 2
        ;;
    tinylm)
        pcs=whir
        if [ -z "${EINZK_UNSHARED:-}" ]; then
            echo "tinylm: set EINZK_UNSHARED to a build with CPPFLAGS=-DEZ_UNSHARED_FUNC_TABLES" >&2
            continue
        fi
        prepare tinylm tinylm
        "$einzk" prove "$work/tinylm.einc" --pk "$work/tinylm.pk" --input "$work/tinylm.json" -o "$work/s.proof" \
            --json >"$work/s.json"
        "$EINZK_UNSHARED" setup "$work/tinylm.einc" --weights "$work/tinylm.safetensors" --vk "$work/u.vk" \
            --pk "$work/u.pk" >/dev/null
        "$EINZK_UNSHARED" prove "$work/tinylm.einc" --pk "$work/u.pk" --input "$work/tinylm.json" -o "$work/u.proof" \
            --json >"$work/u.json"
        n=$((5 * reps))
        vs=$(verify_best "$einzk" "$work/tinylm.vk" "$work/s.proof" "$n")
        vu=$(verify_best "$EINZK_UNSHARED" "$work/u.vk" "$work/u.proof" "$n")
        "$py" - "$vs" "$vu" "$work/s.json" "$work/u.json" "$(load)" "$work/rows.jsonl" <<'PYEOF'
import json, sys
vs, vu = float(sys.argv[1]), float(sys.argv[2])
s, u = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
print("tinylm verify: shared tables %.1f ms, one table per op %.1f ms (%.2fx); proof %d / %d bytes; "
      "prove %.3f / %.3f s" % (vs * 1e3, vu * 1e3, vu / vs, s["proof_bytes"], u["proof_bytes"],
                               s["prove_seconds"], u["prove_seconds"]))
open(sys.argv[6], "a").write(json.dumps({"row": "tinylm function tables", "verify_seconds_shared": vs, "verify_seconds_per_op": vu,
                  "proof_bytes_shared": s["proof_bytes"], "proof_bytes_per_op": u["proof_bytes"],
                  "prove_seconds_shared": round(s["prove_seconds"], 4),
                  "prove_seconds_per_op": round(u["prove_seconds"], 4), "load": sys.argv[5]}) + "\n")
PYEOF
        ;;
    *)
        echo "unknown row '$r' (nanogpt, nanogpt-1t, nanogpt-ligero, nanogpt-gelu16, block, tinylm, all)" >&2
        exit 2
        ;;
    esac
done
echo "# load at end: $(load)"
[ -e "$work/rows.jsonl" ] && cat "$work/rows.jsonl"
