#!/usr/bin/python3
"""Helper of tests/e2e/gpt2_import.sh.

  gpt2_import.py make DIR [--prefix] [--omit NAME] [--reshape NAME] [--config K=V,...]
      Writes a small random GPT-2 checkpoint in Hugging Face's layout into DIR:
      config.json (2 layers, 4 heads, n_embd 64, vocab 512, n_positions 32, n_inner null)
      and model.safetensors, written here with its own encoder (u64 header length, JSON
      header, raw little-endian data), including the buffers h.N.attn.bias /
      masked_bias and a tied lm_head.weight that the importer must ignore. --prefix
      names tensors `transformer.*` (as GPT2LMHeadModel saves them); --omit leaves one
      tensor out, --reshape gives one tensor a wrong shape (error-path tests); --config
      overrides config entries (e.g. n_layer=12,n_head=12,n_embd=768,vocab_size=50257,
      n_positions=1024 for a GPT-2-small-sized checkpoint, ~500 MB).
      Also checks tools/safetensors_np.py against this encoder (F32, F16, BF16).
  gpt2_import.py tokens N SEED OUT.json
      N token ids in [0, 512) (including 0 and 511) as an einzk input file.
  gpt2_import.py compare DIR IN.json OUT.json BOUND
      OUT.json from `einzk run` against tools/gpt2_reference.py (a float64 numpy forward
      pass on DIR's HF-layout tensors, not on the converted file): max |logit error| <=
      BOUND * max |logit|, `next` equal to numpy's argmax wherever numpy's top-two
      margin exceeds that bound, and such positions must be at least 3/4 of all.
"""
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from gpt2_reference import forward, load_checkpoint, read_tokens  # noqa: E402
from safetensors_np import SafeTensors  # noqa: E402

CFG = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": 2, "n_head": 4,
       "n_embd": 64, "vocab_size": 512, "n_positions": 32, "n_ctx": 32, "n_inner": None,
       "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
       "scale_attn_weights": True, "scale_attn_by_inverse_layer_idx": False,
       "tie_word_embeddings": True}


def encode(tensors):
    """safetensors bytes for [(name, dtype, array)], independent of tools/safetensors_np.py."""
    header, blobs, off = {}, [], 0
    for name, dt, a in tensors:
        if dt == "BF16":  # round to nearest even on the upper 16 bits of binary32
            u = np.ascontiguousarray(a, dtype="<f4").view("<u4").astype(np.uint64)
            raw = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")).tobytes()
        else:
            raw = np.ascontiguousarray(a, dtype={"F32": "<f4", "F16": "<f2", "U8": "u1"}[dt]).tobytes()
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    header["__metadata__"] = {"format": "pt"}
    hb = json.dumps(header).encode()
    return struct.pack("<Q", len(hb)) + hb + b"".join(blobs)


def hf_tensors(rng, cfg):
    L, D, V, P = cfg["n_layer"], cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    F = cfg["n_inner"] or 4 * D
    # scales chosen so that every part matters: O(1) activations, peaked attention, logits
    # with a spread of several units (so argmax margins are mostly well above the bound)
    n = lambda *shape, sd=1.0: (rng.standard_normal(shape) * sd).astype(np.float32)  # noqa: E731
    t = {"wte.weight": n(V, D, sd=0.5), "wpe.weight": n(P, D, sd=0.2)}
    for i in range(L):
        p = f"h.{i}."
        t[p + "ln_1.weight"] = 1 + n(D, sd=0.1)
        t[p + "ln_1.bias"] = n(D, sd=0.1)
        t[p + "attn.bias"] = np.tril(np.ones((P, P), np.uint8)).reshape(1, 1, P, P)
        t[p + "attn.masked_bias"] = np.array(-1e4, np.float32)
        w = n(D, 3 * D, sd=1 / np.sqrt(D))
        w[:, :2 * D] *= 1.5  # sharper attention
        t[p + "attn.c_attn.weight"] = w
        t[p + "attn.c_attn.bias"] = n(3 * D, sd=0.1)
        t[p + "attn.c_proj.weight"] = n(D, D, sd=1 / np.sqrt(D))
        t[p + "attn.c_proj.bias"] = n(D, sd=0.05)
        t[p + "ln_2.weight"] = 1 + n(D, sd=0.1)
        t[p + "ln_2.bias"] = n(D, sd=0.1)
        t[p + "mlp.c_fc.weight"] = n(D, F, sd=1 / np.sqrt(D))
        t[p + "mlp.c_fc.bias"] = n(F, sd=0.1)
        t[p + "mlp.c_proj.weight"] = n(F, D, sd=1 / np.sqrt(F))
        t[p + "mlp.c_proj.bias"] = n(D, sd=0.05)
    t["ln_f.weight"] = 1 + n(D, sd=0.1)
    t["ln_f.bias"] = n(D, sd=0.1)
    t["lm_head.weight"] = t["wte.weight"].copy()
    return t


