"""A chain of feature maps applied in order; fitted on the training part only.

In cross-validation a fresh pipeline is fitted on each fold's training part, so nothing of the held-out
fold leaks into the map (CIML §5.6's warning about normalizing before splitting).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..validation import check_array


class FeaturePipeline:
    """``steps`` is a list of ``{"name": registry name, "params": {...}}`` (the config's ``features.steps``)."""

    def __init__(self, steps: list[dict] | None = None, *, max_columns: int | None = None):
        self.steps = list(steps or [])
        self.max_columns = max_columns  # the configuration's features.max_columns (None: each map's default)

    def _build(self):
        from . import create

        built = [create(s["name"], **(s.get("params") or {})) for s in self.steps]
        if self.max_columns is not None:
            for t in built:
                if hasattr(t, "max_columns"):
                    t.max_columns = int(self.max_columns)
        return built

    def fit(self, X, y=None):
        self.fit_transform(X, y)
        return self

    def transform(self, X):
        X = check_array(X)
        for t in self.transformers_:
            X = t.transform(X)
        return X

    def fit_transform(self, X, y=None):
        X = check_array(X)
        self.transformers_ = []
        for t in self._build():
            X = t.fit_transform(X, y)
            self.transformers_.append(t)
        self.n_features_out_ = X.shape[1]
        return X

    # -- safe persistence: one npz with step-prefixed arrays, one JSON --------------------------
    def save(self, stem: str | Path) -> None:
        from ..persistence import _split_state

        stem = Path(stem)
        stem.parent.mkdir(parents=True, exist_ok=True)
        arrays, meta_steps = {}, []
        for i, (spec, t) in enumerate(zip(self.steps, self.transformers_)):
            a, state = _split_state(t, prefix=f"{i}.")
            arrays.update(a)
            meta_steps.append({"name": spec["name"], "params": t.get_params(), **state})
        with open(stem.with_suffix(".npz"), "wb") as fh:
            np.savez(fh, **arrays)
        stem.with_suffix(".json").write_text(json.dumps({"steps": meta_steps}, indent=2, sort_keys=True) + "\n")

    @classmethod
    def load(cls, stem: str | Path) -> "FeaturePipeline":
        from ..persistence import _restore
        from . import create

        stem = Path(stem)
        meta = json.loads(stem.with_suffix(".json").read_text())
        pipe = cls([{"name": s["name"], "params": s["params"]} for s in meta["steps"]])
        pipe.transformers_ = []
        with np.load(stem.with_suffix(".npz"), allow_pickle=False) as data:
            for i, s in enumerate(meta["steps"]):
                t = create(s["name"], **s["params"])
                _restore(t, s, data, prefix=f"{i}.")
                pipe.transformers_.append(t)
        return pipe
