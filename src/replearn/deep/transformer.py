"""A small causal (decoder-only) transformer language model.

Model (Vaswani et al. 2017; CS480/680 §11, seed 003 L1125-1185; CS229 notes §14.3 autoregressive
language models, seed 000 L5188-5231). Tokens ``x_1..x_T`` are embedded, a positional encoding is
added (sinusoidal, fixed; or learned), and ``n_layers`` pre-norm blocks follow::

    h <- h + MHA(LN(h), causal mask)       # each position sees itself and the past only
    h <- h + FFN(LN(h)),  FFN(u) = max(0, u W_1 + b_1) W_2 + b_2,  W_1 in R^{d x d_ff}

then a final LayerNorm and a linear map to ``V`` logits; ``p(x_{t+1} | x_{<=t}) = softmax(logits_t)``.
The objective is CS229's ``L = sum_t -log p_t(x_{t+1})`` (eq. 14.x, seed 000 L5220-5231) averaged
over the scored positions. Pre-norm (LayerNorm inside the residual branch, as GPT-2) rather than the
text's post-norm "Add & Norm" (seed 003 L1171): it trains without a warm-up at these sizes.
Dropout is left out (tiny models, tiny tasks).

:class:`TransformerLM` is the estimator: ``fit(X)`` on integer sequences ``X`` of shape ``(n, T)``
trains next-token prediction on every position (``target_mask`` selects which tokens are scored as
targets, e.g. only the answer half of a copy task). It is not a classifier or regressor of the
``base`` protocol: ``predict(X)`` returns the most likely *next* token at every position (shape
``(n, T)``), ``predict_log_proba(X)`` the log-probabilities ``(n, T, V)``, ``score(X)`` the mean
log-likelihood per scored token, ``bits_per_token(X)`` the cross-entropy in bits, and
``generate(prompt, n_new)`` decodes greedily or by sampling.

The encoder-decoder transformer of the text (seed 003 L1125-1185; catalogue B1 §11: "masked (causal) attention;
cross-attention (K = V = encoder, Q = decoder)", "autoregressive greedy decoding") is
:class:`EncoderDecoderTransformer` (model) and :class:`Seq2SeqTransformer` (estimator): the encoder's blocks
attend without a mask over the whole input; each decoder block has masked self-attention over the outputs
produced so far, cross-attention (:class:`~.attention.MultiHeadCrossAttention`) to the encoder's output, and the
feed-forward net, each a pre-norm residual branch::

    e <- e + MHA(LN(e))                            (encoder, n_layers times; then LN)
    h <- h + MHA(LN(h), causal mask)               (decoder)
    h <- h + CrossMHA(LN(h), memory = encoder output)
    h <- h + FFN(LN(h))

Training is teacher-forced: the decoder reads ``[BOS, y_1 .. y_{T-1}]`` and is scored on ``y_1 .. y_T`` with the
loss ``-<Y, log Y_hat>`` (seed 003 L1181) averaged over tokens; ``predict`` decodes greedily, one token at a
time, feeding each prediction back (the text's decoding until [END]; here for the target length of ``fit``
or ``max_length`` tokens).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._constraints import Interval, Options
from ..autodiff import Tensor, ops
from ..base import BaseEstimator
from ..validation import check_is_fitted, check_random_state, check_scalar
from .attention import MultiHeadAttention, MultiHeadCrossAttention, causal_mask, sinusoidal_positional_encoding
from .layers import Embedding, LayerNorm, Linear, Module
from .losses import cross_entropy
from .training import train_epochs

__all__ = [
    "TransformerBlock",
    "CausalTransformer",
    "TransformerLM",
    "DecoderBlock",
    "EncoderDecoderTransformer",
    "Seq2SeqTransformer",
]


class TransformerBlock(Module):
    """Pre-norm block: causal multi-head self-attention and a ReLU feed-forward net, each residual."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, rng: np.random.Generator):
        self.ln1 = LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, n_heads, rng)
        self.ln2 = LayerNorm(d_model)
        self.ff1 = Linear(d_model, d_ff, rng, init="he")
        self.ff2 = Linear(d_ff, d_model, rng)

    def forward(self, h, mask=None):
        h = h + self.attn(self.ln1(h), mask)
        return h + self.ff2(ops.relu(self.ff1(self.ln2(h))))


