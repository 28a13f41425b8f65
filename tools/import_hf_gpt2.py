#!/usr/bin/python3
"""Convert a Hugging Face GPT-2 checkpoint into the weights of examples/gpt2.ein.

Usage:
  import_hf_gpt2.py CHECKPOINT_DIR -o OUT.safetensors [--seq N]

CHECKPOINT_DIR holds config.json and model.safetensors (or model.safetensors.index.json
with its shards) as Hugging Face writes GPT-2: tensor names with or without the
`transformer.` prefix, Conv1D weights stored [in, out]. numpy only; nothing is downloaded.

Writes OUT.safetensors (F32) with exactly the weights gpt2.ein declares, layers stacked
on the first axis, heads split:

  wte[V, D] wpe[S, D] g_ln1/b_ln1[L, D] wq/wk/wv[L, D, H, E] bq/bk/bv[L, H, E]
  wo[L, H, E, D] bo[L, D] g_ln2/b_ln2[L, D] w_fc[L, D, F] b_fc[L, F]
  w_proj[L, F, D] b_proj[L, D] g_lnf/b_lnf[D]

and prints on stdout ONE line of -D flags for examples/gpt2.ein matching the config, e.g.
  -D V=50257 -D S=1024 -D D=768 -D H=12 -D L=12 -D F=3072
--seq N keeps the first N learned positions (S = N <= n_positions): a shorter context
makes every run and proof cheaper. Buffers (h.N.attn.bias, h.N.attn.masked_bias) and
lm_head.weight (tied to wte) are ignored. Exit status 1 with a message naming the file
and tensor on a missing tensor, a wrong shape or an unsupported config.
"""
import argparse
import json
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_np import SafeTensors, SafeTensorsError, write_f32  # noqa: E402

# gpt2.ein writes the tanh form of GELU and layernorm's epsilon 1e-5
TANH_GELUS = ("gelu_new", "gelu_pytorch_tanh", "gelu_fast")
IGNORED = re.compile(r"^(h\.\d+\.attn\.(bias|masked_bias)|lm_head\.weight)$")


class ConvertError(Exception):
    pass


def read_config(ckpt):
    path = os.path.join(ckpt, "config.json")
    try:
        with open(path) as f:
            cfg = json.load(f)
    except OSError as e:
        raise ConvertError(f"{path}: {e.strerror}") from None
    except ValueError as e:
        raise ConvertError(f"{path}: invalid JSON ({e})") from None

    def key(*names, default=None):
        for n in names:
            if cfg.get(n) is not None:
                v = cfg[n]
                if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                    raise ConvertError(f"{path}: '{n}' is {v!r}, expected a positive integer")
                return v
        if default is not None:
            return default
        raise ConvertError(f"{path}: missing '{names[0]}'")

    c = {"L": key("n_layer"), "H": key("n_head"), "D": key("n_embd"),
         "S": key("n_positions", "n_ctx"), "V": key("vocab_size")}
    c["F"] = key("n_inner", default=4 * c["D"])
    if c["D"] % c["H"]:
        raise ConvertError(f"{path}: n_embd {c['D']} is not a multiple of n_head {c['H']}")
    c["E"] = c["D"] // c["H"]
    act = cfg.get("activation_function", "gelu_new")
    if act not in TANH_GELUS:
        raise ConvertError(f"{path}: activation_function '{act}' is not the tanh GELU of gpt2.ein "
                           f"({', '.join(TANH_GELUS)}); for exact 'gelu' edit gelu_tanh to gelu there")
    eps = cfg.get("layer_norm_epsilon", 1e-5)
    if abs(eps - 1e-5) > 1e-12:
        print(f"import_hf_gpt2: warning: {path}: layer_norm_epsilon {eps}, but einzk's layernorm "
              f"uses 1e-5", file=sys.stderr)
    for flag, want in (("scale_attn_weights", True), ("scale_attn_by_inverse_layer_idx", False),
                       ("add_cross_attention", False), ("tie_word_embeddings", True)):
        if cfg.get(flag, want) != want:
            raise ConvertError(f"{path}: '{flag}': {cfg[flag]!r} is not supported by gpt2.ein "
                               f"(needs {want})")
    return c


