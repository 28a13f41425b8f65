#!/usr/bin/python3
"""Oracle tests of `einzk run` against numpy (docs/architecture.md "Tests").

Two modes; both need the path to the einzk binary.

  oracle.py model EINZK MODEL.einc W.safetensors IN.json OUT.json [--rtol R]
      Evaluates the compiled model in float64 with numpy -- generically, from the plan
      that `einzk run MODEL.einc --dump-plan` prints (np.einsum for contractions, real
      softmax / layernorm / rmsnorm / erf-GELU / ... for the rest) -- on the weights
      (safetensors parsed here with numpy: u64 header length + JSON header + data) and
      inputs, and compares with OUT.json written by `einzk run`. Tolerance: for every
      output, max |einzk - numpy| <= rtol * max |numpy| + 2^-scale (default rtol 0.02;
      the integer model is observed at about 0.1-0.3 %). An argmax output may differ
      from numpy's only where numpy's own top two values are within that tolerance.

  oracle.py random EINZK WORKDIR [--count N] [--seed S]
      Random einsum equations (batch, contracted, free, summed indices, shuffled axis
      orders (the language has no diagonals a[i, i]), three-operand products that the compiler splits) written as .ein files at
      scale 0 with small-integer inputs, compiled and run with einzk, and compared with
      numpy.einsum EXACTLY (scale 0 and no rescale make the integer result the einsum).

Exit status 0 when everything agrees, 1 otherwise (a summary line on stdout either way).
Always run with /usr/bin/python3 (Debian's numpy).
"""
import json
import math
import os
import random
import struct
import subprocess
import sys

import numpy as np

ST_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64,
             "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8}


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        arr = np.frombuffer(data[b:end], dtype=ST_DTYPES[e["dtype"]]).reshape(e["shape"])
        out[name] = arr.astype(np.float64)
    return out


def write_empty_safetensors(path):
    header = b"{}" + b" " * 6
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)


def load_inputs(path):
    with open(path) as f:
        j = json.load(f)
    out = {}
    for name, v in j.items():
        if isinstance(v, dict):
            out[name] = np.array(v["data"], dtype=np.float64).reshape(v["shape"])
        else:
            out[name] = np.array(v, dtype=np.float64)
    return out


def sub_of(ids):
    return "".join(chr(ord("a") + i) for i in ids)


def to_out(arr, sub, out_sub, sizes):
    """Permute arr (subscripts sub, a subset of out_sub) into out_sub order,
    broadcasting over the indices it lacks."""
    present = [c for c in out_sub if c in sub]
    arr = np.einsum(f"{sub}->{''.join(present)}", arr) if sub != "".join(present) else arr
    shape = [sizes[c] if c in sub else 1 for c in out_sub]
    return np.broadcast_to(arr.reshape(shape), [sizes[c] for c in out_sub])


def gelu(x):
    return 0.5 * x * (1.0 + np.frompyfunc(math.erf, 1, 1)(x / math.sqrt(2.0)).astype(np.float64))


FUNCS = {
    "relu": lambda x: np.maximum(x, 0.0),
    "gelu": gelu,
    "gelu_tanh": lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "tanh": np.tanh,
    "exp": np.exp,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
}


