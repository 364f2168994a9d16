"""How many local processes a stage splits its independent work over: one rule for every stage that does.

The reproduce stage (``reproduce: all``), the significance stage (many datasets x pairs) and the report stage's
MLflow logging (hundreds of child runs) each split work whose results never depend on which process did it. How
many processes they use is no parameter of the experiment (outputs are the same for any number, tests compare
them), so it is set by an environment variable per stage, read here: a whole number (``1``: everything in the
stage's own process), or unset for the stage's default. The cluster path (``compute=dask``) is separate: it is
where cross-validation fits go, and configured in ``params.yaml``.
"""

from __future__ import annotations

import os


def processes(env: str, n_tasks: int, default: int) -> int:
    """``$env`` as a number of processes, else ``default``; at least 1 and at most ``n_tasks``.

    Raises :class:`~replearn.exceptions.ConfigError` naming the variable when it is set to something else than a
    whole number."""
    raw = os.environ.get(env, "").strip()
    if raw:
        try:
            wanted = int(raw)
        except ValueError:
            from ..exceptions import ConfigError

            raise ConfigError(f"{env}={raw!r}: expected a whole number of processes (1 = serial)") from None
    else:
        wanted = default
    return max(1, min(wanted, max(n_tasks, 1)))


def cores() -> int:
    """The machine's cores (``os.cpu_count()``; 1 when it cannot tell): the default for work that fills them."""
    return max(1, os.cpu_count() or 1)
