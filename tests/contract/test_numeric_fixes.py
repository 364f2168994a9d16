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
        create("linear_classifier", loss="exponential", solver="gd", schedule="constant", learning_rate=1e4).fit(
            X * 10, y
        )
