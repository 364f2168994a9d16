"""What the executed tutorials call (markdown-exec runs their hidden code blocks while the site builds).

Each tutorial works in a :class:`Project`: a temporary copy of this project (the files git tracks or would
track, as a fresh clone has them, plus the installed KEEL files), made a git repository so that ``dvc exp run``
works there. :meth:`Project.sh` runs a command in it -- split like a shell would, run without one -- and returns
the command and its output as a console block in Markdown, which the code block prints (markdown-exec publishes
what a block prints, through the ``print`` it gives the block); a command that fails raises, so the build fails
(strict mode) instead of publishing a broken tutorial. Figures are PNG data URIs (:func:`png`, :func:`figure`),
so the pages need no image files. The copies are removed when the build ends (docs/hooks.py) or the process exits.
"""

from __future__ import annotations

import atexit
import base64
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
_MADE: list[Path] = []
LOCAL_LINK = re.compile(r"\[([^\]]+)\]\((?!https?:)[^)]*\)")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_", "DASK_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["CI"] = "1"  # no progress bars in the transcripts
    env.setdefault("GIT_AUTHOR_NAME", "replearn docs")
    env.setdefault("GIT_AUTHOR_EMAIL", "docs@replearn.invalid")
    env["GIT_COMMITTER_NAME"] = env["GIT_AUTHOR_NAME"]
    env["GIT_COMMITTER_EMAIL"] = env["GIT_AUTHOR_EMAIL"]
    return env


def _fence(text: str, lang: str = "console", title: str | None = None) -> str:
    ticks = "````" if "```" in text else "```"
    head = f"{ticks}{lang}" + (f' title="{title}"' if title else "")
    return f"{head}\n{text.rstrip()}\n{ticks}\n"


class Project:
    """A throwaway copy of the project in a temporary folder, with git initialized and one commit."""

    def __init__(self, name: str):
        self.root = Path(tempfile.mkdtemp(prefix=f"replearn-docs-{name}-"))
        _MADE.append(self.root)
        files = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.decode()
        for rel in filter(None, files.split("\0")):
            src = ROOT / rel
            if src.is_file() and not rel.startswith(("site/", "docs/")):
                (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, self.root / rel)
        for stale in ("dvc.lock", "metrics", "plots"):  # as a fresh clone has it, before any run
            target = self.root / stale
            shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
        if (ROOT / "data" / "keel").is_dir():  # git-ignored: installed by `make keel` (make docs does it)
            shutil.copytree(ROOT / "data" / "keel", self.root / "data" / "keel")
        for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "copy"]):
            self._run(argv)

    def _run(self, argv: list[str], timeout: float = 900) -> subprocess.CompletedProcess:
        res = subprocess.run(
            argv, cwd=self.root, env=_env(), capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        if res.returncode != 0:
            raise RuntimeError(
                f"`{shlex.join(argv)}` failed with exit {res.returncode} in {self.root}:\n"
                f"{res.stdout[-4000:]}\n{res.stderr[-6000:]}"
            )
        return res

    def sh(self, command: str, *, head: int | None = None, tail: int | None = None) -> str:
        """Run ``command`` in the project; ``$ command`` and its output (stdout then stderr) as a console block
        in Markdown; ``head``/``tail`` keep only that many lines (saying how many were left out)."""
        argv = shlex.split(command)
        start = time.perf_counter()
        res = self._run(argv)
        seconds = time.perf_counter() - start
        out = (res.stdout + res.stderr).rstrip("\n")
        lines = out.splitlines()
        if head is not None and len(lines) > head:
            lines = lines[:head] + [f"[... {len(lines) - head} more lines]"]
        if tail is not None and len(lines) > tail:
            lines = [f"[... {len(lines) - tail} lines before]"] + lines[-tail:]
        text = _fence("\n".join([f"$ {command}", *lines]))
        if seconds >= 5:
            text += f"\n*(took {seconds:.0f} s on the machine that built this page)*\n"
        return text

    def write(self, rel: str, text: str, lang: str = "text") -> str:
        """Write ``text`` to ``rel`` in the project; the file as a code block titled with its path."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return _fence(text, lang, rel)

    def show(self, rel: str, lang: str = "text", *, head: int | None = None) -> str:
        """A file of the project (its first ``head`` lines) as a code block titled with its path."""
        text = (self.root / rel).read_text(encoding="utf-8")
        lines = text.splitlines()
        if head is not None and len(lines) > head:
            lines = lines[:head] + [f"[... {len(lines) - head} more lines]"]
        return _fence("\n".join(lines), lang, rel)

    def json(self, rel: str):
        return json.loads((self.root / rel).read_text(encoding="utf-8"))

    def path(self, rel: str) -> Path:
        return self.root / rel

    def report_section(self, heading: str, *, until_level: int | None = None, figures_only: bool = False) -> str:
        """The section of the run's ``reports/report.md`` that starts at the line ``heading`` (or
        ``heading: ...``), up to the next heading of the same or a higher level (``until_level``), its headings
        demoted below the page's, its figures embedded (``figures_only``: nothing else)."""
        lines = (self.root / "reports" / "report.md").read_text(encoding="utf-8").splitlines()
        starts = [i for i, line in enumerate(lines) if line == heading or line.startswith(heading + ":")]
        if not starts:
            found = [line for line in lines if line.startswith("#")]
            raise LookupError(f"no section {heading!r} in reports/report.md; its headings: {found}")
        start = starts[0]
        level = until_level or len(heading) - len(heading.lstrip("#"))
        end = next(
            (
                i
                for i in range(start + 1, len(lines))
                if lines[i].startswith("#") and len(lines[i]) - len(lines[i].lstrip("#")) <= level
            ),
            len(lines),
        )
        out = []
        for line in lines[start + 1 : end]:
            image = re.match(r"!\[(.*)\]\((plots/[^)]+\.png)\)$", line.strip())
            if image:
                out.append(png(self.root / "reports" / image.group(2), image.group(1)))
            elif figures_only:
                continue
            elif line.startswith("#"):
                out.append("#" * min(6, len(line) - len(line.lstrip("#")) + 2) + line.lstrip("#"))
            else:  # links to the report's neighbours (cost.html, ../docs/...) mean nothing here: their text stays
                out.append(LOCAL_LINK.sub(r"\1", line))
        return "\n".join(out) + "\n"


def png(path: Path, alt: str) -> str:
    """The PNG file ``path`` (a figure the run wrote) as a Markdown image with a data URI."""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f"![{alt}](data:image/png;base64,{data})\n"


def figure(fig, alt: str) -> str:
    """A Matplotlib figure as a Markdown image with a PNG data URI (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f"![{alt}](data:image/png;base64,{data})\n"


def table(rows: list[dict], columns: list[str] | None = None) -> str:
    """``rows`` as a Markdown table."""
    columns = columns or list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def cleanup() -> None:
    while _MADE:
        shutil.rmtree(_MADE.pop(), ignore_errors=True)


atexit.register(cleanup)
