"""Layers, losses and attention: gradients against finite differences (float64) and defining properties."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.autodiff import Tensor, check_gradients
from replearn.deep import (
    ELU,
    BatchNorm,
    Embedding,
    LayerNorm,
    Linear,
    MultiHeadAttention,
    binary_cross_entropy_with_logits,
    causal_mask,
    cross_entropy,
    gaussian_kl,
    gaussian_log_likelihood,
    mlp,
    nt_xent,
    scaled_dot_product_attention,
    sinusoidal_positional_encoding,
)
from replearn.deep.flow import AffineCoupling
from replearn.deep.transformer import CausalTransformer, TransformerBlock

TOL = 1e-6


def _param_check(module, f, x=None):
    """Gradient check of ``f(module)`` with respect to every parameter (and the input ``x``)."""
    params = module.parameters()
    inputs = params + ([x] if x is not None else [])
    return check_gradients(lambda *args: f(), inputs)


def test_linear_and_mlp_gradients():
    rng = np.random.default_rng(0)
    x = Tensor(rng.normal(size=(4, 3)), requires_grad=True)
    lin = Linear(3, 2, rng)
    assert _param_check(lin, lambda: lin(x).tanh(), x) < TOL
    net = mlp((3, 5, 2), rng, activation="elu", batchnorm=True)
    assert _param_check(net, lambda: net(x), x) < TOL


def test_embedding_gradient_adds_repeated_rows():
    rng = np.random.default_rng(1)
    emb = Embedding(5, 3, rng)
    ids = np.array([[0, 2, 2], [4, 0, 2]])
    assert _param_check(emb, lambda: emb(ids).tanh()) < TOL
    emb.weight.grad = None
    emb(ids).sum().backward()
    np.testing.assert_allclose(emb.weight.grad[:, 0], [2, 0, 3, 0, 1])


def test_layernorm_gradient_and_normalization():
    rng = np.random.default_rng(2)
    ln = LayerNorm(4)
    ln.gamma.data = rng.normal(size=4)
    ln.beta.data = rng.normal(size=4)
    x = Tensor(rng.normal(size=(2, 3, 4)) * 3 + 1, requires_grad=True)
    assert _param_check(ln, lambda: ln(x), x) < TOL
    plain = LayerNorm(4)(x).data
    np.testing.assert_allclose(plain.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(plain.var(axis=-1), 1, atol=1e-4)


def test_batchnorm_gradient_through_batch_statistics():
    rng = np.random.default_rng(3)
    bn = BatchNorm(3)
    bn.gamma.data = rng.normal(size=3)
    x = Tensor(rng.normal(size=(6, 3)) * 2 + 5, requires_grad=True)
    assert _param_check(bn, lambda: bn(x) * np.arange(1.0, 4.0), x) < TOL
    x3 = Tensor(rng.normal(size=(2, 4, 3)), requires_grad=True)
    assert _param_check(bn, lambda: bn(x3).tanh(), x3) < TOL


def test_batchnorm_train_normalizes_and_eval_uses_running_statistics():
    rng = np.random.default_rng(4)
    bn = BatchNorm(2, momentum=1.0)  # momentum 1: running stats = last batch's
    X = rng.normal(size=(50, 2)) * [2.0, 0.5] + [3.0, -1.0]
    out = bn(X).data
    np.testing.assert_allclose(out.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(out.std(axis=0), 1, atol=1e-3)
    np.testing.assert_allclose(bn.running_mean, X.mean(axis=0))
    np.testing.assert_allclose(bn.running_var, X.var(axis=0, ddof=1))
    bn.eval()
    single = bn(X[:1]).data  # a batch of one works in evaluation mode and does not depend on the rest
    np.testing.assert_allclose(single, (X[:1] - X.mean(0)) / np.sqrt(X.var(0, ddof=1) + bn.eps))
    bn.train()
    with pytest.raises(ValueError, match="at least 2"):
        bn(X[:1])


def test_elu_values_and_gradient():
    x = Tensor(np.array([[-2.0, -0.5, 0.3, 2.0]]), requires_grad=True)
    elu = ELU(alpha=1.5)
    np.testing.assert_allclose(elu(x).data, [[1.5 * np.expm1(-2), 1.5 * np.expm1(-0.5), 0.3, 2.0]])
    assert check_gradients(lambda a: elu(a), [x]) < TOL


def test_state_dict_round_trip_includes_running_statistics():
    rng = np.random.default_rng(5)
    net = mlp((3, 4, 2), rng, batchnorm=True)
    net(rng.normal(size=(8, 3)))
    state = net.state_dict()
    other = mlp((3, 4, 2), np.random.default_rng(99), batchnorm=True)
    other.load_state_dict(state)
    X = rng.normal(size=(5, 3))
    np.testing.assert_allclose(other.eval()(X).data, net.eval()(X).data)
    assert any(k.endswith("running_mean") for k in state)


# -- losses -------------------------------------------------------------------------------------------
def test_cross_entropy_value_mask_and_gradient():
    rng = np.random.default_rng(6)
    logits = Tensor(rng.normal(size=(2, 3, 4)), requires_grad=True)
    y = np.array([[0, 3, 1], [2, 2, 0]])
    mask = np.array([[True, False, True], [False, True, True]])
    p = np.exp(logits.data) / np.exp(logits.data).sum(-1, keepdims=True)
    manual = -np.mean(np.log(np.take_along_axis(p, y[..., None], -1)[..., 0])[mask])
    assert cross_entropy(logits, y, mask).item() == pytest.approx(manual)
    assert check_gradients(lambda a: cross_entropy(a, y, mask), [logits]) < TOL
    with pytest.raises(ValueError, match="targets have shape"):
        cross_entropy(logits, y[:, :2])


def test_bernoulli_and_gaussian_likelihoods_and_kl():
    rng = np.random.default_rng(7)
    s = Tensor(rng.normal(size=(3, 4)) * 3, requires_grad=True)
    x = (rng.random((3, 4)) > 0.5).astype(float)
    sig = 1 / (1 + np.exp(-s.data))
    np.testing.assert_allclose(
        binary_cross_entropy_with_logits(s, x).data, -np.sum(x * np.log(sig) + (1 - x) * np.log(1 - sig), axis=1)
    )
    assert check_gradients(lambda a: binary_cross_entropy_with_logits(a, x), [s]) < TOL
    mu = Tensor(rng.normal(size=(3, 2)), requires_grad=True)
    lv = Tensor(rng.normal(size=(3, 2)), requires_grad=True)
    assert check_gradients(gaussian_kl, [mu, lv]) < TOL
    # KL of N(mu, s^2) from N(0, 1) by numerical integration, one coordinate
    z = np.linspace(-12, 12, 40001)
    m0, v0 = mu.data[0, 0], np.exp(lv.data[0, 0])
    q = np.exp(-0.5 * (z - m0) ** 2 / v0) / np.sqrt(2 * np.pi * v0)
    kl = np.trapezoid(q * (np.log(q + 1e-300) + 0.5 * z**2 + 0.5 * np.log(2 * np.pi)), z)
    assert gaussian_kl(mu[:1, :1], lv[:1, :1]).item() == pytest.approx(kl, abs=1e-6)
    xg = rng.normal(size=(3, 2))
    ls = Tensor(np.array(0.3), requires_grad=True)
    sd = np.exp(0.3)
    logpdf = -0.5 * ((xg - mu.data) / sd) ** 2 - np.log(sd * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(gaussian_log_likelihood(xg, mu, ls).data, logpdf.sum(1))
    assert check_gradients(lambda m, log_s: gaussian_log_likelihood(xg, m, log_s), [mu, ls]) < TOL


def test_nt_xent_matches_the_formula_and_its_gradient():
    rng = np.random.default_rng(8)
    z1 = Tensor(rng.normal(size=(3, 4)), requires_grad=True)
    z2 = Tensor(rng.normal(size=(3, 4)), requires_grad=True)
    tau = 0.5
    u = np.concatenate([z1.data, z2.data])
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    S = u @ u.T / tau
    losses = []
    for i in range(6):
        j = (i + 3) % 6
        others = [k for k in range(6) if k != i]
        losses.append(-S[i, j] + np.log(np.sum(np.exp(S[i, others]))))
    assert nt_xent(z1, z2, tau).item() == pytest.approx(np.mean(losses))
    assert check_gradients(lambda a, b: nt_xent(a, b, tau), [z1, z2]) < TOL
    with pytest.raises(ValueError, match="at least 2"):
        nt_xent(z1[:1], z2[:1])


# -- attention --------------------------------------------------------------------------------------
def test_positional_encoding_matches_the_text():
    P = sinusoidal_positional_encoding(10, 6)
    np.testing.assert_allclose(P[0, 0::2], 0)  # seed 003 L1145-1147
    np.testing.assert_allclose(P[0, 1::2], 1)
    np.testing.assert_allclose(P[:, 0], np.sin(np.arange(10)))
    np.testing.assert_allclose(P[3, 3], np.cos(3 / 10000 ** (2 / 6)))


def test_attention_rows_are_convex_combinations_and_gradients():
    rng = np.random.default_rng(9)
    q = Tensor(rng.normal(size=(2, 4, 3)), requires_grad=True)
    k = Tensor(rng.normal(size=(2, 5, 3)), requires_grad=True)
    v = Tensor(rng.normal(size=(2, 5, 2)), requires_grad=True)
    out, w = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(w.data.sum(-1), 1)
    assert np.all(w.data >= 0)
    np.testing.assert_allclose(out.data, w.data @ v.data)
    assert check_gradients(lambda a, b, c: scaled_dot_product_attention(a, b, c)[0], [q, k, v]) < TOL
    qs = Tensor(rng.normal(size=(2, 4, 3)), requires_grad=True)
    mask = causal_mask(4)
    assert (
        check_gradients(
            lambda a, c: scaled_dot_product_attention(a, a, c, mask)[0], [qs, Tensor(rng.normal(size=(2, 4, 2)))]
        )
        < TOL
    )
    _, wm = scaled_dot_product_attention(qs, qs, qs, mask)
    assert np.all(wm.data[:, ~mask] < 1e-300)


def test_multihead_attention_and_block_gradients():
    rng = np.random.default_rng(10)
    x = Tensor(rng.normal(size=(2, 3, 4)), requires_grad=True)
    mha = MultiHeadAttention(4, 2, rng)
    assert _param_check(mha, lambda: mha(x, causal_mask(3)), x) < TOL
    block = TransformerBlock(4, 2, 8, rng)
    assert _param_check(block, lambda: block(x, causal_mask(3)), x) < TOL
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(5, 2, rng)


def test_whole_transformer_loss_gradient():
    rng = np.random.default_rng(11)
    model = CausalTransformer(3, 3, 4, 2, 1, 4, "learned", rng)
    ids = rng.integers(0, 3, size=(1, 3))
    y = rng.integers(0, 3, size=(1, 3))
    assert _param_check(model, lambda: cross_entropy(model(ids), y)) < TOL


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_causal_attention_never_looks_ahead(positional):
    rng = np.random.default_rng(12)
    model = CausalTransformer(7, 8, 8, 2, 2, 16, positional, rng)
    ids = rng.integers(0, 7, size=(3, 8))
    base = model(ids).data
    for t in range(8):
        changed = ids.copy()
        changed[:, t:] = (changed[:, t:] + 1 + rng.integers(0, 5, size=changed[:, t:].shape)) % 7
        out = model(changed).data
        np.testing.assert_array_equal(out[:, :t], base[:, :t])  # earlier outputs bit-for-bit unchanged
        assert not np.allclose(out[:, t], base[:, t])  # and the changed position does matter


def test_affine_coupling_log_determinant_matches_the_jacobian():
    rng = np.random.default_rng(13)
    layer = AffineCoupling(np.array([1.0, 0.0, 1.0]), (6,), rng, "tanh", 2.0)
    for p in layer.parameters():
        p.data = rng.normal(size=p.shape)
    x = rng.normal(size=(1, 3))
    _, logdet = layer(Tensor(x))
    J = np.zeros((3, 3))
    for j in range(3):
        e = np.zeros((1, 3))
        e[0, j] = 1e-6
        J[:, j] = (layer(Tensor(x + e))[0].data - layer(Tensor(x - e))[0].data)[0] / 2e-6
    assert logdet.item() == pytest.approx(np.log(abs(np.linalg.det(J))), abs=1e-6)
    y, _ = layer(Tensor(x))
    np.testing.assert_allclose(layer.inverse(y.data), x, atol=1e-12)
    xt = Tensor(rng.normal(size=(4, 3)), requires_grad=True)
    assert _param_check(layer, lambda: layer(xt)[1] + layer(xt)[0].sum(axis=1), xt) < TOL
