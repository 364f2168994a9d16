"""The ``report`` section of the configuration: its schema, declared here once and read by
:mod:`replearn.pipeline.config` (``validate``, the schema of the whole file) and by the report itself.

A module of its own so that the report stage depends on the rules of its settings and not on the rest of the
configuration check, which names every model and unit (and so imports them): editing a model or a unit leaves the
report up to date (issue 38)."""

from __future__ import annotations

from collections.abc import Mapping

from ..exceptions import ConfigError
from .schema import Choice, ListOf, Optional_, Range, _check

REPORT_FORMATS = ("html", "markdown")
#: report.per_dataset: a section per dataset, or the benchmark view (pipeline.report.benchmark)
REPORT_PER_DATASET = ("auto", "full", "compact")

REPORT_SCHEMA = {
    "title": str,
    "decimals": Range(int, 0, 12),
    "dpi": Range(int, 10, 1200),
    "plots": bool,
    "formats": Optional_(ListOf(Choice(REPORT_FORMATS, "report format"))),
    # a section per dataset, or one heat-map and table for many datasets (report.benchmark; auto: > 8)
    "per_dataset": Optional_(Choice(REPORT_PER_DATASET, "per-dataset view")),
}


def check_report_settings(value: Mapping) -> None:
    """Validate the ``report`` section with the schema :func:`replearn.pipeline.config.validate` uses; the same
    message as ``config.check_section("report", value)``."""
    errors: list[str] = []
    _check(value, REPORT_SCHEMA, "report", errors)
    if errors:
        raise ConfigError("invalid report settings:\n  - " + "\n  - ".join(errors))
