"""The result of :func:`replearn.compare`: the comparison as data, and every output of it on demand."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from . import render

__all__ = ["Comparison"]


class Comparison(Mapping):
    """A comparison of models over a table of scores (:func:`replearn.compare`).

    It is the JSON ``replearn compare`` writes, as a read-only mapping (``result["across_datasets"]["friedman"]``),
    and renders itself: in Jupyter as HTML (``_repr_html_``, with both figures), and on demand as
    :meth:`to_markdown`, :meth:`to_html`, :meth:`to_latex` (the booktabs table), :meth:`to_json`,
    :meth:`to_bibtex` (exactly the works of the procedures used), :meth:`methods` (the paragraph, each sentence
    naming the JSON fields it states), :meth:`plot_cd` and :meth:`plot_matrix` (matplotlib figures), and
    :meth:`write` (all of it into a folder).
    """

    def __init__(self, data: dict, *, title: str | None = None):
        self._data = data
        self.title = title
        self._documents: dict = {}  # (decimals,) -> the document without figures (Markdown and plain HTML)

    def _document(self, decimals: int):
        if decimals not in self._documents:
            self._documents[decimals] = render.document(self._data, title=self.title, decimals=decimals)
        return self._documents[decimals]

    # the mapping
    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def to_dict(self) -> dict:
        """The comparison as plain data (a deep copy: changing it does not change the result)."""
        import copy

        return copy.deepcopy(self._data)

    # short answers
    @property
    def average_ranks(self) -> dict[str, float]:
        """Model -> average rank over the datasets (1 = best), best first."""
        ranks = self._data["across_datasets"].get("average_ranks") or {}
        return dict(sorted(ranks.items(), key=lambda kv: (kv[1], kv[0])))

    @property
    def summary(self) -> str:
        """The verdict across datasets in one line (the report's summary line)."""
        from ..report.document import _Fmt
        from ..report.summary import across_line

        return across_line(render.significance_view(self._data), _Fmt(3)) or "Across datasets: nothing to compare."

    def __repr__(self) -> str:
        inp = self._data["input"]
        return f"<Comparison of {inp['n_models']} models on {inp['n_datasets']} datasets: {self.summary}>"

    # outputs
    def to_json(self) -> str:
        return render.to_json(self._data)

    def to_markdown(self, *, decimals: int = 3) -> str:
        """The report as Markdown (without the figures, which :meth:`write` saves beside it)."""
        from ..report.markdown import _render_markdown

        return _render_markdown(self._document(decimals))

    def to_html(self, *, decimals: int = 3, figures: bool = True) -> str:
        """The report as one self-contained HTML page (figures inlined as PNG)."""
        from ..report.html import _render_html

        if not figures:
            return _render_html(self._document(decimals), {})
        images, blobs = self._inline_figures()
        return _render_html(render.document(self._data, title=self.title, decimals=decimals, images=images), blobs)

    def _repr_html_(self) -> str:
        html = self.to_html()
        return html[html.index("<body>") + len("<body>") : html.index("</body>")]

    def to_latex(self, *, decimals: int = 3, cells: str = "score", label: str = "tab:comparison") -> str:
        """The booktabs table: a row per dataset (mean ± sd, or the rank with ``cells="rank"``), the best in bold,
        marks against the control or the best model, the average ranks last."""
        return render.latex_table(self._data, decimals=decimals, cells=cells, label_=label)

    def to_bibtex(self) -> str:
        from ...stats.bibliography import bibtex

        return bibtex(self._data["references"])

    def methods(self, *, latex: bool = False) -> str:
        """The methods paragraph (plain text, or LaTeX with ``\\cite`` keys of :meth:`to_bibtex`)."""
        if latex:
            return render.latex_methods(self._data)
        return " ".join(s["text"] for s in self._data["methods"])

    def plot_cd(self, path: str | Path | None = None, *, dpi: int = 150):
        """The critical-difference diagram (a matplotlib figure; saved to ``path`` as PNG, SVG or PDF when given).
        Raises ValueError when no across-datasets test ran (too few datasets or models)."""
        from ..report.plots import NotebookFigure, critical_difference_figure, save_figure

        fig = render.cd_figure(self._data, critical_difference_figure, figure_class=NotebookFigure)
        if fig is None:
            reason = self._data["across_datasets"].get("reason") or "no across-datasets test ran"
            raise ValueError(f"no critical-difference diagram: {reason}")
        if path is not None:
            save_figure(fig, path, dpi)
        return fig

    def plot_matrix(self, path: str | Path | None = None, *, dpi: int = 150):
        """The k x k pairwise matrix (a matplotlib figure; saved to ``path`` when given)."""
        from ..report.matrix import pairwise_matrix_figure
        from ..report.plots import NotebookFigure, save_figure

        matrix = self._data.get("matrix")
        if matrix is None:
            raise ValueError("no pairwise matrix: no pair of models was tested across datasets")
        fig = pairwise_matrix_figure(matrix, figure_class=NotebookFigure)
        if path is not None:
            save_figure(fig, path, dpi)
        return fig

    def write(self, out_dir: str | Path, **kw) -> dict[str, Path]:
        """Every output into ``out_dir`` (:func:`replearn.pipeline.tables.render.write`)."""
        return render.write(self._data, out_dir, title=self.title, **kw)

    def _inline_figures(self):
        import tempfile

        from ..report.document import _Image

        images, blobs = {}, {}
        with tempfile.TemporaryDirectory() as tmp:
            for key, paths in render.figure_files(self._data, Path(tmp), dpi=100, formats=("png",)).items():
                rel = f"plots/{paths[0].name}"
                blobs[rel] = paths[0].read_bytes()
                images[key] = _Image(rel, "Critical difference diagram" if key == "cd" else "Pairwise matrix")
        return images, blobs
