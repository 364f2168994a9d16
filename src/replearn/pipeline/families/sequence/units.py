"""The units of the ``sequence`` experiment family (its ``problems`` module builds the problems):
``UNITS`` and the run of each. Kept apart from the problems so that building them (the ``prepare`` stage) does not
depend on the models the units fit (:mod:`replearn.pipeline.deps`)."""

from __future__ import annotations

import time

import numpy as np

from ...._constraints import Interval, IntSequence, Options
from ....deep.ngram import NGramLM
from ....deep.transformer import TransformerLM
from ....exceptions import ConfigError
from ...families import Outcome, Unit, model_constraints, unit_params
from ...families.sequence.problems import SequenceProblem
from ...seeding import derive_seed

SAMPLE_CHARS = 200


def _params(unit: str, hp: dict | None) -> dict:
    """``hp`` over the defaults of this family's unit ``unit``, checked
    (:func:`~replearn.pipeline.families.unit_params`)."""
    return unit_params(UNITS, unit, hp)


# -- scoring -------------------------------------------------------------------------------------------------
def _scores(problem: SequenceProblem, logp_rows: list[np.ndarray]) -> dict[str, float | None]:
    """Metrics from ``log p(x_t | x_<t)`` at the scored positions of each test segment.

    ``logp_rows[i]`` has shape ``(n_scored_i, V)`` (the next-token log-distribution at each scored position of
    segment ``i``, in order).
    """
    total_bits, right, count, whole = 0.0, 0, 0, 0
    for seg, mask, logp in zip(problem.test, problem.test_mask, logp_rows):
        targets = seg[mask]
        total_bits -= float(logp[np.arange(targets.size), targets].sum()) / np.log(2.0)
        hit = np.argmax(logp, axis=1) == targets
        right += int(hit.sum())
        count += targets.size
        whole += int(hit.all())
    return {
        "bits_per_char": total_bits / count,
        "accuracy": right / count,
        "exact_match": whole / len(problem.test) if problem.task in ("copy", "reverse") else None,
    }


def _outcome(problem, logp_rows, *, n_iter, curve, curve_label, extra, t0) -> Outcome:
    scores = {k: (None if v is None else float(v)) for k, v in _scores(problem, logp_rows).items()}
    if scores["bits_per_char"] is not None and not np.isfinite(scores["bits_per_char"]):
        scores["bits_per_char"] = None
    return Outcome(
        scores=scores,
        n_iter=n_iter,
        converged=True,
        curve=None if curve is None else [float(v) for v in curve],
        curve_label=curve_label,
        extra=extra,
        timing={"run_seconds": time.perf_counter() - t0},
    )


def _sample_text(problem: SequenceProblem, next_logp, seed: int) -> dict:
    """200 characters sampled from ``next_logp(history) -> log p(next)`` after a held-out prompt (text only)."""
    if problem.chars is None:
        return {}
    rng = np.random.default_rng(derive_seed(seed, "generate"))
    prompt = [int(t) for t in problem.test[0][:32]]
    seq = list(prompt)
    for _ in range(SAMPLE_CHARS):
        logp = next_logp(np.asarray(seq, dtype=np.intp))
        p = np.exp(logp - logp.max())
        seq.append(int(rng.choice(p.size, p=p / p.sum())))
    decode = lambda ids: "".join(problem.chars[i] for i in ids)  # noqa: E731
    return {"prompt": decode(prompt), "sample": decode(seq[len(prompt) :])}


