"""Bring your own results: any table of scores in, the verdicts of the significance stage out.

:func:`compare` (``replearn.compare``, and ``replearn compare FILE`` on the command line) reads a table of scores
(:mod:`.read`: long or wide, CSV, Parquet, stdin or a DataFrame), asks the question its shape allows with the
significance stage's own functions (:mod:`.analysis`) and returns a :class:`~.result.Comparison` that renders
itself as JSON, Markdown, HTML, LaTeX and BibTeX, with the critical-difference diagram and the pairwise matrix
(:mod:`.render`). docs/statistics.md ("Bring your own results") says which question follows from which input.
"""

from __future__ import annotations

from collections.abc import Mapping

from .read import ScoreTable, read_table
from .result import Comparison

__all__ = ["Comparison", "ScoreTable", "compare", "read_table"]


def compare(
    data,
    *,
    higher_is_better: bool | None = None,
    metric: str | None = None,
    alpha: float = 0.05,
    rope: float = 0.01,
    rope_scale: str = "absolute",
    control: str | None = None,
    posthoc: str | None = None,
    correction: str = "holm",
    min_datasets: int = 5,
    across_pairs_test: str = "wilcoxon",
    bayesian: bool = True,
    replicate_test: str = "replicate_ttest",
    fold_test: str = "auto",
    round_before_ranking: int | None = None,
    seed: int = 0,
    columns: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Comparison:
    """Compare the models of a table of scores, with the tests the table's shape allows.

    Parameters
    ----------
    data : pandas DataFrame, path, ``"-"`` or mapping
        Long (``dataset``, ``model``, ``score`` and optionally ``seed``/``replicate``/``repeat``/``fold``,
        ``metric``, ``n_train``/``n_test``) or wide (a row per dataset, a column per model); a CSV or Parquet
        file, ``"-"`` for CSV on stdin.
    higher_is_better : bool, optional
        The direction of the score; by default that of the metric (``metric`` or the ``metric`` column) when
        replearn knows it (accuracy, error, mse, ...), else an error.
    metric : str, optional
        The metric to compare when the table holds several (a ``metric`` column), or the score's name.
    alpha, rope, rope_scale, correction, min_datasets, across_pairs_test, bayesian, replicate_test,
    round_before_ranking
        As the ``stats`` settings of the pipeline (docs/statistics.md); checked by its schema.
    control : str, optional
        Compare every model with this one (post-hoc against a control; Holm by default) instead of all pairs.
    posthoc : str, optional
        The post-hoc procedure after Friedman (default Bergmann–Hommel for all pairs, Shaffer above 10 models;
        Holm against a control).
    fold_test : {"auto", "conditional", "corrected"}
        Cross-validation splits: the conditional question over the repeats (auto, from two repeats), or the
        corrected resampled t-test over the folds (auto with one repeat; needs ``n_train``/``n_test``).
    seed : int
        Seeds the Bayesian signed-rank test's draws (with each pair's names; the pipeline's: the CV seed).
    columns : mapping, optional
        Role -> column name for columns named otherwise (``{"score": "acc"}``).
    title : str, optional
        The title of the Markdown, HTML and LaTeX outputs.

    Returns
    -------
    Comparison
        The result (a mapping of the JSON), which renders itself (``to_markdown``, ``to_latex``, ``plot_cd``, ...).

    Raises
    ------
    replearn.exceptions.TableError
        A table or a setting that cannot be compared: one line naming the line (or row) and the column.
    """
    from .analysis import analyse

    data = analyse(
        data,
        higher_is_better=higher_is_better,
        metric=metric,
        columns=columns,
        fold_test=fold_test,
        seed=seed,
        alpha=alpha,
        rope=rope,
        rope_scale=rope_scale,
        control=control,
        posthoc=posthoc,
        correction=correction,
        min_datasets=min_datasets,
        across_pairs_test=across_pairs_test,
        bayesian=bayesian,
        replicate_test=replicate_test,
        round_before_ranking=round_before_ranking,
    )
    return Comparison(data, title=title)
