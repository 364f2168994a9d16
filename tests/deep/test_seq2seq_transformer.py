"""The encoder-decoder transformer with cross-attention (CS480/680 §11): gradients by finite differences, the
decoder's causality and the encoder's bidirectionality, a reverse task learnt with the cross-attention aligned
to the mirrored input position, different input and output lengths, bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.autodiff import Tensor, check_gradients
from replearn.deep import MultiHeadCrossAttention, Seq2SeqTransformer
from replearn.deep.losses import cross_entropy
from replearn.deep.transformer import EncoderDecoderTransformer


def reverse_task(n, length=5, vocab=6, seed=0):
    X = np.random.default_rng(seed).integers(0, vocab, size=(n, length))
    return X, X[:, ::-1].copy()


def test_cross_attention_weights_and_gradients():
    rng = np.random.default_rng(0)
    attn = MultiHeadCrossAttention(4, 2, rng)
    x, memory = Tensor(rng.normal(size=(2, 3, 4))), Tensor(rng.normal(size=(2, 5, 4)))
    out = attn(x, memory)
    assert out.shape == (2, 3, 4) and attn.last_weights.shape == (2, 2, 3, 5)
    np.testing.assert_allclose(attn.last_weights.sum(axis=-1), 1.0, rtol=1e-12)
    assert np.all(attn.last_weights >= 0)
    params = [attn.q.weight, attn.kv.weight, attn.kv.bias, attn.out.weight]
    assert check_gradients(lambda a, b, *p: attn(a, b), [x, memory, *params]) < 1e-6


def test_whole_model_loss_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    model = EncoderDecoderTransformer(3, 3, 4, 4, 2, 1, 8, "learned", rng)
    src, tgt_in, tgt = rng.integers(0, 3, (2, 4)), rng.integers(0, 4, (2, 3)), rng.integers(0, 3, (2, 3))
    params = model.parameters()
    assert sum(p.data.size for p in params) > 300  # every parameter, the cross-attention included

    def loss(*_):
        return cross_entropy(model(src, tgt_in), tgt)

    assert check_gradients(loss, params) < 1e-6


def test_decoder_is_causal_and_every_output_sees_every_input():
    rng = np.random.default_rng(2)
    model = EncoderDecoderTransformer(5, 5, 6, 8, 2, 2, 16, "sinusoidal", rng)
    src = rng.integers(0, 5, (1, 6))
    tgt_in = rng.integers(0, 6, (1, 6))
    base = model(src, tgt_in).data
    for t in range(1, 6):
        changed = tgt_in.copy()
        changed[0, t:] = (changed[0, t:] + 1) % 6
        out = model(src, changed).data
        np.testing.assert_array_equal(out[0, :t], base[0, :t])  # positions before t: bit-for-bit the same
        assert not np.allclose(out[0, t], base[0, t])
    src2 = src.copy()
    src2[0, -1] = (src2[0, -1] + 1) % 5
    out = model(src2, tgt_in).data
    assert np.all(np.abs(out - base).max(axis=-1) > 0)  # the last input reaches the first output (cross-attention)
    enc, enc2 = model.encode(src).data, model.encode(src2).data
    assert not np.allclose(enc[0, 0], enc2[0, 0])  # the encoder is bidirectional: no causal mask


def test_reverse_task_is_learnt_with_aligned_cross_attention():
    """600 sequences of 5 symbols out of 6, one layer, d = 24, 8 epochs (~1 s): every fresh sequence reversed
    exactly; the cross-attention of output t peaks on input 4 - t."""
    X, Y = reverse_task(600, seed=0)
    X_test, Y_test = reverse_task(200, seed=1)
    model = Seq2SeqTransformer(
        d_model=24, n_heads=2, n_layers=1, max_iter=8, batch_size=40, learning_rate=1e-2, random_state=0
    ).fit(X, Y)
    pred = model.predict(X_test)
    assert np.mean((pred == Y_test).all(axis=1)) >= 0.95 and np.mean(pred == Y_test) >= 0.98
    assert model.loss_history_[-1] < 0.05 * model.loss_history_[0]
    weights = model.cross_attention(X_test, Y_test).mean(axis=1)  # (n, T_out, T_in), heads averaged
    assert np.mean(np.argmax(weights, axis=-1) == (4 - np.arange(5))[None, :]) > 0.9
    assert model.score(X_test, Y_test) > -0.1


def test_output_length_differs_from_input_length():
    """Every other input symbol (T_in = 6, T_out = 3), with learned positions (8 epochs; the sinusoidal ones need
    about 15 to reach the same accuracy on this task)."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, (600, 6))
    X_test = rng.integers(0, 5, (200, 6))
    model = Seq2SeqTransformer(
        d_model=24, positional="learned", max_iter=8, batch_size=40, learning_rate=1e-2, random_state=0
    )
    model.fit(X, X[:, ::2])
    pred = model.predict(X_test)
    assert pred.shape == (200, 3) and np.mean(pred == X_test[:, ::2]) >= 0.98


def test_bad_inputs():
    X, Y = reverse_task(20)
    model = Seq2SeqTransformer(max_iter=1, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="different numbers of sequences"):
        Seq2SeqTransformer(max_iter=1).fit(X, Y[:5])
    with pytest.raises(ValueError, match="integer token ids"):
        Seq2SeqTransformer(max_iter=1).fit(X + 0.5, Y)
    with pytest.raises(ValueError, match="token ids outside"):
        model.predict(X + 10)
    with pytest.raises(ValueError, match="exceed the longest sequence"):
        model.predict(X, max_length=9)
    with pytest.raises(ValueError, match="divisible by n_heads"):
        Seq2SeqTransformer(d_model=5, n_heads=2).fit(X, Y)
    with pytest.raises(ValueError, match="positional must be one of"):
        Seq2SeqTransformer(positional="rotary").fit(X, Y)
    with pytest.raises(ValueError, match="not fitted"):
        Seq2SeqTransformer().predict(X)