class CausalTransformer(Module):
    """Token ids ``(B, T)`` -> next-token logits ``(B, T, V)``."""

    def __init__(
        self,
        vocab_size: int,
        context_length: int,
        d_model: int,
        n_heads: int,
        n_layers: int,
        d_ff: int,
        positional: str,
        rng: np.random.Generator,
    ):
        self.context_length = int(context_length)
        self.tok = Embedding(vocab_size, d_model, rng, scale=1.0)
        if positional == "learned":
            self.pos = Tensor(rng.normal(scale=0.1, size=(context_length, d_model)), requires_grad=True)
        else:
            self.pos = Tensor(sinusoidal_positional_encoding(context_length, d_model))
        self.blocks = [TransformerBlock(d_model, n_heads, d_ff, rng) for _ in range(n_layers)]
        self.ln_f = LayerNorm(d_model)
        self.head = Linear(d_model, vocab_size, rng)

    def forward(self, ids):
        ids = np.asarray(ids, dtype=np.intp)
        B, T = ids.shape
        if T > self.context_length:
            raise ValueError(f"sequences of length {T} exceed the context length {self.context_length}")
        h = self.tok(ids) + self.pos[:T]
        mask = causal_mask(T)
        for block in self.blocks:
            h = block(h, mask)
        return self.head(self.ln_f(h))


