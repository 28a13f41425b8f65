#!/usr/bin/python3
"""numpy float64 reference timing for bench/attention_layer.sh.

usage: attention_layer.py W.safetensors IN.json EINZK_OUT.json REPEATS
Computes the GPT-2-small attention layer of examples/attention.ein (q, k, v
projections, causal softmax of q.k / 8, p.v, output projection) in float64 with
numpy's best formulation (BLAS matmuls on reshaped weights, einsum for the two
per-head products), REPEATS times, and prints one JSON line:
  {"numpy_ms": fastest layer, "numpy_median_ms", "blas": library numpy uses,
   "max_abs_diff_vs_einzk", "max_abs_ref"}
Run by the .sh with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset; always /usr/bin/python3.
"""
import json
import struct
import sys
import time

import numpy as np


def read_safetensors(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + b:8 + n + end], dtype=np.float32).reshape(e["shape"]).astype(np.float64)
    return out


def blas_name():
    try:
        cfg = np.show_config(mode="dicts")
        return cfg["Build Dependencies"]["blas"]["name"]
    except Exception:
        import glob
        import os
        for lib in ("libopenblas", "libmkl", "libblis", "libblas"):
            for m in open("/proc/self/maps").read().splitlines():
                if lib in m:
                    return os.path.basename(m.split()[-1])
        return "unknown"


def main():
    wpath, ipath, opath, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    w = read_safetensors(wpath)
    xin = json.load(open(ipath))["x"]
    x = np.array(xin["data"], dtype=np.float64).reshape(xin["shape"])
    S, D = x.shape
    H, E = w["wq"].shape[1], w["wq"].shape[2]
    wq, wk, wv = (w[n].reshape(D, H * E) for n in ("wq", "wk", "wv"))
    wo = w["wo"].reshape(H * E, D)
    mask = np.triu(np.ones((S, S), dtype=bool), 1)

    def layer():
        q = (x @ wq).reshape(S, H, E)
        k = (x @ wk).reshape(S, H, E)
        v = (x @ wv).reshape(S, H, E)
        a = np.einsum("she,the->hst", q, k, optimize=True) / 8.0
        a = np.where(mask, -np.inf, a)
        a = np.exp(a - a.max(axis=-1, keepdims=True))
        p = a / a.sum(axis=-1, keepdims=True)
        c = np.einsum("hst,the->she", p, v, optimize=True).reshape(S, H * E)
        return c @ wo

    y = layer()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        layer()
        times.append(time.perf_counter() - t0)
    times.sort()
    got = json.load(open(opath))["y"]
    g = np.array(got["data"], dtype=np.float64).reshape(got["shape"])
    print(json.dumps({"numpy_ms": times[0] * 1e3, "numpy_median_ms": times[len(times) // 2] * 1e3,
                      "blas": blas_name(), "max_abs_diff_vs_einzk": float(np.max(np.abs(g - y))),
                      "max_abs_ref": float(np.max(np.abs(y)))}))


if __name__ == "__main__":
    main()
