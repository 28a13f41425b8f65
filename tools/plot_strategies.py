#!/usr/bin/python3
"""plot_strategies — prove time and proof bytes against head width, one line per strategy,
from the JSON lines of bench/strategies (bench/strategies.sh). One column per head count at
S = 128; rows: the whole prover's CPU seconds, the contractions' CPU milliseconds (the
part the strategies change), the proof's bytes, the walk's bytes (the reductions; the
rest of a proof is lookups and PCS openings, the same for every strategy).

usage: tools/plot_strategies.py STRATEGIES.jsonl OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"einsum": ("tab:blue", "o"), "deepprove": ("tab:red", "s"), "per-head": ("tab:green", "^")}


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
    rows = [r for r in rows if r["G"] == 0]
    seqs = sorted({r["S"] for r in rows})
    S = 128 if 128 in seqs else seqs[0]
    heads = sorted({r["H"] for r in rows if r["S"] == S})
    fig, axes = plt.subplots(4, len(heads), figsize=(4.2 * len(heads), 12), squeeze=False, sharex=True)
    for j, h in enumerate(heads):
        for strat, (color, marker) in STYLE.items():
            pts = sorted((r["E"], r) for r in rows if r["S"] == S and r["H"] == h and r["strategy"] == strat)
            if not pts:
                continue
            xs = [e for e, _ in pts]
            panels = [
                [r["prove_cpu_s"] for _, r in pts],
                [r["contractions_cpu_s"] * 1e3 for _, r in pts],
                [r["proof_bytes"] / 1024 for _, r in pts],
                [r["walk_bytes"] / 1024 for _, r in pts],
            ]
            for i, ys in enumerate(panels):
                axes[i][j].plot(xs, ys, color=color, marker=marker, label=strat)
        axes[0][j].set_title("S = %d, D = %d, %d heads" % (S, [r for r in rows if r["S"] == S][0]["D"], h))
        axes[0][j].set_ylabel("prove (CPU s, whole layer)")
        axes[1][j].set_ylabel("contractions + merges (CPU ms)")
        axes[2][j].set_ylabel("proof (KiB)")
        axes[3][j].set_ylabel("walk: the reductions (KiB)")
        axes[3][j].set_xlabel("head width E")
        for i in range(4):
            axes[i][j].grid(alpha=0.3)
            axes[i][j].set_xticks([64, 80, 96, 128])
    axes[0][0].legend()
    fig.suptitle("einzk proving strategies: one attention layer (bench/strategies.sh)")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
