"""A worker of :class:`~.children._ChildLoggers`: ``python -m replearn.pipeline.tracking --log-children <job file>``."""

import os
import sys as _sys

from .children import _worker_main
from .store import close_stores

if len(_sys.argv) != 3 or _sys.argv[1] != "--log-children":
    _sys.exit("usage: python -m replearn.pipeline.tracking --log-children <job file, or - for standard input>")
_code = 0
try:
    _worker_main(_sys.argv[2])
except SystemExit as _exc:  # its error line is on stderr already
    _code = _exc.code if isinstance(_exc.code, int) else 1
# The stage waits for this process: end it without the interpreter's teardown of mlflow's heap (~0.3 s), once
# the store's connections are closed (SQLite checkpoints its write-ahead log) and the output is flushed.
close_stores()
_sys.stdout.flush()
_sys.stderr.flush()
os._exit(_code)