class Checkpoint:
    """Tensors of model.safetensors or its shards, looked up without the `transformer.` prefix."""

    def __init__(self, ckpt):
        single = os.path.join(ckpt, "model.safetensors")
        index = single + ".index.json"
        files = []
        if os.path.exists(single):
            files = [single]
        elif os.path.exists(index):
            try:
                with open(index) as f:
                    files = sorted({os.path.join(ckpt, v) for v in json.load(f)["weight_map"].values()})
            except (OSError, ValueError, KeyError, AttributeError) as e:
                raise ConvertError(f"{index}: unreadable index ({e})") from None
        else:
            raise ConvertError(f"{single}: no such file (nor {os.path.basename(index)})")
        self.where = {}  # short name -> (file, full name)
        for path in files:
            st = SafeTensors(path)
            for n in st.names():
                short = n[len("transformer."):] if n.startswith("transformer.") else n
                if short in self.where:
                    raise ConvertError(f"{path}: tensor '{n}' appears twice (also in "
                                       f"{self.where[short][0].path})")
                self.where[short] = (st, n)
        self.label = files[0] if len(files) == 1 else os.path.join(ckpt, "model-*.safetensors")

    def check(self, short, shape):
        """Present with this shape (nothing is read)."""
        if short not in self.where:
            raise ConvertError(f"{self.label}: missing tensor '{short}' (or 'transformer.{short}'), "
                               f"expected shape {list(shape)}")
        st, full = self.where[short]
        if st.shape(full) != tuple(shape):
            raise ConvertError(f"{st.path}: tensor '{full}': shape {list(st.shape(full))}, "
                               f"expected {list(shape)}")
        return st, full

    def get(self, short, shape):
        st, full = self.check(short, shape)
        a = st.get(full, np.float32)
        if not np.all(np.isfinite(a)):
            raise ConvertError(f"{st.path}: tensor '{full}' holds NaN or Inf")
        return a