def evaluate(plan, weights, inputs):
    """float64 evaluation of every op of the plan; returns values per tensor id."""
    T = plan["tensors"]
    vals = {}
    for i, t in enumerate(T):
        if t["kind"] == "weight":
            vals[i] = weights[t["name"]]
        elif t["kind"] in ("input", "tokens"):
            vals[i] = inputs[t["source_name"]].reshape(t["shape"])
    for op in plan["ops"]:
        sizes = {sub_of([i]): x["size"] for i, x in enumerate(op["indices"])}
        out_t = T[op["out"]]
        out_sub = sub_of(op["out_axes"])
        ops = []
        for inp in op["inputs"]:
            arr = vals[inp["tensor"]]
            idx, sub = [], ""
            for ax in inp["axes"]:
                if isinstance(ax, dict):
                    idx.append(ax["pos"])
                elif ax is None:
                    idx.append(slice(None))
                    sub += "?"
                else:
                    idx.append(slice(None))
                    sub += sub_of([ax])
            ops.append((arr[tuple(idx)], sub, T[inp["tensor"]]["scale"], inp["coef"]))
        kind = op["kind"]
        if kind == "einsum":
            scale = sum(o[2] for o in ops) - op["shift"] - out_t["scale"]
            c = op["mul"] * 2.0 ** scale
            present = "".join(ch for ch in out_sub if any(ch in o[1] for o in ops))
            eq = ",".join(o[1] for o in ops) + "->" + present
            r = np.einsum(eq, *[o[0] for o in ops]) * c
            res = to_out(r, present, out_sub, sizes)
        elif kind == "add":
            res = 0
            for arr, sub, sc, coef in ops:
                res = res + coef * 2.0 ** (sc - op["shift"] - out_t["scale"]) * to_out(arr, sub, out_sub, sizes)
        elif kind == "gather":
            (tab, tsub, _, _), (tok, ksub, _, _) = ops
            r = tab[tok.astype(np.int64)]
            res = to_out(r, ksub + tsub[1:], out_sub, sizes)
        else:
            arr, sub, _, _ = ops[0]
            ax = sub_of([op["axis"]])
            if kind in ("max", "argmax"):
                x = to_out(arr, sub, out_sub + ax, sizes)
                res = x.max(axis=-1) if kind == "max" else np.argmax(x, axis=-1).astype(np.float64)
            else:
                x = np.array(to_out(arr, sub, out_sub, sizes), dtype=np.float64)
                if kind in ("func", "relu", "rsqrt"):
                    res = FUNCS[op["func"] if kind == "func" else kind](x)
                elif kind == "rope":
                    # Hugging Face Llama: x * cos + rotate_half(x) * sin, base 10000
                    cs, ce = sub_of([op["mask_row"]]), sub_of([op["mask_col"]])
                    pe, E = out_sub.index(ce), sizes[ce]
                    inv = 10000.0 ** (-np.arange(0, E, 2, dtype=np.float64) / E)
                    ang = np.arange(sizes[cs], dtype=np.float64)[:, None] * inv[None, :]
                    emb = np.concatenate([ang, ang], axis=-1)  # [s, e]
                    cos = to_out(np.cos(emb), cs + ce, out_sub, sizes)
                    sin = to_out(np.sin(emb), cs + ce, out_sub, sizes)
                    h = E // 2
                    rot = np.concatenate([-np.take(x, range(h, E), axis=pe), np.take(x, range(h), axis=pe)], axis=pe)
                    res = x * cos + rot * sin
                elif kind in ("causal", "softmax"):
                    mask = None
                    if kind == "causal" or op["masked"]:
                        ii = np.arange(sizes[sub_of([op["mask_row"]])])
                        jj = np.arange(sizes[sub_of([op["mask_col"]])])
                        m2 = jj[None, :] > ii[:, None]  # [i, j]
                        mask = to_out(m2, sub_of([op["mask_row"], op["mask_col"]]), out_sub, sizes)
                    if kind == "causal":
                        res = np.where(mask, 0.0, x)
                    else:
                        p = out_sub.index(ax)
                        xm = np.where(mask, -np.inf, x) if mask is not None else x
                        mx = np.max(xm, axis=p, keepdims=True)
                        e = np.exp(xm - mx)
                        res = e / np.sum(e, axis=p, keepdims=True)
                else:  # layernorm, rmsnorm
                    p = out_sub.index(ax)
                    mean = x.mean(axis=p, keepdims=True) if kind == "layernorm" else 0.0
                    var = ((x - mean) ** 2).mean(axis=p, keepdims=True)
                    res = (x - mean) / np.sqrt(var + 1e-5)
        vals[op["out"]] = np.array(res, dtype=np.float64).reshape(out_t["shape"])
    return vals


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def mode_model(argv):
    einzk, einc, wpath, ipath, opath = argv[:5]
    rtol = 0.02
    if "--rtol" in argv:
        rtol = float(argv[argv.index("--rtol") + 1])
    plan = json.loads(run([einzk, "run", einc, "--dump-plan"]))
    weights = read_safetensors(wpath)
    inputs = load_inputs(ipath)
    vals = evaluate(plan, weights, inputs)
    with open(opath) as f:
        got = json.load(f)
    ok = True
    producer = {op["out"]: op for op in plan["ops"]}
    for i, t in enumerate(plan["tensors"]):
        if not t["output"]:
            continue
        name = t["source_name"]
        g = np.array(got[name]["data"], dtype=np.float64).reshape(t["shape"])
        ref = vals[i]
        op = producer.get(i)
        if op is not None and op["kind"] == "argmax":
            # the integer argmax may pick another index only among numpy's near-ties
            x = vals[op["inputs"][0]["tensor"]]
            sub = "".join("?" if a is None or isinstance(a, dict) else sub_of([a]) for a in op["inputs"][0]["axes"])
            sizes = {sub_of([k]): x2["size"] for k, x2 in enumerate(op["indices"])}
            xs = np.array(to_out(x, sub, sub_of(op["out_axes"]) + sub_of([op["axis"]]), sizes))
            tol = rtol * np.max(np.abs(xs))
            chosen = np.take_along_axis(xs, g.astype(np.int64)[..., None], axis=-1)[..., 0]
            gap = np.max(xs, axis=-1) - chosen
            bad = int(np.sum(gap > tol))
            agree = int(np.sum(g == ref))
            print(f"  {name:12s} argmax: {agree}/{g.size} equal to numpy, {bad} beyond near-tie tolerance {tol:.3g}")
            ok &= bad == 0
            continue
        err = float(np.max(np.abs(g - ref))) if g.size else 0.0
        mref = float(np.max(np.abs(ref))) if ref.size else 0.0
        lim = rtol * mref + 2.0 ** -t["scale"]
        print(f"  {name:12s} max|err| {err:.4g}  max|ref| {mref:.4g}  rel {err / mref if mref else 0:.4g}"
              f"  limit {lim:.4g}  {'ok' if err <= lim else 'FAIL'}")
        ok &= err <= lim
    return ok