class TransformerLM(BaseEstimator):
    """Causal transformer trained by next-token cross-entropy with Adam.

    Parameters
    ----------
    vocab_size : int or None, default None
        Number of token ids; ``None`` takes ``max(X) + 1`` in ``fit``.
    d_model : int, default 32
        Width of the residual stream (divisible by ``n_heads``).
    n_heads : int, default 2
    n_layers : int, default 1
    d_ff : int or None, default None
        Width of the feed-forward layer; ``None`` is ``4 d_model`` (seed 003 L1175).
    positional : {"sinusoidal", "learned"}, default "sinusoidal"
    context_length : int or None, default None
        Longest input; ``None`` is the length of the training sequences minus one.
    learning_rate : float, default 3e-3
        Adam step size.
    batch_size : int, default 32
    max_iter : int, default 20
        Epochs.
    grad_clip : float or None, default 1.0
        Bound on the joint gradient norm of each step.
    weight_decay : float, default 0.0
    random_state : int, Generator or None

    Attributes
    ----------
    model_ : CausalTransformer
    vocab_size_ : int
    loss_history_ : list of float
        Mean training cross-entropy (nats per scored token) of each epoch.
    n_iter_ : int
    """

    _constraints = {
        "vocab_size": (None, Interval(int, 2, None)),
        "d_model": Interval(int, 1, None),
        "n_heads": Interval(int, 1, None),
        "n_layers": Interval(int, 1, None),
        "d_ff": (None, Interval(int, 1, None)),
        "positional": Options({"sinusoidal", "learned"}),
        "context_length": (None, Interval(int, 1, None)),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
        "grad_clip": (None, Interval(float, 0.0, None, closed="neither")),
        "weight_decay": Interval(float, 0.0, None),
    }

    def __init__(
        self,
        vocab_size=None,
        d_model=32,
        n_heads=2,
        n_layers=1,
        d_ff=None,
        positional="sinusoidal",
        context_length=None,
        learning_rate=3e-3,
        batch_size=32,
        max_iter=20,
        grad_clip=1.0,
        weight_decay=0.0,
        random_state=None,
    ):
        self.vocab_size = vocab_size
        self.d_model = d_model
        self.n_heads = n_heads
        self.n_layers = n_layers
        self.d_ff = d_ff
        self.positional = positional
        self.context_length = context_length
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.grad_clip = grad_clip
        self.weight_decay = weight_decay
        self.random_state = random_state

    def _check_params(self) -> None:
        """The declared ``_constraints``, then what they cannot say: ``d_model`` divisible by ``n_heads``."""
        self._validate_params()
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} must be divisible by n_heads={self.n_heads}")

    def _check_ids(self, X, name="X", vocab=None) -> np.ndarray:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(
                f"{name} must be a non-empty 2-D array of token ids (n_sequences, length), got shape {X.shape}"
            )
        if X.dtype.kind not in "iu":
            if X.dtype.kind == "f" and np.all(np.isfinite(X)) and np.all(X == np.round(X)):
                X = X.astype(np.int64)
            else:
                raise ValueError(f"{name} must hold integer token ids, got dtype {X.dtype}")
        if X.min() < 0 or (vocab is not None and X.max() >= vocab):
            raise ValueError(f"{name} has token ids outside [0, {vocab}); found {X.min()}..{X.max()}")
        return X.astype(np.intp)

    def fit(self, X, y=None, target_mask=None):
        """Train next-token prediction on the rows of ``X`` (token ids, shape ``(n, T)`` with ``T >= 2``).

        Position ``t`` of a row is scored as the target of position ``t - 1``; ``target_mask`` (same
        shape, boolean) restricts the scored targets. ``y`` is ignored.
        """
        self._check_params()
        X = self._check_ids(X, vocab=self.vocab_size)
        if X.shape[1] < 2:
            raise ValueError("sequences need at least 2 tokens (an input and a next-token target)")
        mask = None
        if target_mask is not None:
            mask = np.asarray(target_mask, dtype=bool)
            if mask.shape != X.shape:
                raise ValueError(f"target_mask has shape {mask.shape}, expected {X.shape}")
            mask = mask[:, 1:]
        V = int(self.vocab_size) if self.vocab_size is not None else int(X.max()) + 1
        ctx = int(self.context_length) if self.context_length is not None else X.shape[1] - 1
        if X.shape[1] - 1 > ctx:
            raise ValueError(f"training sequences have {X.shape[1] - 1} inputs, more than context_length={ctx}")
        rng = check_random_state(self.random_state)
        d_ff = int(self.d_ff) if self.d_ff is not None else 4 * int(self.d_model)
        model = CausalTransformer(
            V, ctx, int(self.d_model), int(self.n_heads), int(self.n_layers), d_ff, self.positional, rng
        )
        inputs, targets = X[:, :-1], X[:, 1:]

        def batch_loss(idx):
            m = None if mask is None else mask[idx]
            if m is not None and not m.any():
                return cross_entropy(model(inputs[idx]), targets[idx]) * 0.0
            return cross_entropy(model(inputs[idx]), targets[idx], m)

        self.loss_history_ = train_epochs(
            model.parameters(),
            batch_loss,
            X.shape[0],
            batch_size=self.batch_size,
            max_iter=self.max_iter,
            learning_rate=self.learning_rate,
            rng=rng,
            grad_clip=self.grad_clip,
            weight_decay=self.weight_decay,
            name="TransformerLM",
        )
        self.model_ = model
        self.vocab_size_ = V
        self.context_length_ = ctx
        self.n_iter_ = len(self.loss_history_)
        return self

    # -- prediction -------------------------------------------------------------------------------
    def predict_log_proba(self, X) -> np.ndarray:
        """``log p(next token | prefix)`` at every position: shape ``(n, T, vocab_size_)``."""
        check_is_fitted(self, "model_")
        X = self._check_ids(X, vocab=self.vocab_size_)
        logits = self.model_(X)
        return ops.log_softmax(logits, axis=-1).data

    def predict(self, X) -> np.ndarray:
        """The most likely next token after every prefix ``X[:, :t+1]`` (shape ``(n, T)``)."""
        return np.argmax(self.predict_log_proba(X), axis=-1)

    def _target_logprob(self, X, target_mask=None) -> tuple[np.ndarray, np.ndarray]:
        X = self._check_ids(X, vocab=getattr(self, "vocab_size_", None))
        logp = self.predict_log_proba(X[:, :-1])
        picked = np.take_along_axis(logp, X[:, 1:, None], axis=-1)[..., 0]
        mask = np.ones_like(picked, dtype=bool) if target_mask is None else np.asarray(target_mask, bool)[:, 1:]
        return picked, mask

    def score(self, X, y=None, target_mask=None) -> float:
        """Mean log-likelihood (nats) of the scored next tokens of ``X``; higher is better."""
        picked, mask = self._target_logprob(X, target_mask)
        return float(picked[mask].mean())

    def bits_per_token(self, X, target_mask=None) -> float:
        """Cross-entropy in bits per scored token (bits per character for a character model)."""
        return -self.score(X, target_mask=target_mask) / np.log(2.0)

    def generate(self, prompt, n_new: int, greedy: bool = True, random_state=None) -> np.ndarray:
        """Extend each row of ``prompt`` (shape ``(n, T0)``) by ``n_new`` tokens, one at a time.

        The context is cut to the last ``context_length_`` tokens; sampling draws from the model's
        next-token distribution with ``random_state``.
        """
        check_is_fitted(self, "model_")
        seq = self._check_ids(np.atleast_2d(prompt), name="prompt", vocab=self.vocab_size_)
        rng = check_random_state(random_state)
        for _ in range(int(n_new)):
            logp = self.predict_log_proba(seq[:, -self.context_length_ :])[:, -1]
            if greedy:
                nxt = np.argmax(logp, axis=-1)
            else:
                p = np.exp(logp - logp.max(axis=1, keepdims=True))
                p /= p.sum(axis=1, keepdims=True)
                nxt = np.array([rng.choice(p.shape[1], p=row) for row in p])
            seq = np.concatenate([seq, nxt[:, None]], axis=1)
        return seq


