#!/usr/bin/python3
"""numpy float64 reference timing for bench/attention_layer.sh.

usage: attention_layer.py W.safetensors IN.json EINZK_OUT.json REPEATS
       attention_layer.py --einzk-cpu EINZK WORKDIR N
Computes the GPT-2-small attention layer of examples/attention.ein (q, k, v
projections, causal softmax of q.k / 8, p.v, output projection) in float64, REPEATS
times each in two formulations, and prints one JSON line:
  {"numpy_ms": fastest layer of the faster formulation, "formulation",
   "matmul_ms", "einsum_ms" (fastest of each), "numpy_median_ms" (of the faster),
   "numpy_cpu_ms" (the faster's mean process CPU time per layer: all threads' time,
   unaffected by other processes taking the core, unlike the wall times),
   "blas": library numpy calls and, for OpenBLAS, the kernel set it runs,
   "max_abs_diff_vs_einzk", "max_abs_ref"}
Formulations: "matmul" (every product through BLAS: the projections on reshaped
weights, the per-head products as batched matmuls on transposed views) and "einsum"
(np.einsum(optimize=True) for the two per-head products). The matmul form is numpy's
best here: einsum does not hand a product with a batch index to BLAS.
Run by the .sh with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE as it chooses; /usr/bin/python3.

--einzk-cpu prints einzk's CPU time per layer execution in ms: the process CPU time
(user + system, all threads) of `EINZK run WORKDIR/att.einc ... --repeat 1+N` minus
that of `--repeat 1` (best of 3 each, so loading, quantizing and writing cancel), / N.
"""
import ctypes
import json
import os
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
    """The BLAS shared object mapped into this process (numpy links libblas.so.3, a
    Debian alternative) and, for OpenBLAS, the kernel set it selected at load time."""
    paths = []
    for line in open("/proc/self/maps").read().splitlines():
        f = line.split()
        if len(f) >= 6 and f[-1] not in paths:
            paths.append(f[-1])
    base = [os.path.basename(p) for p in paths]
    pick = [p for p, b in zip(paths, base) if b.startswith(("libopenblas", "libmkl_rt", "libblis"))]
    pick += [p for p, b in zip(paths, base) if b.startswith("libblas")]
    if not pick:
        return "unknown"
    lib = pick[0]
    name = os.path.realpath(lib)
    try:
        ob = ctypes.CDLL(lib)
        ob.openblas_get_corename.restype = ctypes.c_char_p
        ob.openblas_get_config.restype = ctypes.c_char_p
        return "%s (%s, core %s)" % (os.path.basename(name), ob.openblas_get_config().decode().split(" DYNAMIC")[0],
                                    ob.openblas_get_corename().decode())
    except (OSError, AttributeError):
        return os.path.basename(name)


def einzk_cpu(einzk, work, n):
    import resource
    import subprocess

    def cpu(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([einzk, "run", work + "/att.einc", "--weights", work + "/w.safetensors",
                        "--input", work + "/in.json", "-o", work + "/out.json", "--repeat",
                        str(repeat)], check=True, stdout=subprocess.DEVNULL)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime

    base = min(cpu(1) for _ in range(3))
    full = min(cpu(1 + n) for _ in range(3))
    print("%.3f" % ((full - base) / n * 1e3))


def main():
    if sys.argv[1] == "--einzk-cpu":
        einzk_cpu(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    wpath, ipath, opath, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    w = read_safetensors(wpath)
    xin = json.load(open(ipath))["x"]
    x = np.array(xin["data"], dtype=np.float64).reshape(xin["shape"])
    S, D = x.shape
    H, E = w["wq"].shape[1], w["wq"].shape[2]
    wq, wk, wv = (np.ascontiguousarray(w[n].reshape(D, H * E)) for n in ("wq", "wk", "wv"))
    wo = np.ascontiguousarray(w["wo"].reshape(H * E, D))
    mask = np.triu(np.ones((S, S), dtype=bool), 1)

    def softmax(a):
        a = np.where(mask, -np.inf, a)
        a = np.exp(a - a.max(axis=-1, keepdims=True))
        return a / a.sum(axis=-1, keepdims=True)

    def layer_einsum():
        q = (x @ wq).reshape(S, H, E)
        k = (x @ wk).reshape(S, H, E)
        v = (x @ wv).reshape(S, H, E)
        p = softmax(np.einsum("she,the->hst", q, k, optimize=True) / 8.0)
        c = np.einsum("hst,the->she", p, v, optimize=True).reshape(S, H * E)
        return c @ wo

    def layer_matmul():
        q = (x @ wq).reshape(S, H, E).transpose(1, 0, 2)   # h s e
        k = (x @ wk).reshape(S, H, E).transpose(1, 2, 0)   # h e t
        v = (x @ wv).reshape(S, H, E).transpose(1, 0, 2)   # h t e
        p = softmax((q @ k) / 8.0)                          # h s t
        c = (p @ v).transpose(1, 0, 2).reshape(S, H * E)    # s (h e)
        return c @ wo

    def timed(f):
        """(fastest wall ms, median wall ms, mean process CPU ms) over reps calls"""
        f()
        times = []
        c0 = time.process_time()
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        cpu = (time.process_time() - c0) / reps
        times.sort()
        return times[0] * 1e3, times[len(times) // 2] * 1e3, cpu * 1e3

    y = layer_matmul()
    assert np.max(np.abs(y - layer_einsum())) <= 1e-9 * max(1.0, np.max(np.abs(y)))
    mm, mm_med, mm_cpu = timed(layer_matmul)
    es, es_med, es_cpu = timed(layer_einsum)
    if mm <= es:
        best, form, med, cpu = mm, "matmul", mm_med, mm_cpu
    else:
        best, form, med, cpu = es, "einsum", es_med, es_cpu
    got = json.load(open(opath))["y"]
    g = np.array(got["data"], dtype=np.float64).reshape(got["shape"])
    print(json.dumps({"numpy_ms": best, "formulation": form, "matmul_ms": mm, "einsum_ms": es,
                      "numpy_median_ms": med, "numpy_cpu_ms": cpu, "blas": blas_name(),
                      "max_abs_diff_vs_einzk": float(np.max(np.abs(g - y))),
                      "max_abs_ref": float(np.max(np.abs(y)))}))


if __name__ == "__main__":
    main()
