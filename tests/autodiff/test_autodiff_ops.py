"""Every differentiable op against central finite differences (float64), plus graph mechanics."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.autodiff import SGD, Adam, Tensor, check_gradients, clip_grad_norm, ops

TOL = 1e-6


def _t(rng, *shape, positive=False):
    x = rng.normal(size=shape)
    return Tensor(np.abs(x) + 0.5 if positive else x, requires_grad=True)


CASES = {
    "add_broadcast": (lambda a, b: a + b, [(3, 4), (1, 4)]),
    "add_scalar_row": (lambda a, b: a + b, [(2, 3, 4), (4,)]),
    "sub": (lambda a, b: a - b, [(3, 4), (3, 1)]),
    "mul_broadcast": (lambda a, b: a * b, [(2, 3, 4), (3, 1)]),
    "div": (lambda a, b: a / b, [(3, 4), ("pos", 3, 4)]),
    "neg_pow": (lambda a: -(a**3), [(3, 2)]),
    "square": (lambda a: ops.square(a), [(3, 2)]),
    "matmul": (lambda a, b: a @ b, [(3, 4), (4, 5)]),
    "matmul_batched_broadcast": (lambda a, b: a @ b, [(2, 3, 4), (4, 5)]),
    "matmul_batched": (lambda a, b: a @ b, [(2, 2, 3, 4), (2, 1, 4, 3)]),
    "sum_all": (lambda a: a.sum(), [(3, 4)]),
    "sum_axis": (lambda a: a.sum(axis=1), [(3, 4, 2)]),
    "sum_axes_keepdims": (lambda a: a.sum(axis=(0, 2), keepdims=True), [(3, 4, 2)]),
    "mean_axis": (lambda a: a.mean(axis=-1), [(3, 4)]),
    "mean_all": (lambda a: a.mean(), [(3, 4)]),
    "max_axis": (lambda a: a.max(axis=1), [(3, 5)]),
    "logsumexp": (lambda a: ops.logsumexp(a, axis=1), [(3, 5)]),
    "reshape": (lambda a: a.reshape(4, 3) * np.arange(12.0).reshape(4, 3), [(3, 4)]),
    "transpose": (lambda a: a.transpose(2, 0, 1) * np.arange(24.0).reshape(4, 2, 3), [(2, 3, 4)]),
    "T": (lambda a: a.T @ a, [(3, 2)]),
    "swapaxes": (lambda a: a.swapaxes(0, 1), [(2, 3)]),
    "getitem_slice": (lambda a: a[1:, ::2], [(3, 4)]),
    "gather_repeated": (lambda a: a[np.array([0, 2, 0, 0])], [(3, 4)]),
    "gather_2d": (lambda a: a[np.arange(3), np.array([1, 0, 1])], [(3, 2)]),
    "exp": (lambda a: a.exp(), [(3, 4)]),
    "log": (lambda a: a.log(), [("pos", 3, 4)]),
    "sqrt": (lambda a: ops.sqrt(a), [("pos", 3, 4)]),
    "tanh": (lambda a: a.tanh(), [(3, 4)]),
    "sigmoid": (lambda a: a.sigmoid(), [(3, 4)]),
    "relu": (lambda a: a.relu(), [(3, 4)]),
    "elu": (lambda a: ops.elu(a, alpha=0.7), [(3, 4)]),
    "softplus": (lambda a: ops.softplus(a * 10.0), [(3, 4)]),
    "abs": (lambda a: ops.abs(a), [(3, 4)]),
    "softmax": (lambda a: ops.softmax(a, axis=-1), [(3, 4)]),
    "softmax_axis0": (lambda a: ops.softmax(a, axis=0), [(3, 4)]),
    "log_softmax": (lambda a: ops.log_softmax(a, axis=1), [(2, 3, 4)]),
    "concat": (lambda a, b: ops.concat([a, b, a], axis=1), [(2, 3), (2, 1)]),
    "stack": (lambda a, b: ops.stack([a, b], axis=1), [(2, 3), (2, 3)]),
    "where": (lambda a, b: ops.where(np.array([[True, False, True]]), a, b), [(2, 3), (1, 3)]),
    "reused_node": (lambda a: (a * a + a).sum(axis=0) * a.sum(axis=0), [(3, 2)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_gradient_matches_finite_differences(name):
    f, shapes = CASES[name]
    rng = np.random.default_rng(0)
    inputs = []
    for s in shapes:
        if s[0] == "pos":
            inputs.append(_t(rng, *s[1:], positive=True))
        else:
            inputs.append(_t(rng, *s))
    assert check_gradients(f, inputs) < TOL


def test_backward_accumulates_and_constants_build_no_graph():
    a = Tensor(np.array([[1.0, 2.0]]), requires_grad=True)
    c = Tensor(np.array([[3.0, 4.0]]))
    assert not (c * 2 + 1).requires_grad and (c * 2)._parents == ()
    (a * c).sum().backward()
    (a * c).sum().backward()
    np.testing.assert_allclose(a.grad, 2 * c.data)


def test_backward_needs_a_scalar_or_a_gradient():
    a = Tensor(np.ones((2, 2)), requires_grad=True)
    with pytest.raises(ValueError, match="scalar"):
        (a * 2).backward()
    (a * 2).backward(np.ones((2, 2)))
    np.testing.assert_allclose(a.grad, 2.0)


def test_deep_chain_has_no_recursion_limit():
    a = Tensor(np.array([1.0]), requires_grad=True)
    x = a
    for _ in range(5000):
        x = x * 1.0001
    x.sum().backward()
    np.testing.assert_allclose(a.grad, 1.0001**5000)


def test_matmul_rejects_vectors():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        Tensor(np.ones(3)) @ Tensor(np.ones((3, 2)))


def test_softmax_and_softplus_do_not_overflow():
    x = Tensor(np.array([[1000.0, -1000.0, 0.0]]), requires_grad=True)
    y = ops.log_softmax(x) + ops.softplus(x) + ops.sigmoid(x)
    assert np.all(np.isfinite(y.data))
    y.sum().backward()
    assert np.all(np.isfinite(x.grad))


def _quadratic_problem():
    target = np.array([[1.0, -2.0, 3.0]])
    w = Tensor(np.zeros((1, 3)), requires_grad=True)
    return w, target


@pytest.mark.parametrize(
    "make", [lambda p: SGD(p, lr=0.1), lambda p: SGD(p, lr=0.05, momentum=0.9), lambda p: Adam(p, lr=0.1)]
)
def test_optimizers_minimize_a_quadratic(make):
    w, target = _quadratic_problem()
    opt = make([w])
    for _ in range(300):
        opt.zero_grad()
        ((w - target) ** 2).sum().backward()
        opt.step()
    np.testing.assert_allclose(w.data, target, atol=1e-3)


def test_adam_first_step_has_size_lr():
    w = Tensor(np.array([[5.0, -5.0]]), requires_grad=True)
    opt = Adam([w], lr=0.01)
    (w * np.array([[3.0, -0.001]])).sum().backward()
    opt.step()
    np.testing.assert_allclose(w.data, [[4.99, -4.99]], atol=1e-6)


def test_optimizer_checks_settings_and_clip_scales_jointly():
    w = Tensor(np.zeros(2), requires_grad=True)
    with pytest.raises(ValueError, match="lr"):
        SGD([w], lr=0.0)
    with pytest.raises(ValueError, match="no parameters"):
        Adam([])
    w.grad = np.array([3.0, 4.0])
    assert clip_grad_norm([w], 1.0) == pytest.approx(5.0)
    np.testing.assert_allclose(w.grad, [0.6, 0.8])
