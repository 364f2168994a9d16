"""Pretraining and adaptation (CS229 notes ch. 14, §14.1-14.2, seed 000 L5126-5166).

The foundation-model paradigm in two phases. **Pretraining** gives a representation phi_theta-hat(x) in
R^m. **Supervised pretraining** (§14.2, L5166): train a network U phi_theta(x) on a large labelled data set,
"discard U and use phi_theta-hat(x)", the penultimate activations, as the pretrained model --
:func:`supervised_pretraining` returns them as a transformer, :class:`PretrainedFeatures`, from any fitted
:class:`~replearn.models.neural.mlp.MLP`. **Adaptation** to a downstream task with n_task labelled examples:

* the **linear probe** (eq. 14.1): ``min_w (1/n_task) sum_i l_task(y_i, w' phi_theta-hat(x_i))`` with
  theta-hat fixed -- :func:`linear_probe` fits a linear model (logistic regression for a classification
  task, ridge for regression) on the pretrained features;
* **finetuning** (eqs. 14.2-14.4): optimize w *and* theta on the task loss, initializing
  ``theta <- theta-hat`` and ``w <- random vector`` -- :func:`finetune` builds an MLP of the same
  architecture whose hidden layers start as copies of the pretrained ones and whose output layer is drawn
  afresh from ``random_state``, and trains every layer on the task data with the MLP's loop.

The pretrained network is never modified (its layers are copied).
"""

from __future__ import annotations

import copy

import numpy as np

from ...base import BaseEstimator, TransformerMixin
from ...exceptions import NotFittedError
from ...validation import check_random_state
from .layers import Dense
from .mlp import MLP
from .network import forward

__all__ = ["PretrainedFeatures", "supervised_pretraining", "linear_probe", "finetune"]


def _hidden_layers(network: MLP) -> list:
    if not isinstance(network, MLP):
        raise TypeError(f"the pretrained model must be a fitted replearn MLP, got {type(network).__name__}")
    if "layers_" not in vars(network):
        raise NotFittedError("the pretrained MLP is not fitted yet; fit it on the pretraining data first")
    layers = network.layers_
    if not isinstance(layers[-1], Dense) or len(layers) < 2:
        raise ValueError("the pretrained MLP has no hidden layer: there is no representation below its output layer")
    return layers[:-1]


class PretrainedFeatures(TransformerMixin, BaseEstimator):
    """phi_theta-hat(x): the penultimate activations of a fitted MLP, i.e. the network without its last layer U
    (CS229 §14.2). ``transform(X)`` is (n, m) with m the width of the last hidden layer; ``fit`` does nothing
    (the representation is pretrained and fixed)."""

    def __init__(self, network=None):
        self.network = network

    def fit(self, X=None, y=None):
        _hidden_layers(self.network)
        return self

    def transform(self, X) -> np.ndarray:
        layers = _hidden_layers(self.network)
        X = self.network._validate_predict_input(X)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            return forward(layers, X)

    @property
    def head(self) -> Dense:
        """The discarded last layer U (``coef_``, ``intercept_``)."""
        return self.network.layers_[-1]


def supervised_pretraining(network: MLP) -> PretrainedFeatures:
    """The pretrained model of supervised pretraining (§14.2): the fitted ``network`` with its last layer
    removed, as a :class:`PretrainedFeatures` transformer."""
    _hidden_layers(network)
    return PretrainedFeatures(network)


def linear_probe(features: PretrainedFeatures, X, y, *, task: str = "classification", C: float = 1.0):
    """The linear probe of eq. 14.1: a linear model on ``features.transform(X)`` with the representation fixed.

    Classification: ``logistic_regression`` with ``C`` (the logistic loss as l_task); regression: ``ridge``
    with ``alpha = 1/C`` (the squared loss of the notes' example, L5150). Returns the fitted linear model;
    predict with ``model.predict(features.transform(X_new))``.
    """
    from .. import create

    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    Phi = features.transform(X)
    if task == "classification":
        return create("logistic_regression", C=C).fit(Phi, y)
    return create("ridge", alpha=1.0 / C).fit(Phi, y)


def finetune(pretrained: MLP, X, y, *, random_state=None, **params) -> MLP:
    """Finetuning (eqs. 14.2-14.4): train an MLP on ``(X, y)`` from theta = theta-hat and a random head.

    The new network has the pretrained one's hyperparameters (architecture included), overridden by
    ``params`` (e.g. ``task``, ``max_iter``, ``learning_rate_init``); its hidden layers start as copies of the
    pretrained ones and its output layer -- sized for the task's labels -- is drawn from ``random_state``
    (Glorot uniform weights, zero bias); then every layer is trained. Returns the fitted MLP (with
    ``warm_start`` as in ``params``, default False).
    """
    hidden = _hidden_layers(pretrained)
    settings = {**pretrained.get_params(deep=False), **params, "random_state": random_state}
    user_warm_start = settings.pop("warm_start", False)
    model = MLP(**settings, warm_start=True)
    if model.task == "classification":
        classes = np.unique(np.asarray(y))
        n_outputs = 1 if classes.size == 2 else int(classes.size)
    else:
        n_outputs = 1
    rng = check_random_state(random_state)
    head = Dense(n_outputs, init="glorot_uniform")
    width = hidden[-1].coef_.shape[1] if hasattr(hidden[-1], "coef_") else _last_width(hidden)
    head.build((width,), rng)
    model.layers_ = [copy.deepcopy(layer) for layer in hidden] + [head]
    model.fit(X, y)
    model.warm_start = user_warm_start
    return model


def _last_width(layers) -> int:
    for layer in reversed(layers):
        if hasattr(layer, "coef_"):
            return int(layer.coef_.shape[-1])
    raise ValueError("the pretrained MLP has no dense layer")