def gpt2_weights(c, ck, S):
    """(name, (shape, producer)) for every weight of gpt2.ein, in declaration order.
    Every HF tensor is looked up (and its shape checked) before anything is written."""
    L, H, D, E, F, V = c["L"], c["H"], c["D"], c["E"], c["F"], c["V"]
    need = {"wte.weight": (V, D), "wpe.weight": (c["S"], D), "ln_f.weight": (D,), "ln_f.bias": (D,)}
    for i in range(L):
        need.update({f"h.{i}.ln_1.weight": (D,), f"h.{i}.ln_1.bias": (D,),
                     f"h.{i}.attn.c_attn.weight": (D, 3 * D), f"h.{i}.attn.c_attn.bias": (3 * D,),
                     f"h.{i}.attn.c_proj.weight": (D, D), f"h.{i}.attn.c_proj.bias": (D,),
                     f"h.{i}.ln_2.weight": (D,), f"h.{i}.ln_2.bias": (D,),
                     f"h.{i}.mlp.c_fc.weight": (D, F), f"h.{i}.mlp.c_fc.bias": (F,),
                     f"h.{i}.mlp.c_proj.weight": (F, D), f"h.{i}.mlp.c_proj.bias": (D,)})
    for name, shape in need.items():  # fail before writing anything
        ck.check(name, shape)
    for short, (st, full) in ck.where.items():
        if short in need or IGNORED.match(short):
            continue
        m = re.match(r"^h\.(\d+)\.", short)
        if m and int(m.group(1)) >= L:
            raise ConvertError(f"{st.path}: tensor '{full}' belongs to layer {m.group(1)}, but the "
                               f"config has n_layer = {L}")
        print(f"import_hf_gpt2: warning: {st.path}: tensor '{full}' is not part of GPT-2; ignored",
              file=sys.stderr)

    def g(name):
        return ck.get(name, need[name])

    def stack(fn, shape):
        return ((L,) + shape, lambda: np.stack([fn(i) for i in range(L)]))

    def qkv_w(j):  # c_attn.weight [D, 3D]: Q, K, V side by side; head h = columns h*E..h*E+E
        return lambda i: g(f"h.{i}.attn.c_attn.weight")[:, j * D:(j + 1) * D].reshape(D, H, E)

    def qkv_b(j):
        return lambda i: g(f"h.{i}.attn.c_attn.bias")[j * D:(j + 1) * D].reshape(H, E)

    return [
        ("wte", ((V, D), lambda: g("wte.weight"))),
        ("wpe", ((S, D), lambda: g("wpe.weight")[:S])),
        ("g_ln1", stack(lambda i: g(f"h.{i}.ln_1.weight"), (D,))),
        ("b_ln1", stack(lambda i: g(f"h.{i}.ln_1.bias"), (D,))),
        ("wq", stack(qkv_w(0), (D, H, E))), ("bq", stack(qkv_b(0), (H, E))),
        ("wk", stack(qkv_w(1), (D, H, E))), ("bk", stack(qkv_b(1), (H, E))),
        ("wv", stack(qkv_w(2), (D, H, E))), ("bv", stack(qkv_b(2), (H, E))),
        # c_proj's input axis is the merged heads h*E + e
        ("wo", stack(lambda i: g(f"h.{i}.attn.c_proj.weight").reshape(H, E, D), (H, E, D))),
        ("bo", stack(lambda i: g(f"h.{i}.attn.c_proj.bias"), (D,))),
        ("g_ln2", stack(lambda i: g(f"h.{i}.ln_2.weight"), (D,))),
        ("b_ln2", stack(lambda i: g(f"h.{i}.ln_2.bias"), (D,))),
        ("w_fc", stack(lambda i: g(f"h.{i}.mlp.c_fc.weight"), (D, F))),
        ("b_fc", stack(lambda i: g(f"h.{i}.mlp.c_fc.bias"), (F,))),
        ("w_proj", stack(lambda i: g(f"h.{i}.mlp.c_proj.weight"), (F, D))),
        ("b_proj", stack(lambda i: g(f"h.{i}.mlp.c_proj.bias"), (D,))),
        ("g_lnf", ((D,), lambda: g("ln_f.weight"))),
        ("b_lnf", ((D,), lambda: g("ln_f.bias"))),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ckpt", metavar="CHECKPOINT_DIR")
    ap.add_argument("-o", "--output", required=True, metavar="OUT.safetensors")
    ap.add_argument("--seq", type=int, metavar="N", help="context length S (default n_positions)")
    args = ap.parse_args()
    try:
        c = read_config(args.ckpt)
        S = c["S"] if args.seq is None else args.seq
        if not 1 <= S <= c["S"]:
            raise ConvertError(f"--seq {S}: must be in [1, {c['S']}] (the checkpoint's n_positions)")
        ck = Checkpoint(args.ckpt)
        items = gpt2_weights(c, ck, S)
        largest = [0.0, ""]

        def track(name, fn):
            def run():
                a = fn()
                m = float(np.max(np.abs(a))) if a.size else 0.0
                if m > largest[0]:
                    largest[:] = [m, name]
                return a
            return run
        items = [(n, (shape, track(n, fn))) for n, (shape, fn) in items]
        tmp = args.output + ".tmp"
        try:
            write_f32(tmp, items, metadata={"source": "import_hf_gpt2", "model": "examples/gpt2.ein"})
            os.replace(tmp, args.output)
        except OSError as e:
            raise ConvertError(f"{args.output}: {e.strerror}") from None
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    except (ConvertError, SafeTensorsError) as e:
        print(f"import_hf_gpt2: error: {e}", file=sys.stderr)
        return 1
    nparam = sum(int(np.prod(shape)) for _, (shape, _) in items)
    print(f"import_hf_gpt2: wrote {args.output}: {len(items)} tensors, {nparam} parameters; "
          f"largest |weight| {largest[0]:.4g} (in {largest[1]})", file=sys.stderr)
    print(f"-D V={c['V']} -D S={S} -D D={c['D']} -D H={c['H']} -D L={c['L']} -D F={c['F']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
