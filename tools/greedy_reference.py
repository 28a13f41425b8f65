#!/usr/bin/python3
"""Greedy generation with the float model of examples/charlm.ein (numpy, float64).

Usage:
  greedy_reference.py [--weights W.safetensors] [--vocab VOCAB.json] [-n N] PROMPT
  greedy_reference.py ... --einzk EINZK --einc charlm.einc PROMPT   (the integer model)

Prints the prompt followed by N (default 200) greedily chosen characters. Defaults are
examples/charlm.safetensors and examples/charlm.vocab.json next to this repository's tools/.
The vocab is {"alphabet": "..."} (one character per token, id = index) or
{"tokens": ["...", ...]} (id = index; a token may be several characters, the prompt is
then split greedily by longest match).

The forward pass is charlm.ein's, statement by statement: x = wte[tok] + wpe; per layer
layernorm (eps 1e-5, no affine) times a gain, causal softmax attention with 1/sqrt(E),
output projection, residual, layernorm times gain, exact-erf GELU MLP with biases,
residual; final layernorm times gf; logits tied to wte; the next token is the argmax
(ties: lowest id, like einzk).

Context convention (what `einzk generate` must do to agree): the model takes exactly S
tokens; with n < S tokens so far they fill positions 0..n-1 and the rest is padded with
token 0 -- harmless, causal attention keeps positions > n-1 from affecting position n-1
-- and the next token is next[n-1]. Once n > S, the window is the last S tokens at
positions 0..S-1 and the next token is next[S-1].

--einzk runs the same loop with `einzk run` of the compiled integer model instead of
numpy (one run per character), so both can be compared; --compare does both and reports
the first position where they differ.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from safetensors_np import SafeTensors  # noqa: E402

EXAMPLES = os.path.join(HERE, "..", "examples")


def load_vocab(path):
    with open(path) as f:
        j = json.load(f)
    if "alphabet" in j:
        toks = list(j["alphabet"])
    elif "tokens" in j:
        toks = list(j["tokens"])
    else:
        raise ValueError(f"{path}: expected {{\"alphabet\": ...}} or {{\"tokens\": [...]}}")
    if len(set(toks)) != len(toks) or any(not isinstance(t, str) or not t for t in toks):
        raise ValueError(f"{path}: tokens must be distinct non-empty strings")
    return toks


def encode(toks, text):
    ids, i = [], 0
    longest = max(len(t) for t in toks)
    index = {t: k for k, t in enumerate(toks)}
    while i < len(text):
        for n in range(min(longest, len(text) - i), 0, -1):
            if text[i:i + n] in index:
                ids.append(index[text[i:i + n]])
                i += n
                break
        else:
            raise ValueError(f"character {text[i]!r} at {i} is not in the vocabulary")
    return ids


def decode(toks, ids):
    return "".join(toks[i] for i in ids)


def load_weights(path):
    st = SafeTensors(path)
    return {n: st.get(n, np.float64) for n in st.names()}


def layernorm(x):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def forward(w, tok):
    """logits [T, V] of charlm.ein for tokens tok (T <= S), float64."""
    tok = np.asarray(tok)
    T = len(tok)
    L, _, H, E = w["wq"].shape
    x = w["wte"][tok] + w["wpe"][:T]
    future = np.triu(np.ones((T, T), dtype=bool), 1)
    for l in range(L):
        n = layernorm(x) * w["g1"][l]
        q, k, v = (np.einsum("sd,dhe->she", n, w[m][l]) for m in ("wq", "wk", "wv"))
        a = np.einsum("she,the->hst", q, k) / math.sqrt(E)
        a = np.where(future, -np.inf, a)
        p = np.exp(a - a.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        c = np.einsum("hst,the->she", p, v)
        x = x + np.einsum("she,hed->sd", c, w["wo"][l])
        n = layernorm(x) * w["g2"][l]
        u = n @ w["w1"][l] + w["b1"][l]
        x = x + 0.5 * u * (1 + _erf(u / math.sqrt(2))) @ w["w2"][l] + w["b2"][l]
    return (layernorm(x) * w["gf"]) @ w["wte"].T


def window(ids, S):
    """The model input for predicting the token after ids, and the position to read."""
    ctx = ids[-S:]
    return ctx + [0] * (S - len(ctx)), len(ctx) - 1


def greedy_numpy(w, ids, n):
    S = w["wpe"].shape[0]
    ids = list(ids)
    for _ in range(n):
        tok, pos = window(ids, S)
        ids.append(int(np.argmax(forward(w, tok)[pos])))
    return ids


def greedy_einzk(einzk, einc, weights, S, ids, n):
    ids = list(ids)
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.json")
        for _ in range(n):
            tok, pos = window(ids, S)
            with open(inp, "w") as f:
                json.dump({"tok": tok}, f)
            subprocess.run([einzk, "run", einc, "--weights", weights, "--input", inp, "-o", out],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                ids.append(int(json.load(f)["next"]["data"][pos]))
    return ids



def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prompt")
    ap.add_argument("--weights", default=os.path.join(EXAMPLES, "charlm.safetensors"))
    ap.add_argument("--vocab", default=os.path.join(EXAMPLES, "charlm.vocab.json"))
    ap.add_argument("-n", type=int, default=200, help="characters to generate")
    ap.add_argument("--einzk", help="einzk binary: generate with the integer model instead")
    ap.add_argument("--einc", help="compiled charlm.ein (with --einzk)")
    ap.add_argument("--compare", action="store_true", help="with --einzk: run both and compare")
    args = ap.parse_args()
    try:
        toks = load_vocab(args.vocab)
        ids = encode(toks, args.prompt)
        w = load_weights(args.weights)
    except (OSError, ValueError) as e:
        print(f"greedy_reference: error: {e}", file=sys.stderr)
        return 1
    if not ids:
        print("greedy_reference: error: empty prompt", file=sys.stderr)
        return 1
    if args.einzk:
        if not args.einc:
            print("greedy_reference: error: --einzk needs --einc", file=sys.stderr)
            return 2
        got = greedy_einzk(args.einzk, args.einc, args.weights, w["wpe"].shape[0], ids, args.n)
        print(decode(toks, got))
        if args.compare:
            ref = greedy_numpy(w, ids, args.n)
            same = next((i for i in range(len(ref)) if ref[i] != got[i]), None)
            if same is None:
                print(f"greedy_reference: einzk and numpy agree on all {args.n} characters", file=sys.stderr)
            else:
                print(f"greedy_reference: first difference at generated character {same - len(ids)}; "
                      f"numpy: {decode(toks, ref)!r}", file=sys.stderr)
                return 3
        return 0
    print(decode(toks, greedy_numpy(w, ids, args.n)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
