#!/usr/bin/python3
"""Float64 GPT-2 forward pass in numpy, straight from a Hugging Face checkpoint directory.

Usage:
  gpt2_reference.py CKPT_DIR (--tokens 1,2,3 | --input IN.json) [-o OUT.json] [--stats]

CKPT_DIR holds config.json and model.safetensors in Hugging Face's GPT-2 layout (names with
or without the `transformer.` prefix, Conv1D weights stored [in, out]). The pass is written
from the architecture, independently of tools/import_hf_gpt2.py and examples/gpt2.ein, so
it can check both: pre-LN blocks, layernorm with eps from the config, Q/K/V from c_attn,
causal softmax with 1/sqrt(head size), the activation from the config (gelu_new = tanh
form), tied unembedding.

--input takes an einzk input file ({"tok": [...]} or {"tok": {"shape", "data"}}).
Writes {"logits": {"shape", "data"}, "next": {...}} (einzk's output format) to OUT.json or
stdout. --stats prints on stderr the largest |value| of each kind of activation (residual
stream, q/k/v, attention scores, MLP pre-activation, logits) and the signed bits it needs
at scale 12: this is how to check the widths declared in examples/gpt2.ein against a real
checkpoint.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_np import SafeTensors, SafeTensorsError  # noqa: E402


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


ACTIVATIONS = {"gelu_new": gelu_tanh, "gelu_pytorch_tanh": gelu_tanh, "gelu_fast": gelu_tanh,
               "gelu": gelu_erf}


def load_checkpoint(ckpt):
    """config dict and a name -> float64 array accessor (prefix `transformer.` optional)."""
    with open(os.path.join(ckpt, "config.json")) as f:
        cfg = json.load(f)
    st = SafeTensors(os.path.join(ckpt, "model.safetensors"))

    def w(name):
        for n in (name, "transformer." + name):
            if n in st:
                return st.get(n, np.float64)
        raise KeyError(name)
    return cfg, w


def layernorm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def forward(cfg, w, tok, stats=None):
    """logits [S, V] for token ids tok [S]. stats, if a dict, collects max |value| by kind."""
    L, H, D = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
    E = D // H
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    act = ACTIVATIONS[cfg.get("activation_function", "gelu_new")]
    S = len(tok)

    def note(kind, v):
        if stats is not None:
            stats[kind] = max(stats.get(kind, 0.0), float(np.max(np.abs(v))))

    wte = w("wte.weight")
    x = wte[np.asarray(tok)] + w("wpe.weight")[:S]
    note("residual", x)
    mask = np.triu(np.ones((S, S), dtype=bool), 1)  # [s, t]: t > s is the future
    for i in range(L):
        p = f"h.{i}."
        n = layernorm(x, w(p + "ln_1.weight"), w(p + "ln_1.bias"), eps)
        qkv = n @ w(p + "attn.c_attn.weight") + w(p + "attn.c_attn.bias")  # [S, 3D]
        q, k, v = (qkv[:, j * D:(j + 1) * D].reshape(S, H, E) for j in range(3))
        note("qkv", qkv)
        a = np.einsum("she,the->hst", q, k) / math.sqrt(E)
        note("scores", a)
        a = np.where(mask[None], -np.inf, a)
        pr = np.exp(a - a.max(-1, keepdims=True))
        pr /= pr.sum(-1, keepdims=True)
        c = np.einsum("hst,the->she", pr, v).reshape(S, D)
        x = x + c @ w(p + "attn.c_proj.weight") + w(p + "attn.c_proj.bias")
        note("residual", x)
        n = layernorm(x, w(p + "ln_2.weight"), w(p + "ln_2.bias"), eps)
        u = n @ w(p + "mlp.c_fc.weight") + w(p + "mlp.c_fc.bias")
        note("mlp_pre", u)
        x = x + act(u) @ w(p + "mlp.c_proj.weight") + w(p + "mlp.c_proj.bias")
        note("residual", x)
    z = layernorm(x, w("ln_f.weight"), w("ln_f.bias"), eps)
    logits = z @ wte.T
    note("logits", logits)
    return logits


def read_tokens(path):
    with open(path) as f:
        t = json.load(f)["tok"]
    return [int(v) for v in (t["data"] if isinstance(t, dict) else t)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ckpt")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--tokens", help="comma-separated token ids")
    g.add_argument("--input", help="einzk input JSON with a 'tok' entry")
    ap.add_argument("-o", "--output")
    ap.add_argument("--stats", action="store_true")
    args = ap.parse_args()
    try:
        cfg, w = load_checkpoint(args.ckpt)
        tok = [int(t) for t in args.tokens.split(",")] if args.tokens else read_tokens(args.input)
        stats = {} if args.stats else None
        logits = forward(cfg, w, tok, stats)
    except (OSError, ValueError, KeyError, SafeTensorsError) as e:
        print(f"gpt2_reference: error: {e}", file=sys.stderr)
        return 1
    out = {"logits": {"shape": list(logits.shape), "data": logits.ravel().tolist()},
           "next": {"shape": [len(tok)], "data": np.argmax(logits, -1).tolist()}}
    text = json.dumps(out)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    if stats is not None:
        for kind, m in stats.items():
            bits = math.ceil(math.log2(m * 4096 + 1)) + 1 if m > 0 else 1
            print(f"{kind:9s} max |value| {m:12.4f}  needs {bits} signed bits at scale 12",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
