"""Multi-layer perceptron for classification and regression (numpy, explicit backpropagation)."""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit

from ..._constraints import Boolean, Interval, IntSequence, Options
from ...base import TaskMixin
from ...exceptions import NotFittedError
from ...validation import check_classification_targets, check_X_y
from .activations import ACTIVATIONS, softmax
from .init import resolve_init
from .layers import Dense, Dropout, Maxout
from .network import NETWORK_CONSTRAINTS, NeuralNetworkBase
from .normalization import NORMALIZATIONS


def check_layer_sizes(sizes, name: str = "hidden_layer_sizes") -> list[int]:
    """A list/tuple of positive ints (may be empty), or a single int."""
    if isinstance(sizes, (numbers.Integral, np.integer)) and not isinstance(sizes, bool):
        sizes = [sizes]
    if not isinstance(sizes, (list, tuple, np.ndarray)):
        raise TypeError(f"{name} must be a list of positive ints, got {type(sizes).__name__} {sizes!r}")
    out = []
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, (numbers.Integral, np.integer)) or s < 1:
            raise ValueError(f"{name} must contain positive ints, got {list(sizes)!r}")
        out.append(int(s))
    return out


class MLP(TaskMixin, NeuralNetworkBase):
    """Fully connected feed-forward network trained by mini-batch stochastic optimization.

    Architecture: input -> [Dense(m_k) -> (normalization) -> activation -> Dropout] for each m_k in
    ``hidden_layer_sizes`` -> Dense(output). The output non-linearity is fused with the loss
    (:mod:`replearn.models.neural.losses`): softmax + cross-entropy for three or more classes, one
    sigmoid unit + binary cross-entropy for two classes (as scikit-learn), identity + squared error
    for regression -- or, with ``output_activation`` and ``loss``, the regression heads of the CS229
    summaries §8.2 (seed 002 L1724-1742): a ReLU output for non-negative targets ("like age") and the
    absolute error |y_hat - y| instead of the squared one. With ``activation="maxout"`` each hidden layer is a
    :class:`~replearn.models.neural.layers.Maxout` layer of ``maxout_pieces`` linear pieces per unit.

    Sources: CS229 notes ch. 7 (two-layer and multi-layer networks §7.2, seed 000 L2704-2858;
    backpropagation Alg. 3-5 §7.3, L2966-3183; vectorization §7.4, L3143-3217; SGD Alg. 1-2,
    L2599-2629), CIML ch. 10 (two-layer network and its training, Alg. 25-28, seed 001
    L3271-3513), CS229 summaries' neural-network lectures (seed 002 L1626-1900), CS480/680 §9 (MLP,
    XOR network, dropout, schedules, seed 003 L896-1040), EPFL notes (activations incl. leaky ReLU and
    maxout, backprop, dropout, seed 004 L1785-1865). Errata not copied: CS229 Alg. 5's output error is
    z^[r] - y (printed z^[r] - o, L3165); the sigmoid derivative is s(1 - s) (CIML L3178 prints z s²);
    tanh(t) = 2 sgm(2t) - 1 (CS480/680 L925 prints 1 - 2 sgm(t)).

    Objective per mini-batch B: mean loss over B + alpha / (2|B|) * sum of squared weights (biases
    not penalized) — exactly scikit-learn's ``MLPClassifier``/``MLPRegressor``; see
    :mod:`replearn.models.neural.network` for the loop, stopping rules and recorded curves.

    Parameters
    ----------
    hidden_layer_sizes : list of int, default None (= [100])
        Width of each hidden layer; ``[]`` gives softmax/logistic/linear regression.
    activation : {"relu", "leaky_relu", "elu", "sigmoid" (= "logistic"), "tanh", "identity", "maxout"}
        Hidden-layer non-linearity (:mod:`replearn.models.neural.activations`); ELU has ``alpha = 1``.
    solver : {"sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam"}, default "adam"
        Update rule (:mod:`replearn.optim.optimizers`). scikit-learn's ``solver="sgd"`` with
        ``momentum=0`` is "sgd"; with ``nesterovs_momentum=True`` (its default) it is "nesterov".
    learning_rate_init : float > 0, default 1e-3
    lr_schedule : {"constant", "step", "exponential", "inverse_time", "inverse_sqrt", "cosine"}
        Per-epoch learning rate (:func:`replearn.optim.schedules.make_schedule`).
    lr_decay : float, optional
        The schedule's one setting (step factor, exponential gamma, 1/t constant c, cosine floor).
    batch_size : int, default None (= min(200, n_samples), scikit-learn's "auto")
    max_iter : int, default 200
        Maximum number of epochs.
    alpha : float >= 0, default 1e-4
        L2 penalty (scikit-learn's convention, see above).
    dropout : float in [0, 1), default 0
        Probability of dropping each hidden unit while training (inverted dropout).
    momentum : float in [0, 1), default 0.9 — for "momentum" and "nesterov".
    beta_1, beta_2 : float in [0, 1), defaults 0.9, 0.999 — Adam's moment decays.
    rho : float in [0, 1), default 0.9 — RMSProp's decay.
    epsilon : float > 0, default 1e-8 — AdaGrad/RMSProp/Adam.
    sampling : {"shuffle", "replacement"}, default "shuffle"
        Per-epoch shuffling, or batches drawn independently at every step (CS229 Alg. 1-2).
    early_stopping : bool or None, default None
        Stop when the validation loss stops improving; keep the best weights. ``None``: on for
        ``task="regression"``, off for classification (scikit-learn: off for both). Regression with the
        standardized target fits the noise of noisy targets within the 200 epochs (R² 0.03-0.05 below
        ``MLPRegressor`` on noisy linear data); holding out 10 % and keeping the best epoch removes that.
    validation_fraction : float in [0, 1), default None (= 0.1 with early stopping, else 0)
        Held-out share of the training data (stratified for classification). When > 0 the
        validation loss is recorded every epoch (``validation_loss_curve_``), also without early stopping.
    n_iter_no_change : int, default 10
    tol : float >= 0, default 1e-4
    init : {"auto", "glorot_uniform", "glorot_normal", "he_normal", "he_uniform", "ciml_uniform", "zeros"}
        Default "auto".
        "auto": scikit-learn's rule: every Dense layer (the output layer too) draws its weights *and*
        biases uniformly on ±sqrt(6 / (fan_in + fan_out)) (±sqrt(2 / ...) for the logistic/sigmoid
        activation); maxout layers: He normal. The named rules draw the hidden weights, start the
        biases at 0 and give the output layer Glorot uniform; "ciml_uniform" is CIML's uniform on
        [-0.1, 0.1] and "zeros" its symmetric start (§10.3: the hidden units never differ).
    maxout_pieces : int >= 1, default 2
    normalization : {None, "batch", "layer"}, default None
        A :class:`~replearn.models.neural.normalization.BatchNorm` or
        :class:`~replearn.models.neural.normalization.LayerNorm` layer after each hidden Dense layer,
        before its activation (after the unit for maxout). Batch normalization uses the mini-batch
        statistics while training and its running averages when predicting.
    standardize_target : bool, default True
        Regression only: train on (y - mean) / std and map predictions back (scikit-learn does not;
        set False to compare losses with it). Loss curves are then in standardized units. With
        ``output_activation="relu"`` only the scale is divided out (y / std), so a non-negative target
        stays non-negative and the ReLU's zero means zero.
    output_activation : {"identity", "relu"}, default "identity"
        Regression only: the output unit. ``"relu"`` predicts ``max(z, 0)`` (never negative).
    loss : {"squared_error", "absolute_error"}, default "squared_error"
        Regression only: ½||y_hat - y||² (CS229 §7.1) or |y_hat - y| (the summaries' alternative; its
        minimizer is a conditional median, robust to outliers).
    warm_start : bool, default False
        Start from the current weights when refitting data of the same shape.
    task : {"classification", "regression"}, default "classification"
    random_state : int, Generator or None
        Seeds the initialization, the validation split, the batches and the dropout masks.

    Attributes
    ----------
    layers_ : list of layers (nested estimators; :attr:`coefs_` / :attr:`intercepts_` list their weights)
    classes_ : array (classification)
    n_features_in_, n_outputs_ : int
    out_activation_ : {"softmax", "logistic", "identity", "relu"}
    loss_curve_, loss_history_, validation_loss_curve_ : arrays, one entry per epoch
    n_iter_ : int, epochs run
    best_epoch_ : int or None
        With early stopping, the epoch (1-based) whose weights were kept; the curves index it at
        ``best_epoch_ - 1``.
    best_validation_loss_ : float or None
    y_mean_, y_scale_ : float (regression)
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        **NETWORK_CONSTRAINTS,
        "hidden_layer_sizes": (None, IntSequence(1)),
        "task": Options({"classification", "regression"}),
        "activation": Options(set(ACTIVATIONS) | {"maxout"}),
        "maxout_pieces": Interval(int, 1, None),
        "standardize_target": Boolean(),
        "output_activation": Options({"identity", "relu"}),
        "loss": Options({"squared_error", "absolute_error"}),
    }

    def __init__(
        self,
        hidden_layer_sizes=None,
        activation="relu",
        solver="adam",
        learning_rate_init=0.001,
        lr_schedule="constant",
        lr_decay=None,
        batch_size=None,
        max_iter=200,
        alpha=0.0001,
        dropout=0.0,
        momentum=0.9,
        beta_1=0.9,
        beta_2=0.999,
        rho=0.9,
        epsilon=1e-8,
        sampling="shuffle",
        early_stopping=None,
        validation_fraction=None,
        n_iter_no_change=10,
        tol=0.0001,
        init="auto",
        maxout_pieces=2,
        normalization=None,
        standardize_target=True,
        warm_start=False,
        task="classification",
        random_state=None,
        output_activation="identity",
        loss="squared_error",
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.solver = solver
        self.learning_rate_init = learning_rate_init
        self.lr_schedule = lr_schedule
        self.lr_decay = lr_decay
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.alpha = alpha
        self.dropout = dropout
        self.momentum = momentum
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.rho = rho
        self.epsilon = epsilon
        self.sampling = sampling
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.init = init
        self.maxout_pieces = maxout_pieces
        self.normalization = normalization
        self.standardize_target = standardize_target
        self.warm_start = warm_start
        self.task = task
        self.random_state = random_state
        self.output_activation = output_activation
        self.loss = loss

    # -- architecture -------------------------------------------------------------------------------
    def _hidden_sizes(self) -> list[int]:
        return [100] if self.hidden_layer_sizes is None else check_layer_sizes(self.hidden_layer_sizes)

    def _build_layers(self, n_features: int, n_outputs: int, rng):
        init = resolve_init(self.init, self.activation)
        out_init = "glorot_uniform"
        if self.init == "auto" and self.activation != "maxout":  # scikit-learn's rule, biases included
            init = out_init = "sklearn_logistic" if self.activation in ("logistic", "sigmoid") else "sklearn"
        layers = []
        norm = None if self.normalization is None else NORMALIZATIONS[self.normalization]
        for units in self._hidden_sizes():
            if self.activation == "maxout":
                layers.append(Maxout(units, pieces=int(self.maxout_pieces), init=init))
                if norm is not None:
                    layers.append(norm())
            else:
                layers.append(Dense(units, init=init))
                if norm is not None:
                    layers.append(norm())
                layers.append(ACTIVATIONS[self.activation]())
            if self.dropout > 0:
                layers.append(Dropout(float(self.dropout)))
        layers.append(Dense(n_outputs, init=out_init))
        shape = (n_features,)
        for layer in layers:
            shape = layer.build(shape, rng)
        return layers

    @property
    def coefs_(self) -> list[np.ndarray]:
        """Weight matrices of the Dense/Maxout layers, input to output (scikit-learn's ``coefs_``)."""
        return [layer.coef_ for layer in self._fitted_layers() if hasattr(layer, "coef_")]

    @property
    def intercepts_(self) -> list[np.ndarray]:
        return [layer.intercept_ for layer in self._fitted_layers() if hasattr(layer, "intercept_")]

    def _fitted_layers(self):
        if "layers_" not in vars(self):
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; call fit(X, y) first")
        return self.layers_

    # -- fitting ------------------------------------------------------------------------------------
    def fit(self, X, y):
        """Train the network on ``X`` (n, d) and ``y`` (n,); returns ``self``."""
        self._check_training_params()
        if self.task == "classification" and (self.output_activation != "identity" or self.loss != "squared_error"):
            raise ValueError(
                "output_activation and loss choose a regression head (task='regression'); a classifier's output is "
                f"the softmax/sigmoid with the cross-entropy, got output_activation={self.output_activation!r}, "
                f"loss={self.loss!r}"
            )
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        if self.task == "classification":
            self.classes_ = check_classification_targets(y)
            codes = np.searchsorted(self.classes_, y)
            if self.classes_.size == 2:
                output, n_outputs, T = "logistic", 1, codes.astype(np.float64)[:, None]
            else:
                output, n_outputs, T = "softmax", int(self.classes_.size), codes
            stratify = codes
            self.__dict__.pop("y_mean_", None)
            self.__dict__.pop("y_scale_", None)
        else:
            self.__dict__.pop("classes_", None)
            relu = self.output_activation == "relu"
            mean, scale = (float(y.mean()), float(y.std())) if self.standardize_target else (0.0, 1.0)
            if relu:  # scale only: max(z, 0) = 0 must still mean a prediction of 0
                mean = 0.0
            scale = scale if scale > 0 else 1.0
            self.y_mean_, self.y_scale_ = mean, scale
            output = self.output_activation + ("+absolute_error" if self.loss == "absolute_error" else "")
            n_outputs, T, stratify = 1, ((y - mean) / scale)[:, None], None
        self.n_features_in_ = X.shape[1]
        self.n_outputs_ = n_outputs
        self.out_activation_ = output.split("+")[0]
        self._train(X, T, output, n_outputs, stratify)
        return self

    # -- prediction ---------------------------------------------------------------------------------
    def decision_function(self, X):
        """Output-layer pre-activations: logits (n, n_classes), or (n,) for two classes and regression."""
        Z = self._forward_eval(X)
        return Z[:, 0] if Z.shape[1] == 1 else Z

    def predict_proba(self, X):
        """Class probabilities (n, n_classes) from the softmax (or sigmoid for two classes)."""
        self._require_classification("predict_proba")
        Z = self._forward_eval(X)
        if self.out_activation_ == "logistic":
            p = expit(Z[:, 0])
            return np.column_stack([1.0 - p, p])
        return softmax(Z)

    def predict(self, X):
        """Most probable class (classification) or the predicted target (regression)."""
        Z = self._forward_eval(X)
        if self.task == "classification":
            self._require_classification("predict")
            idx = (Z[:, 0] > 0).astype(int) if Z.shape[1] == 1 else np.argmax(Z, axis=1)
            return self.classes_[idx]
        out = np.maximum(Z[:, 0], 0.0) if getattr(self, "out_activation_", "identity") == "relu" else Z[:, 0]
        return out * self.y_scale_ + self.y_mean_

    def _require_classification(self, method: str) -> None:
        if self.task != "classification":
            raise AttributeError(
                f"{method} is only available with task='classification', this model has task={self.task!r}"
            )
        if "classes_" not in vars(self):
            raise NotFittedError(f"this {type(self).__name__} was fitted for regression; refit it for classification")


class MultiLabelMLP(MLP):
    """Multi-label classification: one sigmoid output per label, trained on the summed binary cross-entropies.

    The CS229 summaries §8.1.2 (seed 002 L1670-1699): an image may show a cat, a lion and an iguana at once,
    so the target is a binary vector ``y`` in {0, 1}^C and the network has C sigmoid output units with the loss
    ``L = -sum_c [y_c log y_hat_c + (1 - y_c) log(1 - y_hat_c)]`` (mean over the examples); "the three neurons
    do not affect each other" -- without hidden layers each output is an independent logistic regression. The
    contrast is §8.1.3: with "at most one animal" the outputs are a softmax that sums to 1 (``mlp``); here the
    probabilities of the labels need not sum to anything.

    ``fit(X, Y)`` takes ``Y`` of shape (n, C) with 0/1 entries (a label matrix, as scikit-learn's
    ``MLPClassifier`` accepts); ``predict`` returns the (n, C) 0/1 matrix ``sigmoid(z) > 1/2``,
    ``predict_proba`` the (n, C) probabilities, ``score`` the subset accuracy (every label right). The other
    hyperparameters and the training loop are the :class:`MLP`'s (its ``task``, ``output_activation``,
    ``loss`` and ``standardize_target`` do not apply). Not in the model registry: the pipeline's tasks have
    one label per example; use ``replearn.models.neural.mlp.MultiLabelMLP`` directly.
    """

    task = "classification"

    def __init__(
        self,
        hidden_layer_sizes=None,
        activation="relu",
        solver="adam",
        learning_rate_init=0.001,
        lr_schedule="constant",
        lr_decay=None,
        batch_size=None,
        max_iter=200,
        alpha=0.0001,
        dropout=0.0,
        momentum=0.9,
        beta_1=0.9,
        beta_2=0.999,
        rho=0.9,
        epsilon=1e-8,
        sampling="shuffle",
        early_stopping=False,
        validation_fraction=None,
        n_iter_no_change=10,
        tol=0.0001,
        init="auto",
        maxout_pieces=2,
        normalization=None,
        warm_start=False,
        random_state=None,
    ):
        super().__init__(
            hidden_layer_sizes=hidden_layer_sizes,
            activation=activation,
            solver=solver,
            learning_rate_init=learning_rate_init,
            lr_schedule=lr_schedule,
            lr_decay=lr_decay,
            batch_size=batch_size,
            max_iter=max_iter,
            alpha=alpha,
            dropout=dropout,
            momentum=momentum,
            beta_1=beta_1,
            beta_2=beta_2,
            rho=rho,
            epsilon=epsilon,
            sampling=sampling,
            early_stopping=early_stopping,
            validation_fraction=validation_fraction,
            n_iter_no_change=n_iter_no_change,
            tol=tol,
            init=init,
            maxout_pieces=maxout_pieces,
            normalization=normalization,
            warm_start=warm_start,
            random_state=random_state,
        )
        del self.task, self.output_activation, self.loss, self.standardize_target  # fixed for this model

    _constraints = {
        k: v
        for k, v in MLP._constraints.items()
        if k not in ("task", "output_activation", "loss", "standardize_target")
    }

    @property
    def _estimator_type(self) -> str:
        return "classifier"

    def fit(self, X, Y):
        """Train on ``X`` (n, d) and the 0/1 label matrix ``Y`` (n, C); returns ``self``."""
        from ...validation import check_array, check_X

        self._check_training_params()
        X = check_X(X, estimator=self)
        Y = check_array(Y, name="Y")
        if Y.shape[0] != X.shape[0]:
            raise ValueError(f"X and Y have inconsistent numbers of samples: X has {X.shape[0]}, Y has {Y.shape[0]}")
        if not np.all((Y == 0) | (Y == 1)):
            raise ValueError("Y must be a label matrix of 0s and 1s (n_samples, n_labels), one column per label")
        self.classes_ = np.arange(Y.shape[1])
        self.n_features_in_ = X.shape[1]
        self.n_outputs_ = Y.shape[1]
        self.out_activation_ = "logistic"
        self._train(X, Y.astype(np.float64), "multilabel", Y.shape[1], None)
        return self

    def decision_function(self, X):
        """The (n, C) logits of the label units."""
        return self._forward_eval(X)

    def predict_proba(self, X):
        """P(label c present | x) for each label: (n, C), the sigmoids of the logits (rows need not sum to 1)."""
        return expit(self._forward_eval(X))

    def predict(self, X):
        """The (n, C) 0/1 label matrix: label c is predicted where its probability exceeds 1/2."""
        return (self._forward_eval(X) > 0).astype(np.int64)

    def score(self, X, Y) -> float:
        """Subset accuracy: the share of examples whose every label is predicted right."""
        Y = np.asarray(Y)
        P = self.predict(X)
        if Y.shape != P.shape:
            raise ValueError(f"Y must have shape {P.shape}, got {Y.shape}")
        return float(np.mean(np.all(P == Y, axis=1)))