def random_case(rng, work, einzk, k):
    """One random equation; returns True when einzk agrees exactly with numpy.einsum."""
    letters = "ijklmnpq"
    nidx = rng.randint(2, 6)
    sizes = {c: rng.randint(1, 5) for c in letters[:nidx]}
    nops = 3 if rng.random() < 0.3 else (2 if rng.random() < 0.85 else 1)
    subs = [[] for _ in range(nops)]
    out = []
    for c in letters[:nidx]:
        # which operands carry the index, and whether the result keeps it
        carriers = [o for o in range(nops) if rng.random() < 0.6] or [rng.randrange(nops)]
        for o in carriers:
            subs[o].append(c)
        if rng.random() < 0.5:
            out.append(c)
    for s in subs:
        if not s:  # every operand needs an axis
            s.append(rng.choice(letters[:nidx]))
        rng.shuffle(s)
    rng.shuffle(out)
    names = ["a", "b", "c"][:nops]
    model = f"rnd{k}"
    lines = [f"model {model}", "scale 0"]
    lines += [f"param {c.upper()} = {sizes[c]}" for c in letters[:nidx]]
    for n, s in zip(names, subs):
        lines.append(f"input {n}[{', '.join(c.upper() for c in s)}] @bits(6)")
    rhs = " * ".join(f"{n}[{', '.join(s)}]" for n, s in zip(names, subs))
    if out:
        lines.append(f"y[{', '.join(out)}] = {rhs}")
    else:
        lines.append(f"y[] = {rhs}")
    lines.append("output y")
    src = "\n".join(lines) + "\n"
    ein = os.path.join(work, f"{model}.ein")
    with open(ein, "w") as f:
        f.write(src)
    data = {n: np.array([rng.randint(-20, 20) for _ in range(int(np.prod([sizes[c] for c in s])))],
                        dtype=np.int64).reshape([sizes[c] for c in s]) for n, s in zip(names, subs)}
    ipath = os.path.join(work, f"{model}.json")
    with open(ipath, "w") as f:
        json.dump({n: {"shape": list(v.shape), "data": [int(x) for x in v.ravel()]} for n, v in data.items()}, f)
    einc = os.path.join(work, f"{model}.einc")
    wpath = os.path.join(work, "empty.safetensors")
    opath = os.path.join(work, f"{model}.out.json")
    try:
        run([einzk, "compile", ein, "-o", einc])
        run([einzk, "run", einc, "--weights", wpath, "--input", ipath, "-o", opath])
    except RuntimeError as e:
        print(f"  FAIL {model}: {e}\n{src}")
        return False
    eq = ",".join("".join(s) for s in subs) + "->" + "".join(out)
    want = np.einsum(eq, *[data[n] for n in names])
    with open(opath) as f:
        got = json.load(f)["y"]
    g = np.array(got["data"], dtype=np.float64).reshape(got["shape"])
    if g.shape != want.shape or not np.array_equal(g, want.astype(np.float64)):
        print(f"  FAIL {model}: {eq} differs from numpy.einsum\n{src}")
        return False
    return True


def mode_random(argv):
    einzk, work = argv[:2]
    count = int(argv[argv.index("--count") + 1]) if "--count" in argv else 40
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
    os.makedirs(work, exist_ok=True)
    write_empty_safetensors(os.path.join(work, "empty.safetensors"))
    rng = random.Random(seed)
    ok = 0
    for k in range(count):
        ok += random_case(rng, work, einzk, k)
    print(f"random einsum: {ok}/{count} equations exactly equal to numpy.einsum (seed {seed})")
    return ok == count


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("model", "random"):
        print(__doc__, file=sys.stderr)
        return 2
    ok = mode_model(sys.argv[2:]) if sys.argv[1] == "model" else mode_random(sys.argv[2:])
    print("oracle:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
