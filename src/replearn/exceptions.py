"""Errors raised by replearn. Each names what was wrong and what was expected."""


class ReplearnError(Exception):
    """Base class of every error replearn raises on purpose."""


class ConfigError(ReplearnError, ValueError):
    """The experiment configuration is invalid (unknown name, misspelt key, wrong type)."""


class DataValidationError(ReplearnError, ValueError):
    """A dataset failed validation; the message names the file, column and row."""


class NotFittedError(ReplearnError, AttributeError, ValueError):
    """A method that needs a fitted model was called before ``fit``.

    Both an ``AttributeError`` and a ``ValueError``, as scikit-learn's ``NotFittedError`` is."""


class SparseInputError(ReplearnError, TypeError, ValueError):
    """A scipy sparse matrix was given to a model that needs dense input; densify with ``X.toarray()``."""


class InputScaleError(ReplearnError, ValueError):
    """Input values so large that float64 arithmetic on them overflows; standardize the features."""


class DivergenceError(ReplearnError, FloatingPointError):
    """An iterative solver produced NaN or infinite values (e.g. too large a step size)."""


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at ``max_iter`` before meeting its tolerance."""


class DataConversionWarning(UserWarning):
    """Input data were converted to the form a model needs (e.g. a column-vector ``y`` flattened)."""


class TrackingError(ReplearnError, RuntimeError):
    """Logging a pipeline run to the MLflow store failed (the message says which part and why); the stage's local
    outputs (results/, metrics/, reports/) are intact."""


class ServiceError(ReplearnError, RuntimeError):
    """A service the configuration names (a Dask scheduler, an MLflow server, a local stack program) is missing
    or cannot be reached; the message names it, its address and how to start or install it."""


class TableError(ReplearnError, ValueError):
    """A table of scores given to ``replearn compare`` cannot be compared; the message names the line (or row) and
    the column."""


class PluginModelError(ReplearnError, ValueError):
    """A plugin model (an installed distribution's entry point) raised in one of its methods: one line naming the
    plugin model, its distribution and the method, then the plugin's own exception (chained as ``__cause__``).
    The registry raises a subclass of this and of the original exception's class where the two combine, so
    ``except TypeError`` around a plugin's ``fit`` still catches its ``TypeError``."""
