"""The causal transformer's training step: replearn.autodiff against hand-written numpy.

What is timed: one forward pass and one backward pass (loss and every parameter gradient) of
:class:`replearn.deep.transformer.CausalTransformer` on a batch of token ids -- the work of one
training step, without the optimizer update. The reference is the same computation written directly
in numpy with a hand-derived backward pass (``reference_step`` below: embeddings and positions,
pre-norm blocks of causal multi-head attention and a ReLU feed-forward net, final LayerNorm, linear
head, mean cross-entropy). Before timing, each case checks that both give the same loss and the same
gradients (max abs difference below 1e-9), so the two really compute the same thing.

The ratio ``autodiff / numpy`` is the price of the graph: node objects, closures, a topological
sort, gradient accumulation in dictionaries, and ops that the hand-written version fuses (e.g. the
LayerNorm and softmax backward in one expression each).

BLAS runs single-threaded for both (``threadpoolctl``), as in ``bench_mlp.py``: on a shared 2-core
machine multi-threaded OpenBLAS timings of these small products swing by 10x or more. Results go to
``transformer.json`` in :data:`benchmarks.common.RESULTS_DIR` (``benchmarks/results/local/`` unless
``REPLEARN_BENCH_OUT`` says otherwise). Like ``rl.json`` the file has no ``"benchmark"`` key (its key
is ``"suite"``): there is no scikit-learn ratio, so ``benchmarks.summary`` skips it, and the table is in
docs/_drafts/deep_performance.md. Run with ``python -m benchmarks.bench_transformer``.
"""

from __future__ import annotations

import json
import os

import numpy as np
from threadpoolctl import threadpool_limits

from replearn.deep.attention import causal_mask
from replearn.deep.losses import cross_entropy
from replearn.deep.transformer import CausalTransformer

from .common import RESULTS_DIR, machine, paired_median_times

CASES = [
    # (name, batch, length, d_model, heads, layers, vocab)
    ("small", 16, 32, 32, 2, 1, 67),
    ("char-lm", 32, 32, 32, 2, 1, 67),
    ("two-layer", 32, 64, 64, 4, 2, 67),
]
EPS = 1e-5
_MASKED = -1e9  # the same masked score as replearn.deep.attention


def _ln_forward(x, gamma, beta):
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    rstd = 1.0 / np.sqrt((xc * xc).mean(-1, keepdims=True) + EPS)
    xhat = xc * rstd
    return xhat * gamma + beta, (xhat, rstd)


