"""Reference files checked against their ``SHA256SUMS`` before use (standard library only).

A directory of vendored reference files (``data/reference/``) holds a ``SHA256SUMS`` file in ``sha256sum``
format (``<hex digest>  <file name>``); :func:`reference_path` checks a listed file's digest before handing out its
path, so an edited reference file cannot silently change a reproduced number or a prepared corpus. Used by the
reproductions' readers and by the sequence family's corpora.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .exceptions import DataValidationError

CHECKSUMS = "SHA256SUMS"


def reference_path(data_dir, name: str) -> Path:
    """The path of reference file ``name``, its sha256 checked against ``SHA256SUMS`` if listed."""
    data_dir = Path(data_dir)
    path = data_dir / name
    if not path.is_file():
        raise FileNotFoundError(f"reference file {name!r} not found in {data_dir}")
    sums = data_dir / CHECKSUMS
    if sums.is_file():
        expected = _checksums(sums).get(name)
        if expected is not None:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if digest != expected:
                raise DataValidationError(
                    f"{path}: sha256 {digest[:12]}... does not match {sums.name} ({expected[:12]}...); "
                    "the reference file was modified"
                )
    return path


def _checksums(path: Path) -> dict[str, str]:
    table = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 2 and not line.startswith("#"):
            table[parts[1].lstrip("*")] = parts[0].lower()
    return table
