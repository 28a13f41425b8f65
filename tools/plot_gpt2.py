#!/usr/bin/python3
"""plot_gpt2 — GPT-2 small end to end, from the JSON lines of bench/gpt2.sh.

Left: the prove's wall seconds per phase (witness, commit, lookups, sumchecks, openings),
one stacked bar per token count, with issue 15's target drawn over it. Right: wall x
cores per token, ours beside the peers' published runs (log scale).

usage: tools/plot_gpt2.py ROWS.jsonl [ROWS.jsonl ...] OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PHASES = [("witness", "tab:gray"), ("commit", "tab:blue"), ("lookups", "tab:orange"),
          ("sumchecks", "tab:green"), ("openings", "tab:purple")]
TARGET_SECONDS = {64: 30.0, 512: 120.0}  # issue 15: prove on this 2-core machine
# The peers' published runs as (tokens, low, high) in wall x cores per token:
# DeepProve (Lagrange, GPT-2 on 24 cores): 64 tokens in 2.35 min, 512 in 7.64 min;
# Jolt Atlas (arXiv 2602.17452): 16 tokens in 12.8-14.9 s on 14 cores.
PEERS = {
    "DeepProve (24 cores)": ("tab:red", "s", [(64, 2.35 * 60 * 24 / 64, 2.35 * 60 * 24 / 64),
                                               (512, 7.64 * 60 * 24 / 512, 7.64 * 60 * 24 / 512)]),
    "Jolt Atlas (14 cores)": ("tab:brown", "^", [(16, 12.8 * 14 / 16, 14.9 * 14 / 16)]),
}


def load(paths):
    rows = {}
    for path in paths:
        for line in open(path):
            if line.startswith("{"):
                r = json.loads(line)
                rows[r["tokens"]] = r  # the last row of a length wins
    return [rows[t] for t in sorted(rows)]


def phase_bars(ax, rows):
    xs = list(range(len(rows)))
    bottom = [0.0] * len(rows)
    for name, color in PHASES:
        h = [r["phases"].get(name, 0.0) for r in rows]
        ax.bar(xs, h, 0.6, bottom=bottom, color=color, label=name)
        bottom = [b + x for b, x in zip(bottom, h)]
    for x, r in zip(xs, rows):
        rest = r["prove_seconds"] - bottom[x]  # run, merges: outside the five phases
        if rest > 0:
            ax.bar([x], [rest], 0.6, bottom=[bottom[x]], color="white", edgecolor="black", hatch="//",
                   label="other" if x == 0 else None)
        if r["tokens"] in TARGET_SECONDS:
            t = TARGET_SECONDS[r["tokens"]]
            ax.hlines(t, x - 0.4, x + 0.4, colors="red", linestyles="dashed",
                      label="target" if x == 0 else None)
        ax.text(x, max(r["prove_seconds"], TARGET_SECONDS.get(r["tokens"], 0)) * 1.03 + 1,
                "%.1f s\npeak RSS: setup %.1f, prove %.1f GB\nproof %.2f MB\nverify %.2f s" % (
                    r["prove_seconds"], r["setup_peak_rss_bytes"] / 1e9, r["prove_peak_rss_bytes"] / 1e9,
                    r["proof_bytes"] / 1e6, r["verify_seconds"]),
                ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs)
    ax.set_xticklabels(["%d tokens" % r["tokens"] for r in rows])
    ax.set_ylabel("prove wall seconds (pk loaded -> proof written)")
    ax.set_ylim(0, max(max(r["prove_seconds"], TARGET_SECONDS.get(r["tokens"], 0)) for r in rows) * 1.35)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("einzk prove, %d threads, by phase" % rows[0].get("threads", 2))


def per_token(ax, rows):
    ts = [r["tokens"] for r in rows]
    ys = [r["prove_seconds"] * r.get("threads", 2) / r["tokens"] for r in rows]
    ax.plot(ts, ys, "o-", color="tab:blue", label="einzk (%d threads)" % rows[0].get("threads", 2))
    for t, y in zip(ts, ys):
        ax.annotate("%.2f" % y, (t, y), textcoords="offset points", xytext=(6, -12), fontsize=8)
    for name, (color, marker, pts) in PEERS.items():
        t = [p[0] for p in pts]
        mid = [(p[1] + p[2]) / 2 for p in pts]
        err = [[m - p[1] for m, p in zip(mid, pts)], [p[2] - m for m, p in zip(mid, pts)]]
        ax.errorbar(t, mid, yerr=err, fmt=marker + "-", color=color, label=name, capsize=3)
        for x, y in zip(t, mid):
            ax.annotate("%.1f" % y, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("tokens")
    ax.set_ylabel("wall seconds x cores per token")
    ax.legend(fontsize=8)
    ax.set_title("GPT-2 small: core-seconds per token")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = load(sys.argv[1:-1])
    if not rows:
        sys.exit("plot_gpt2: no rows in " + " ".join(sys.argv[1:-1]))
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    phase_bars(axes[0], rows)
    per_token(axes[1], rows)
    fig.tight_layout()
    fig.savefig(sys.argv[-1], dpi=100)


if __name__ == "__main__":
    main()
