#!/usr/bin/python3
"""Fidelity of the integer char LM: `einzk run` against the float model on GPL-3 text.

Usage:
  charlm_check.py EINZK [--einc charlm.einc] [--text /usr/share/common-licenses/GPL-3]
                  [--windows N] [--weights W] [--vocab V]

Compiles examples/charlm.ein (unless --einc is given), cuts the text into consecutive
non-overlapping windows of S = 64 characters (all of them by default, N if given, taken
evenly over the text), runs each through `einzk run`, and compares the next-token
argmax at every position with the float64 numpy model of tools/greedy_reference.py
(the same function as the torch model; see tools/train_charlm.py). Prints the agreement,
how many disagreements are near-ties (float top-two margin below 1% of max |logit|),
and the largest logit error relative to max |logit|. Exit status 1 below 95% agreement.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import greedy_reference as ref  # noqa: E402

EX = os.path.join(HERE, "..", "examples")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("einzk")
    ap.add_argument("--einc")
    ap.add_argument("--text", default="/usr/share/common-licenses/GPL-3")
    ap.add_argument("--windows", type=int)
    ap.add_argument("--weights", default=os.path.join(EX, "charlm.safetensors"))
    ap.add_argument("--vocab", default=os.path.join(EX, "charlm.vocab.json"))
    args = ap.parse_args()
    toks = ref.load_vocab(args.vocab)
    w = ref.load_weights(args.weights)
    S = w["wpe"].shape[0]
    with open(args.text, encoding="utf-8") as f:
        ids = ref.encode(toks, f.read())
    starts = list(range(0, len(ids) - S + 1, S))
    if args.windows:
        starts = [starts[i] for i in np.linspace(0, len(starts) - 1, args.windows).astype(int)]
    agree = near = total = 0
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        einc = args.einc
        if not einc:
            einc = os.path.join(tmp, "charlm.einc")
            subprocess.run([args.einzk, "compile", os.path.join(EX, "charlm.ein"), "-o", einc],
                           check=True, stdout=subprocess.DEVNULL)
        inp, out = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        for s0 in starts:
            tok = ids[s0:s0 + S]
            with open(inp, "w") as f:
                json.dump({"tok": tok}, f)
            subprocess.run([args.einzk, "run", einc, "--weights", args.weights, "--input", inp, "-o", out],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                o = json.load(f)
            got = np.array(o["next"]["data"], dtype=np.int64)
            gl = np.array(o["logits"]["data"], dtype=np.float64).reshape(o["logits"]["shape"])
            fl = ref.forward(w, tok)
            m = float(np.max(np.abs(fl)))
            worst = max(worst, float(np.max(np.abs(gl - fl))) / m)
            top2 = np.sort(fl, -1)[:, -2:]
            same = got == np.argmax(fl, -1)
            agree += int(same.sum())
            near += int(np.sum(~same & (top2[:, 1] - top2[:, 0] < 0.01 * m)))
            total += len(tok)
    frac = agree / total
    print(f"charlm_check: {len(starts)} windows of {S}: next-token argmax {agree}/{total} = {frac:.2%} "
          f"equal to the float model; {total - agree - near} disagreements beyond near-ties "
          f"(margin < 1% of max|logit|); max |logit error| {worst:.3%} of max |logit|")
    return 0 if frac >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