def _ln_backward(dy, cache, gamma):
    xhat, rstd = cache
    dxhat = dy * gamma
    dx = rstd * (dxhat - dxhat.mean(-1, keepdims=True) - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    axes = tuple(range(dy.ndim - 1))
    return dx, (dy * xhat).sum(axes), dy.sum(axes)


def _params(model: CausalTransformer) -> dict:
    p = {
        "E": model.tok.weight.data,
        "P": model.pos.data,
        "lnf_g": model.ln_f.gamma.data,
        "lnf_b": model.ln_f.beta.data,
        "Wh": model.head.weight.data,
        "bh": model.head.bias.data,
        "blocks": [],
    }
    for b in model.blocks:
        p["blocks"].append(
            {
                "g1": b.ln1.gamma.data,
                "b1": b.ln1.beta.data,
                "Wqkv": b.attn.qkv.weight.data,
                "bqkv": b.attn.qkv.bias.data,
                "Wo": b.attn.out.weight.data,
                "bo": b.attn.out.bias.data,
                "g2": b.ln2.gamma.data,
                "b2": b.ln2.beta.data,
                "W1": b.ff1.weight.data,
                "c1": b.ff1.bias.data,
                "W2": b.ff2.weight.data,
                "c2": b.ff2.bias.data,
            }
        )
    return p


def reference_step(p: dict, ids: np.ndarray, targets: np.ndarray, n_heads: int):
    """Loss and gradients of the model, forward and backward written out in numpy."""
    B, T = ids.shape
    d = p["E"].shape[1]
    dh = d // n_heads
    mask = causal_mask(T)
    h = p["E"][ids] + p["P"][:T]
    caches = []
    for q in p["blocks"]:
        a, ln1 = _ln_forward(h, q["g1"], q["b1"])
        qkv = (a @ q["Wqkv"] + q["bqkv"]).reshape(B, T, 3, n_heads, dh).transpose(2, 0, 3, 1, 4)
        Q, K, Vv = qkv[0], qkv[1], qkv[2]
        S = np.where(mask, Q @ K.swapaxes(-1, -2) / np.sqrt(dh), _MASKED)
        A = np.exp(S - S.max(-1, keepdims=True))
        A /= A.sum(-1, keepdims=True)
        heads_out = (A @ Vv).transpose(0, 2, 1, 3).reshape(B, T, d)
        h1 = h + heads_out @ q["Wo"] + q["bo"]
        c, ln2 = _ln_forward(h1, q["g2"], q["b2"])
        f = c @ q["W1"] + q["c1"]
        r = np.maximum(f, 0.0)
        h = h1 + r @ q["W2"] + q["c2"]
        caches.append((a, ln1, Q, K, Vv, A, heads_out, c, ln2, f, r))
    hf, lnf = _ln_forward(h, p["lnf_g"], p["lnf_b"])
    logits = hf @ p["Wh"] + p["bh"]
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    N = B * T
    loss = -np.take_along_axis(logp, targets[..., None], -1).mean()
    # backward
    g = {}
    dlogits = np.exp(logp)
    np.put_along_axis(dlogits, targets[..., None], np.take_along_axis(dlogits, targets[..., None], -1) - 1.0, -1)
    dlogits /= N
    g["Wh"] = hf.reshape(N, d).T @ dlogits.reshape(N, -1)
    g["bh"] = dlogits.sum((0, 1))
    dh_, g["lnf_g"], g["lnf_b"] = _ln_backward(dlogits @ p["Wh"].T, lnf, p["lnf_g"])
    g["blocks"] = [None] * len(p["blocks"])
    for i in range(len(p["blocks"]) - 1, -1, -1):
        q = p["blocks"][i]
        a, ln1, Q, K, Vv, A, heads_out, c, ln2, f, r = caches[i]
        gb = {}
        gb["W2"] = r.reshape(N, -1).T @ dh_.reshape(N, d)
        gb["c2"] = dh_.sum((0, 1))
        df = (dh_ @ q["W2"].T) * (f > 0)
        gb["W1"] = c.reshape(N, d).T @ df.reshape(N, -1)
        gb["c1"] = df.sum((0, 1))
        dc, gb["g2"], gb["b2"] = _ln_backward(df @ q["W1"].T, ln2, q["g2"])
        dh1 = dh_ + dc
        gb["Wo"] = heads_out.reshape(N, d).T @ dh1.reshape(N, d)
        gb["bo"] = dh1.sum((0, 1))
        dO = (dh1 @ q["Wo"].T).reshape(B, T, n_heads, dh).transpose(0, 2, 1, 3)
        dA = dO @ Vv.swapaxes(-1, -2)
        dV = A.swapaxes(-1, -2) @ dO
        dS = A * (dA - (dA * A).sum(-1, keepdims=True)) / np.sqrt(dh)
        dQ = dS @ K
        dK = dS.swapaxes(-1, -2) @ Q
        dqkv = np.stack([dQ, dK, dV]).transpose(1, 3, 0, 2, 4).reshape(B, T, 3 * d)
        gb["Wqkv"] = a.reshape(N, d).T @ dqkv.reshape(N, -1)
        gb["bqkv"] = dqkv.sum((0, 1))
        da, gb["g1"], gb["b1"] = _ln_backward(dqkv @ q["Wqkv"].T, ln1, q["g1"])
        dh_ = dh1 + da
        g["blocks"][i] = gb
    g["E"] = np.zeros_like(p["E"])
    np.add.at(g["E"], ids, dh_)
    return loss, g


def autodiff_step(model: CausalTransformer, ids, targets) -> float:
    model.zero_grad()
    loss = cross_entropy(model(ids), targets)
    loss.backward()
    return loss.item()


def _check_same(model, p, ids, targets, n_heads) -> float:
    loss_a = autodiff_step(model, ids, targets)
    loss_r, g = reference_step(p, ids, targets, n_heads)
    worst = abs(loss_a - loss_r)
    pairs = [
        (model.tok.weight, g["E"]),
        (model.head.weight, g["Wh"]),
        (model.head.bias, g["bh"]),
        (model.ln_f.gamma, g["lnf_g"]),
        (model.ln_f.beta, g["lnf_b"]),
    ]
    names = {
        "g1": ("ln1", "gamma"),
        "b1": ("ln1", "beta"),
        "Wqkv": ("attn.qkv", "weight"),
        "bqkv": ("attn.qkv", "bias"),
        "Wo": ("attn.out", "weight"),
        "bo": ("attn.out", "bias"),
        "g2": ("ln2", "gamma"),
        "b2": ("ln2", "beta"),
        "W1": ("ff1", "weight"),
        "c1": ("ff1", "bias"),
        "W2": ("ff2", "weight"),
        "c2": ("ff2", "bias"),
    }
    for block, gb in zip(model.blocks, g["blocks"]):
        for key, (path, attr) in names.items():
            obj = block
            for part in path.split("."):
                obj = getattr(obj, part)
            pairs.append((getattr(obj, attr), gb[key]))
    for tensor, ref in pairs:
        worst = max(worst, float(np.max(np.abs(tensor.grad - ref))))
    if worst > 1e-9:
        raise AssertionError(f"autodiff and the numpy reference disagree by {worst:.3g}")
    return worst


def main() -> list[dict]:
    threads = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))
    with threadpool_limits(limits=threads, user_api="blas"):
        return _main(threads)