def reader_selftest(tmp):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 5)).astype(np.float32) * 100
    with open(tmp, "wb") as f:
        f.write(encode([("f32", "F32", a), ("f16", "F16", a), ("bf16", "BF16", a)]))
    st = SafeTensors(tmp)
    assert np.array_equal(st.get("f32"), a), "F32 read back differs"
    assert np.array_equal(st.get("f16"), a.astype(np.float16).astype(np.float32)), "F16 read back differs"
    b = st.get("bf16")
    assert np.all(np.abs(b - a) <= np.abs(a) * 2.0 ** -8) and np.any(b != a), "BF16 read back wrong"
    os.remove(tmp)


def cmd_make(argv):
    out = argv[0]
    prefix = "transformer." if "--prefix" in argv else ""
    omit = argv[argv.index("--omit") + 1] if "--omit" in argv else None
    reshape = argv[argv.index("--reshape") + 1] if "--reshape" in argv else None
    cfg = dict(CFG)
    if "--config" in argv:
        for kv in argv[argv.index("--config") + 1].split(","):
            k, v = kv.split("=")
            cfg[k] = int(v)
    os.makedirs(out, exist_ok=True)
    reader_selftest(os.path.join(out, "selftest.safetensors"))
    t = hf_tensors(np.random.default_rng(2024), cfg)
    items = []
    for name, a in t.items():
        if name == omit:
            continue
        if name == reshape:
            a = a[..., :-1]
        full = name if name == "lm_head.weight" else prefix + name
        items.append((full, "U8" if a.dtype == np.uint8 else "F32", a))
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(encode(items))
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    return 0


def cmd_tokens(argv):
    n, seed, out = int(argv[0]), int(argv[1]), argv[2]
    tok = np.random.default_rng(seed).integers(0, CFG["vocab_size"], n)
    tok[0], tok[-1] = 0, CFG["vocab_size"] - 1
    with open(out, "w") as f:
        json.dump({"tok": {"shape": [n], "data": [int(x) for x in tok]}}, f)
    return 0


def cmd_compare(argv):
    ckpt, inp, outp, bound = argv[0], argv[1], argv[2], float(argv[3])
    cfg, w = load_checkpoint(ckpt)
    tok = read_tokens(inp)
    ref = forward(cfg, w, tok)
    with open(outp) as f:
        got = json.load(f)
    g = np.array(got["logits"]["data"], np.float64).reshape(got["logits"]["shape"])
    nxt = np.array(got["next"]["data"], np.int64)
    assert g.shape == ref.shape, (g.shape, ref.shape)
    scale = float(np.max(np.abs(ref)))
    err = float(np.max(np.abs(g - ref)))
    tol = bound * scale
    top2 = np.sort(ref, axis=-1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) > tol
    want = np.argmax(ref, -1)
    agree_clear = int(np.sum(nxt[clear] == want[clear]))
    agree_all = int(np.sum(nxt == want))
    ok = err <= tol and agree_clear == int(clear.sum()) and clear.sum() * 4 >= len(tok)
    # the integer next must also be the argmax of the integer logits
    ok &= bool(np.all(nxt == np.argmax(g, -1)))
    print(f"gpt2_import: max|logit err| {err:.4g} = {err / scale:.3%} of max|logit| {scale:.4g} "
          f"(bound {bound:.1%}); next: {agree_all}/{len(tok)} equal to numpy, "
          f"{agree_clear}/{int(clear.sum())} where numpy's top-two margin > {tol:.3g}: "
          f"{'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


def main():
    cmds = {"make": cmd_make, "tokens": cmd_tokens, "compare": cmd_compare}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        return 2
    return cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