# -- encoder-decoder -------------------------------------------------------------------------------------
class DecoderBlock(Module):
    """Pre-norm decoder block: masked self-attention, cross-attention to the encoder output, ReLU FFN."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, rng: np.random.Generator):
        self.ln1 = LayerNorm(d_model)
        self.self_attn = MultiHeadAttention(d_model, n_heads, rng)
        self.ln2 = LayerNorm(d_model)
        self.cross_attn = MultiHeadCrossAttention(d_model, n_heads, rng)
        self.ln3 = LayerNorm(d_model)
        self.ff1 = Linear(d_model, d_ff, rng, init="he")
        self.ff2 = Linear(d_ff, d_model, rng)

    def forward(self, h, memory, mask=None):
        h = h + self.self_attn(self.ln1(h), mask)
        h = h + self.cross_attn(self.ln2(h), memory)
        return h + self.ff2(ops.relu(self.ff1(self.ln3(h))))


class EncoderDecoderTransformer(Module):
    """Source ids ``(B, T_in)`` and decoder input ids ``(B, T_out)`` -> output logits ``(B, T_out, V_out)``.

    The decoder's input vocabulary has one more id than its output, ``V_out``: the start token BOS.
    """

    def __init__(
        self,
        source_vocab: int,
        target_vocab: int,
        max_length: int,
        d_model: int,
        n_heads: int,
        n_layers: int,
        d_ff: int,
        positional: str,
        rng: np.random.Generator,
    ):
        self.max_length = int(max_length)
        self.bos = int(target_vocab)
        self.src_tok = Embedding(source_vocab, d_model, rng, scale=1.0)
        self.tgt_tok = Embedding(target_vocab + 1, d_model, rng, scale=1.0)
        if positional == "learned":
            self.src_pos = Tensor(rng.normal(scale=0.1, size=(max_length, d_model)), requires_grad=True)
            self.tgt_pos = Tensor(rng.normal(scale=0.1, size=(max_length, d_model)), requires_grad=True)
        else:
            table = sinusoidal_positional_encoding(max_length, d_model)
            self.src_pos, self.tgt_pos = Tensor(table), Tensor(table.copy())
        self.encoder = [TransformerBlock(d_model, n_heads, d_ff, rng) for _ in range(n_layers)]
        self.ln_enc = LayerNorm(d_model)
        self.decoder = [DecoderBlock(d_model, n_heads, d_ff, rng) for _ in range(n_layers)]
        self.ln_dec = LayerNorm(d_model)
        self.head = Linear(d_model, target_vocab, rng)

    def _check_length(self, T: int, what: str) -> None:
        if T > self.max_length:
            raise ValueError(f"{what} of length {T} exceed the longest sequence of the model ({self.max_length})")

    def encode(self, src) -> Tensor:
        """The encoder's output ``(B, T_in, d)``: bidirectional self-attention over the whole input."""
        src = np.asarray(src, dtype=np.intp)
        self._check_length(src.shape[1], "inputs")
        e = self.src_tok(src) + self.src_pos[: src.shape[1]]
        for block in self.encoder:
            e = block(e)  # no mask: every input position sees every other
        return self.ln_enc(e)

    def decode(self, memory, tgt_in) -> Tensor:
        """Output logits for the decoder inputs ``tgt_in`` (B, T_out) given the encoder output ``memory``."""
        tgt_in = np.asarray(tgt_in, dtype=np.intp)
        T = tgt_in.shape[1]
        self._check_length(T, "outputs")
        h = self.tgt_tok(tgt_in) + self.tgt_pos[:T]
        mask = causal_mask(T)
        for block in self.decoder:
            h = block(h, memory, mask)
        return self.head(self.ln_dec(h))

    def forward(self, src, tgt_in):
        return self.decode(self.encode(src), tgt_in)


