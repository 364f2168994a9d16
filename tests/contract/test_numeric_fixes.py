"""Issue 17 §2: the numeric bugs the contract suite found, each with a test that failed on the old behaviour.

Where the other cases are tested: factor analysis on collinear features (tests/models/test_factor_analysis.py),
kernel PCA on features scaled by 1e5 (tests/models/test_kernel_pca.py; the bool check of
``fit_inverse_transform`` in tests/contract/test_constraints.py), GDA's relative ``reg_covar``
(tests/models/test_gda.py), gradient-norm stopping (tests/test_optim.py,
tests/models/test_linear_regression.py), MLP regression defaults (tests/models/test_mlp.py) and the Gaussian
mixture's default start (tests/models/test_gmm.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.models import create


def test_linear_classifier_does_not_call_noise_divergence_on_make_circles():
    """23 of these 50 fits raised DivergenceError when the objective went from 1.0 to 1.00004; divergence
    means NaN/inf or growth by orders of magnitude."""
    from sklearn.datasets import make_circles

    X, y = make_circles(n_samples=400, noise=0.1, factor=0.5, random_state=0)
    objectives = []
    for seed in range(50):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = create("linear_classifier", random_state=seed).fit(X, y)
        objectives.append(np.max(np.asarray(model.loss_history_, dtype=float)))
    assert np.all(np.isfinite(objectives))
    assert max(objectives) < 2.0  # the hinge objective of the zero vector is 1: no blow-up either
    with pytest.raises(DivergenceError, match="too large"):  # real divergence is still an error
        create("linear_classifier", loss="exponential", solver="gd", schedule="constant", learning_rate=50.0).fit(
            X * 10, y
        )


def test_linear_classifier_refuses_features_too_large_for_its_steps_before_fitting():
    """Issue 24: on unstandardized features the default SGD raised DivergenceError (a FloatingPointError) after
    its first epoch -- raw breast-cancer data included. The scale is now checked before any step: an
    InputScaleError saying to standardize or which learning rate would do; that learning rate then fits."""
    from sklearn.datasets import load_breast_cancer

    from replearn.exceptions import InputScaleError

    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(InputScaleError, match=r"standardize the features .* lower learning_rate below (\S+)") as info:
        create("linear_classifier", random_state=0).fit(X, y)
    lr = float(info.value.args[0].rsplit(" ", 1)[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = create("linear_classifier", random_state=0, learning_rate=lr / 2).fit(X, y)
    assert np.all(np.isfinite(model.coef_)) and model.score(X, y) > 0.7  # majority class: 0.63
    Xs = (X - X.mean(0)) / X.std(0)  # standardized: the default fits as before
    assert create("linear_classifier", random_state=0).fit(Xs, y).score(Xs, y) > 0.95