# -- units ---------------------------------------------------------------------------------------------------
def _windows(segments, masks, length: int, stride: int, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows of at most ``length`` tokens covering every scored position once, with their target masks.

    Segments of one common length ``<= length`` (copy rows) are stacked as they are; longer ones are cut by
    :func:`replearn.deep.strided_windows` (``stride`` new targets per later window) and the window masks
    intersected with the segment's own.
    """
    from ....deep import strided_windows

    lengths = {s.size for s in segments}
    if len(lengths) == 1 and lengths.pop() <= length:
        return np.stack(segments), np.stack(masks)
    rows, row_masks = [], []
    for seg, mask in zip(segments, masks):
        if seg.size < length:
            raise ConfigError(
                f"{unit}: a text segment has {seg.size} characters, fewer than context + 1 = {length}; "
                "lower context or use more text (n_chars, heldout)"
            )
        W, M = strided_windows(seg, length, stride)
        starts = _window_starts(seg.size, length, stride)
        rows.append(W)
        row_masks.append(M & np.stack([mask[s : s + length] for s in starts]))
    return np.concatenate(rows), np.concatenate(row_masks)


def _window_starts(n: int, length: int, stride: int) -> list[int]:
    starts = list(range(0, n - length + 1, stride))
    if starts[-1] + length < n:
        starts.append(n - length)
    return starts


def _sizes(value) -> tuple[int, ...]:
    return (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)


def run_transformer(hp: dict, problem: SequenceProblem, seed: int) -> Outcome:
    p, t0 = _params("transformer_lm", hp), time.perf_counter()
    ctx = int(p["context"])
    if p["d_model"] % p["n_heads"]:
        raise ConfigError(f"transformer_lm: d_model={p['d_model']} must be divisible by n_heads={p['n_heads']}")
    W, M = _windows(problem.train, problem.train_mask, ctx + 1, ctx, "transformer_lm")
    lm = TransformerLM(
        vocab_size=problem.vocab_size,
        d_model=p["d_model"],
        n_heads=p["n_heads"],
        n_layers=p["n_layers"],
        context_length=max(ctx, W.shape[1] - 1),
        learning_rate=p["learning_rate"],
        batch_size=p["batch_size"],
        max_iter=p["max_iter"],
        random_state=derive_seed(seed, "fit"),
    )
    lm.fit(W, target_mask=M)
    logp_rows = []
    for seg, mask in zip(problem.test, problem.test_mask):
        Wt, Mt = _windows([seg], [mask], ctx + 1, max(1, ctx // 2), "transformer_lm")
        logp = lm.predict_log_proba(Wt[:, :-1])  # position j predicts token j + 1
        logp_rows.append(logp[Mt[:, 1:]])
    extra = _sample_text(problem, lambda h: lm.predict_log_proba(h[None, -lm.context_length_ :])[0, -1], seed)
    return _outcome(
        problem,
        logp_rows,
        n_iter=lm.n_iter_,
        curve=lm.loss_history_,
        curve_label="training cross-entropy (nats per token)",
        extra=extra,
        t0=t0,
    )


def _histories(seg: np.ndarray, positions: np.ndarray, w: int, pad: int) -> np.ndarray:
    """The ``w`` tokens before each position (left-padded with ``pad``): shape ``(len(positions), w)``."""
    padded = np.concatenate([np.full(w, pad, dtype=np.intp), seg])
    return np.stack([padded[t : t + w] for t in positions]) if positions.size else np.zeros((0, w), np.intp)


def run_mlp(hp: dict, problem: SequenceProblem, seed: int) -> Outcome:
    from ....autodiff import ops
    from ....deep.layers import Embedding, Sequential, mlp
    from ....deep.losses import cross_entropy
    from ....deep.training import train_epochs

    p, t0 = _params("mlp_lm", hp), time.perf_counter()
    w, V, e = int(p["context"]), problem.vocab_size, int(p["embedding_dim"])
    H = np.concatenate([_histories(s, np.flatnonzero(m), w, V) for s, m in zip(problem.train, problem.train_mask)])
    y = np.concatenate([s[m] for s, m in zip(problem.train, problem.train_mask)])
    rng = np.random.default_rng(derive_seed(seed, "fit"))
    emb = Embedding(V + 1, e, rng, scale=0.1)  # id V pads the start of a segment
    net: Sequential = mlp((w * e,) + _sizes(p["hidden_layer_sizes"]) + (V,), rng, p["activation"])

    def logits(hist):
        return net(ops.reshape(emb(hist), (hist.shape[0], w * e)))

    history = train_epochs(
        emb.parameters() + net.parameters(),
        lambda idx: cross_entropy(logits(H[idx]), y[idx]),
        H.shape[0],
        batch_size=p["batch_size"],
        max_iter=p["max_iter"],
        learning_rate=p["learning_rate"],
        rng=rng,
        name="mlp_lm",
    )

    def log_softmax(hist):
        return ops.log_softmax(logits(hist), axis=-1).data

    logp_rows = [log_softmax(_histories(s, np.flatnonzero(m), w, V)) for s, m in zip(problem.test, problem.test_mask)]
    extra = _sample_text(problem, lambda h: log_softmax(_histories(h, np.array([h.size]), w, V))[0], seed)
    return _outcome(
        problem,
        logp_rows,
        n_iter=len(history),
        curve=history,
        curve_label="training cross-entropy (nats per token)",
        extra=extra,
        t0=t0,
    )


def run_ngram(hp: dict, problem: SequenceProblem, seed: int) -> Outcome:
    p, t0 = _params("ngram_lm", hp), time.perf_counter()
    lm = NGramLM(order=p["order"], smoothing=p["smoothing"], alpha=p["alpha"], vocab_size=problem.vocab_size)
    lm.fit(np.concatenate(problem.train))
    h = int(p["order"]) - 1

    def next_logp(hist):
        return np.log(lm.predict_proba(hist[max(0, hist.size - h) :] if h else hist[:0]))

    logp_rows = [
        np.stack([next_logp(seg[:t]) for t in np.flatnonzero(mask)])
        for seg, mask in zip(problem.test, problem.test_mask)
    ]
    return _outcome(
        problem,
        logp_rows,
        n_iter=None,
        curve=None,
        curve_label="",
        extra=_sample_text(problem, next_logp, seed),
        t0=t0,
    )


_POS_INT = Interval(int, 1, None)
_RATE = Interval(float, 0.0, 1.0, closed="right")
UNITS = {
    "transformer_lm": Unit(
        "transformer_lm",
        "causal pre-norm transformer language model (sinusoidal positions)",
        run_transformer,
        constraints=model_constraints(  # the model's own table (deep/transformer.py), plus what only the unit has
            TransformerLM,
            "d_model",
            "n_heads",
            "n_layers",
            "learning_rate",
            "batch_size",
            "max_iter",
            context=Interval(int, 2, 512),  # the unit's window, passed on as context_length (at least it)
        ),
        defaults={
            "d_model": 32,
            "n_heads": 2,
            "n_layers": 1,
            "context": 16,
            "learning_rate": 0.01,
            "batch_size": 16,
            "max_iter": 8,
        },
        section="CS480/680 §11 (attention, transformer); CS229 notes §14.3 (autoregressive language models)",
    ),
    "mlp_lm": Unit(
        "mlp_lm",
        "fixed-window neural language model (embeddings of the previous tokens, one hidden layer)",
        run_mlp,
        constraints={
            "context": Interval(int, 1, 256),
            "embedding_dim": Interval(int, 1, 512),
            "hidden_layer_sizes": IntSequence(1, 4096),
            "activation": Options({"relu", "elu", "tanh"}),
            "learning_rate": _RATE,
            "batch_size": _POS_INT,
            "max_iter": Interval(int, 1, 10_000),
        },
        defaults={
            "context": 8,
            "embedding_dim": 16,
            "hidden_layer_sizes": [128],
            "activation": "relu",
            "learning_rate": 0.003,
            "batch_size": 128,
            "max_iter": 8,
        },
        section="Bengio et al. 2003; CS229 notes §7 (MLP), §14.3 (language models)",
    ),
    "ngram_lm": Unit(
        "ngram_lm",
        "smoothed n-gram model (interpolated Dirichlet or add-k)",
        run_ngram,
        constraints=model_constraints(NGramLM, "order", "smoothing", "alpha"),  # deep/ngram.py
        defaults={"order": 3, "smoothing": "interpolated", "alpha": 1.0},
        section="CS229 notes §14.3 (autoregressive factorization); Jurafsky and Martin ch. 3",
    ),
}