def _main(threads: int) -> list[dict]:
    rows = []
    repeats = 15
    for name, B, T, d, H, L, V in CASES:
        rng = np.random.default_rng(0)
        model = CausalTransformer(V, T, d, H, L, 4 * d, "sinusoidal", rng)
        ids = rng.integers(0, V, size=(B, T))
        targets = rng.integers(0, V, size=(B, T))
        p = _params(model)
        diff = _check_same(model, p, ids, targets, H)
        t_auto, t_ref = paired_median_times(
            lambda m=model, i=ids, t=targets: autodiff_step(m, i, t),
            lambda p=p, i=ids, t=targets, h=H: reference_step(p, i, t, h),
            repeats,
        )
        rows.append(
            {
                "case": name,
                "shape": f"B={B} T={T} d={d} h={H} layers={L} V={V}",
                "n_parameters": int(sum(t.size for t in model.parameters())),
                "autodiff_ms": round(1e3 * t_auto, 3),
                "numpy_ms": round(1e3 * t_ref, 3),
                "ratio": round(t_auto / t_ref, 3),
                "max_grad_difference": diff,
            }
        )
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    payload = {
        "suite": "transformer",
        "what": "forward + backward of one training step (no optimizer update)",
        "repeats": repeats,
        "blas_threads": threads,
        "machine": machine(),
        "results": rows,
    }
    tmp = RESULTS_DIR / "transformer.json.tmp"
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    tmp.replace(RESULTS_DIR / "transformer.json")
    lines = ["| case | shape | parameters | autodiff (ms) | numpy (ms) | ratio |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['shape']} | {r['n_parameters']} | {r['autodiff_ms']:.2f} | "
            f"{r['numpy_ms']:.2f} | **{r['ratio']:.2f}** |"
        )
    print("\n".join(lines))
    return rows


if __name__ == "__main__":
    main()