class Seq2SeqTransformer(BaseEstimator):
    """Encoder-decoder transformer mapping token sequences to token sequences, trained by cross-entropy with Adam.

    ``fit(X, Y)``: ``X`` (n, T_in) input ids, ``Y`` (n, T_out) output ids (teacher forcing, see the module).
    ``predict(X, max_length=None)`` greedy decoding ``(n, T_out)``; ``predict_log_proba(X, Y)`` the
    teacher-forced log-probabilities ``(n, T_out, V_out)``; ``score(X, Y)`` the mean log-likelihood per output
    token; ``cross_attention(X, Y)`` the last decoder block's attention over the inputs ``(n, h, T_out, T_in)``.

    Parameters
    ----------
    source_vocab_size, target_vocab_size : int >= 2 or None (``max + 1`` of the training ids)
    d_model : int, default 32 (divisible by ``n_heads``); n_heads : int, default 2; n_layers : int, default 1
    d_ff : int or None (``4 d_model``); positional : {"sinusoidal", "learned"}
    learning_rate : float, default 3e-3; batch_size : int, default 32; max_iter : int, default 20 (epochs)
    grad_clip : float or None, default 1.0; weight_decay : float, default 0.0; random_state

    Attributes
    ----------
    model_, source_vocab_size_, target_vocab_size_, output_length_ (T_out of fit), loss_history_, n_iter_
    """

    _constraints = {
        "source_vocab_size": (None, Interval(int, 2, None)),
        "target_vocab_size": (None, Interval(int, 2, None)),
        "d_model": Interval(int, 1, None),
        "n_heads": Interval(int, 1, None),
        "n_layers": Interval(int, 1, None),
        "d_ff": (None, Interval(int, 1, None)),
        "positional": Options({"sinusoidal", "learned"}),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
        "grad_clip": (None, Interval(float, 0.0, None, closed="neither")),
        "weight_decay": Interval(float, 0.0, None),
    }

    def __init__(
        self,
        source_vocab_size=None,
        target_vocab_size=None,
        d_model=32,
        n_heads=2,
        n_layers=1,
        d_ff=None,
        positional="sinusoidal",
        learning_rate=3e-3,
        batch_size=32,
        max_iter=20,
        grad_clip=1.0,
        weight_decay=0.0,
        random_state=None,
    ):
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.d_model = d_model
        self.n_heads = n_heads
        self.n_layers = n_layers
        self.d_ff = d_ff
        self.positional = positional
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.grad_clip = grad_clip
        self.weight_decay = weight_decay
        self.random_state = random_state

    _ids = TransformerLM._check_ids

    def _check_pair(self, X, Y, vx=None, vy=None):
        X = self._ids(X, "X", vx)
        Y = self._ids(Y, "Y", vy)
        if X.shape[0] != Y.shape[0]:
            raise ValueError(f"X and Y have different numbers of sequences: {X.shape[0]} and {Y.shape[0]}")
        return X, Y

    def fit(self, X, Y):
        """Train on input sequences ``X`` (n, T_in) and output sequences ``Y`` (n, T_out); returns ``self``."""
        self._validate_params()
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} must be divisible by n_heads={self.n_heads}")
        X, Y = self._check_pair(X, Y, self.source_vocab_size, self.target_vocab_size)
        Vs = int(self.source_vocab_size) if self.source_vocab_size is not None else int(X.max()) + 1
        Vt = int(self.target_vocab_size) if self.target_vocab_size is not None else int(Y.max()) + 1
        rng = check_random_state(self.random_state)
        d_ff = int(self.d_ff) if self.d_ff is not None else 4 * int(self.d_model)
        model = EncoderDecoderTransformer(
            Vs,
            Vt,
            max(X.shape[1], Y.shape[1]),
            int(self.d_model),
            int(self.n_heads),
            int(self.n_layers),
            d_ff,
            self.positional,
            rng,
        )
        tgt_in = np.concatenate([np.full((Y.shape[0], 1), Vt), Y[:, :-1]], axis=1)  # [BOS, y_1 .. y_{T-1}]

        def batch_loss(idx):
            return cross_entropy(model(X[idx], tgt_in[idx]), Y[idx])

        self.loss_history_ = train_epochs(
            model.parameters(),
            batch_loss,
            X.shape[0],
            batch_size=self.batch_size,
            max_iter=self.max_iter,
            learning_rate=self.learning_rate,
            rng=rng,
            grad_clip=self.grad_clip,
            weight_decay=self.weight_decay,
            name="Seq2SeqTransformer",
        )
        self.model_ = model
        self.source_vocab_size_, self.target_vocab_size_ = Vs, Vt
        self.output_length_ = Y.shape[1]
        self.n_iter_ = len(self.loss_history_)
        return self

    def predict_log_proba(self, X, Y) -> np.ndarray:
        """Teacher-forced ``log p(y_t | y_{<t}, x)`` for every output position: ``(n, T_out, V_out)``."""
        check_is_fitted(self, "model_")
        X, Y = self._check_pair(X, Y, self.source_vocab_size_, self.target_vocab_size_)
        tgt_in = np.concatenate([np.full((Y.shape[0], 1), self.target_vocab_size_), Y[:, :-1]], axis=1)
        return ops.log_softmax(self.model_(X, tgt_in), axis=-1).data

    def score(self, X, Y) -> float:
        """Mean log-likelihood (nats) per output token; higher is better."""
        logp = self.predict_log_proba(X, Y)
        Y = np.asarray(Y, dtype=np.intp)
        return float(np.take_along_axis(logp, Y[..., None], axis=-1).mean())

    def predict(self, X, max_length=None) -> np.ndarray:
        """Greedy decoding: ``max_length`` (default ``output_length_``) tokens, each fed back as the next input."""
        check_is_fitted(self, "model_")
        X = self._ids(X, "X", self.source_vocab_size_)
        T = self.output_length_ if max_length is None else max_length
        check_scalar(T, "max_length", numbers.Integral, low=1)
        memory = self.model_.encode(X)  # computed once
        seq = np.full((X.shape[0], 1), self.target_vocab_size_, dtype=np.intp)
        for _ in range(int(T)):
            logits = self.model_.decode(memory, seq).data[:, -1]
            seq = np.concatenate([seq, np.argmax(logits, axis=-1)[:, None]], axis=1)
        return seq[:, 1:]

    def cross_attention(self, X, Y) -> np.ndarray:
        """The last decoder block's cross-attention weights ``(n, h, T_out, T_in)`` under teacher forcing."""
        self.predict_log_proba(X, Y)
        return self.model_.decoder[-1].cross_attn.last_weights
