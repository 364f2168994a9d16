"""What the report adds for the ``sequence`` family (:mod:`replearn.pipeline.family_views`): the text each
language model writes after the same held-out prompt.

Read through :class:`TextSample`, the view of a replicate's ``Outcome.extra`` (``units.py``: only text tasks have
one).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...records import as_evaluation
from ...views import View


@dataclass(frozen=True)
class TextSample(View):
    """What a language model's replicate carries beside its scores: a held-out prompt and the continuation it
    sampled (None: no text task)."""

    prompt: str = ""
    sample: str | None = None


EXTRA = TextSample


def text_samples(evaluations) -> list[tuple[str, str, str, str]]:
    """``[(dataset, unit, prompt, sample)]``: the text each unit generated after a held-out prompt in its first
    replicate (``extras[0]``; only text tasks have samples), in dataset and unit order. Line breaks are shown as
    "⏎" so that a sample stays one table cell."""
    rows = []
    for dataset, ev in sorted(evaluations.items()):
        for key, model in sorted(as_evaluation(ev).models.items()):
            extra = EXTRA.from_dict(model.extras[0] if model.extras else None)
            if extra.sample:
                show = [str(v).replace("\n", "⏎") for v in (extra.prompt, extra.sample)]
                rows.append((dataset, key, show[0], show[1]))
    return rows
