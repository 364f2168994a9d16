"""CIML §15.1 eqs. 15.2-15.3: choosing the number of k-means clusters by L_K + K log D (BIC) or L_K + 2KD (AIC)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from replearn import models
from replearn.evaluation import cluster_count_penalty, select_n_clusters


def _blobs(seed=0, sd=0.03):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.2]])
    return np.vstack([c + sd * rng.standard_normal((60, 2)) for c in centres])


def test_the_scores_are_the_kmeans_objective_plus_the_books_penalties():
    X = _blobs()
    for criterion, penalty in (("bic", lambda k: k * math.log(2)), ("aic", lambda k: 2 * k * 2)):
        res = select_n_clusters(X, [1, 2, 3, 4], criterion=criterion, n_init=4, random_state=1)
        for i, k in enumerate(res.ks):
            inertia = models.create("kmeans", n_clusters=k, n_init=4, random_state=1).fit(X).inertia_
            assert res.objective[i] == pytest.approx(inertia, rel=1e-12)
            assert res.penalty[i] == pytest.approx(penalty(k)) and res.scores[i] == pytest.approx(inertia + penalty(k))
        assert res.best_k == res.ks[int(np.argmin(res.scores))]


def test_three_well_separated_clusters_are_found_and_aic_never_wants_more_than_bic():
    X = _blobs()
    bic = select_n_clusters(X, range(1, 8), n_init=4)
    aic = select_n_clusters(X, range(1, 8), criterion="aic", n_init=4)
    assert bic.best_k == 3 and aic.best_k == 3
    assert np.all(np.diff(bic.objective) < 0)  # "increasing K will always decrease L_K"
    loose = _blobs(sd=0.25)  # more scatter: the small BIC penalty is outweighed; AIC's 2KD stronger (L4585)
    assert (
        select_n_clusters(loose, range(1, 8), criterion="aic", n_init=4).best_k
        <= select_n_clusters(loose, range(1, 8), n_init=4).best_k
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="criterion"):
        cluster_count_penalty(2, 3, "hqic")
    with pytest.raises(ValueError, match="between 1 and"):
        select_n_clusters(_blobs(), [0, 2])
    with pytest.raises(ValueError, match="repeated"):
        select_n_clusters(_blobs(), [2, 2])
