#!/usr/bin/python3
"""Train the tiny character-level LM of examples/charlm.ein with python3-torch (CPU).

Usage:
  train_charlm.py [--text /usr/share/common-licenses/GPL-3] [--out-dir examples]
                  [--steps 2000] [--seed 0] [--threads 2] [--dropout 0.1]

Text: the GNU GPL version 3, /usr/share/common-licenses/GPL-3 from Debian's base-files,
so every Debian machine can retrain and check without a download; its sha256 is
recorded. The first 90% is the training set, the last 10% the validation set.

The torch model mirrors charlm.ein in float: x = wte[tok] + wpe; per layer
layernorm[d] (eps 1e-5, no affine) * g1, Q/K/V in split-head form wq[D, H, E], scores
/ sqrt(E), causal softmax, output projection wo[H, E, D], residual; layernorm * g2,
exact-erf GELU(n w1 + b1) w2 + b2, residual; layernorm * gf; logits tied to wte. The
parameters carry the .ein's names and shapes (layers stacked on the first axis).

Dropout (--dropout, 0.1) on the embedding, the attention weights and the residual branches
acts in training only; evaluation, the expectations and the shipped function have none.

Deterministic: torch.manual_seed, torch.use_deterministic_algorithms, a fixed thread
count, batches drawn from a seeded generator (bitwise repeatable on one machine and
thread count). AdamW, warmup then cosine decay; validation loss every 250 steps and the
weights with the best one are kept. Writes into --out-dir:
  charlm.safetensors   F32 weights, names and shapes exactly those of charlm.ein
  charlm.vocab.json    {"alphabet": "..."} (token id = index of the character)
  charlm.expect.json   fixed 64-character windows of the text with torch's next-token
                       argmax and top-two margin per position (tests/e2e/charlm_fidelity.sh),
                       the losses, the greedy sample and how it was made
and prints the loss curve, the greedy sample (numpy, tools/greedy_reference.py) and the
-D V=... flag if the alphabet is not charlm.ein's default.
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np

# OpenMP threads that spin while waiting make 2 threads 8x slower on a loaded 2-core machine
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import greedy_reference  # noqa: E402
from safetensors_np import write_f32  # noqa: E402

# charlm.ein's sizes (V comes from the text)
S, D, H, L, FF = 64, 64, 4, 2, 256
E = D // H
PROMPT = "This License"
SAMPLE_LEN = 200


class CharLM(torch.nn.Module):
    def __init__(self, V, dropout=0.0):
        super().__init__()
        self.drop = torch.nn.Dropout(dropout)  # training only; identity in eval mode
        P = torch.nn.Parameter
        std = 0.02
        proj = std / math.sqrt(2 * L)  # GPT-2's scaled init of residual projections
        self.wte = P(torch.randn(V, D) * std)
        self.wpe = P(torch.randn(S, D) * std)
        self.g1 = P(torch.ones(L, D))
        self.wq = P(torch.randn(L, D, H, E) * std)
        self.wk = P(torch.randn(L, D, H, E) * std)
        self.wv = P(torch.randn(L, D, H, E) * std)
        self.wo = P(torch.randn(L, H, E, D) * proj)
        self.g2 = P(torch.ones(L, D))
        self.w1 = P(torch.randn(L, D, FF) * std)
        self.b1 = P(torch.zeros(L, FF))
        self.w2 = P(torch.randn(L, FF, D) * proj)
        self.b2 = P(torch.zeros(L, D))
        self.gf = P(torch.ones(D))

    def forward(self, tok):  # tok [B, T], T <= S -> logits [B, T, V]
        T = tok.shape[1]
        x = self.drop(self.wte[tok] + self.wpe[:T])
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        for l in range(L):
            n = F.layer_norm(x, (D,), eps=1e-5) * self.g1[l]
            q = torch.einsum("bsd,dhe->bshe", n, self.wq[l])
            k = torch.einsum("btd,dhe->bthe", n, self.wk[l])
            v = torch.einsum("btd,dhe->bthe", n, self.wv[l])
            a = torch.einsum("bshe,bthe->bhst", q, k) / math.sqrt(E)
            p = self.drop(torch.softmax(a.masked_fill(future, float("-inf")), dim=-1))
            c = torch.einsum("bhst,bthe->bshe", p, v)
            x = x + self.drop(torch.einsum("bshe,hed->bsd", c, self.wo[l]))
            n = F.layer_norm(x, (D,), eps=1e-5) * self.g2[l]
            u = F.gelu(n @ self.w1[l] + self.b1[l])  # exact erf form, like the .ein's gelu
            x = x + self.drop(u @ self.w2[l] + self.b2[l])
        z = F.layer_norm(x, (D,), eps=1e-5) * self.gf
        return z @ self.wte.T

    def named_weights(self):  # in charlm.ein's declaration order
        order = ["wte", "wpe", "g1", "wq", "wk", "wv", "wo", "g2", "w1", "b1", "w2", "b2", "gf"]
        params = dict(self.named_parameters())
        return [(n, params[n]) for n in order]


def windows(data, starts):
    idx = starts[:, None] + torch.arange(S + 1)[None, :]
    chunk = data[idx]
    return chunk[:, :-1], chunk[:, 1:]


def evaluate(model, data, batch=64):
    """Mean cross-entropy over non-overlapping windows covering data (eval mode)."""
    was = model.training
    model.eval()
    starts = torch.arange(0, len(data) - S - 1, S)
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(starts), batch):
            x, y = windows(data, starts[i:i + batch])
            logits = model(x)
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                     reduction="sum").item()
            count += y.numel()
    model.train(was)
    return total / count


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--text", default="/usr/share/common-licenses/GPL-3")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "..", "examples"))
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)
    raw = open(args.text, "rb").read()
    text = raw.decode("utf-8")
    alphabet = "".join(sorted(set(text)))
    V = len(alphabet)
    index = {c: i for i, c in enumerate(alphabet)}
    data = torch.tensor([index[c] for c in text], dtype=torch.long)
    cut = int(len(data) * 0.9)
    train, val = data[:cut], data[cut:]
    print(f"text {args.text}: {len(text)} characters, alphabet of {V}, sha256 "
          f"{hashlib.sha256(raw).hexdigest()[:16]}...; train {len(train)}, validation {len(val)}")

    model = CharLM(V, args.dropout)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and n != "wpe"]
    rest = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and n != "wpe")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay}, {"params": rest, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98))
    gen = torch.Generator().manual_seed(args.seed)
    warm = 100

    def lr_at(step):
        if step < warm:
            return args.lr * (step + 1) / warm
        return args.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * (step - warm) / (args.steps - warm))))

    curve, best = [], (float("inf"), None, -1)
    t0 = time.time()
    run = 0.0
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        x, y = windows(train, torch.randint(0, len(train) - S - 1, (args.batch,), generator=gen))
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        run = loss.item() if step == 0 else 0.98 * run + 0.02 * loss.item()
        if (step + 1) % 250 == 0 or step + 1 == args.steps:
            vl = evaluate(model, val)
            curve.append({"step": step + 1, "train_loss_ema": round(run, 4), "val_loss": round(vl, 4)})
            print(f"step {step + 1:5d}  train {run:.4f}  val {vl:.4f}  ({time.time() - t0:.0f} s)", flush=True)
            if vl < best[0]:
                best = (vl, {n: p.detach().clone() for n, p in model.named_weights()}, step + 1)
    seconds = time.time() - t0
    model.eval()
    with torch.no_grad():
        for n, p in model.named_weights():
            p.copy_(best[1][n])
    train_loss, val_loss = evaluate(model, train), evaluate(model, val)
    print(f"kept step {best[2]}: train loss {train_loss:.4f}, validation loss {val_loss:.4f} "
          f"(nats/char); {seconds:.0f} s")

    os.makedirs(args.out_dir, exist_ok=True)
    wpath = os.path.join(args.out_dir, "charlm.safetensors")
    weights = [(n, p.detach().numpy().astype(np.float32)) for n, p in model.named_weights()]
    write_f32(wpath, weights, metadata={"model": "examples/charlm.ein", "source": "tools/train_charlm.py"})
    with open(os.path.join(args.out_dir, "charlm.vocab.json"), "w") as f:
        json.dump({"alphabet": alphabet}, f)
        f.write("\n")

    # expectations for the fidelity test: windows at fixed offsets (two in the training
    # part, two in the validation part), torch's argmax and top-two margin per position
    w64 = {n: a.astype(np.float64) for n, a in weights}
    offsets = [1000, 12000, cut + 100, cut + 2000]
    cases = []
    with torch.no_grad():
        for off in offsets:
            tok = data[off:off + S]
            logits = model(tok[None])[0].numpy().astype(np.float64)
            top2 = np.sort(logits, -1)[:, -2:]
            ref = greedy_reference.forward(w64, tok.numpy())  # float64 numpy cross-check
            same = np.argmax(ref, -1) == np.argmax(logits, -1)
            assert np.all(same | (top2[:, 1] - top2[:, 0] < 1e-3)), "numpy and torch models differ"
            cases.append({"offset": off, "text": text[off:off + S], "tokens": tok.tolist(),
                          "next": np.argmax(logits, -1).tolist(),
                          "margin": [round(float(m), 4) for m in top2[:, 1] - top2[:, 0]],
                          "max_abs_logit": round(float(np.max(np.abs(logits))), 4)})
    prompt_ids = greedy_reference.encode(list(alphabet), PROMPT)
    sample = greedy_reference.decode(list(alphabet), greedy_reference.greedy_numpy(w64, prompt_ids, SAMPLE_LEN))
    nparam = sum(a.size for _, a in weights)
    info = {"command": " ".join(["tools/train_charlm.py"] + sys.argv[1:]),
            "text": os.path.basename(args.text), "text_sha256": hashlib.sha256(raw).hexdigest(),
            "seed": args.seed, "threads": args.threads, "steps": args.steps, "kept_step": best[2],
            "batch": args.batch, "lr": args.lr, "torch": torch.__version__,
            "train_loss": round(train_loss, 4), "val_loss": round(val_loss, 4),
            "parameters": int(nparam), "weights_bytes": os.path.getsize(wpath),
            "train_seconds": round(seconds, 1), "curve": curve,
            "sample_prompt": PROMPT, "sample": sample}
    with open(os.path.join(args.out_dir, "charlm.expect.json"), "w") as f:
        json.dump({"model": "examples/charlm.ein", "cases": cases, "training": info}, f, indent=1)
        f.write("\n")
    print(f"wrote {wpath} ({os.path.getsize(wpath)} bytes, {nparam} parameters), charlm.vocab.json, "
          f"charlm.expect.json")
    print(f"greedy sample from {PROMPT!r}:\n{sample}")
    if V != 76:
        print(f"alphabet size {V}: compile charlm.ein with -D V={V}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
