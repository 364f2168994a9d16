"""Every random choice in a run is seeded from the one ``seed`` in the config.

``derive_seed(seed, "split", "iris")`` gives a 32-bit seed that depends only on the base seed and the
names, never on the order in which things run: adding a dataset or a model, or running folds in
parallel, leaves every other seed unchanged.
"""

from __future__ import annotations

import zlib

import numpy as np


def derive_seed(seed: int, *keys: str | int) -> int:
    """A deterministic 32-bit seed for the component named by ``keys``."""
    words = [int(seed) & 0xFFFFFFFF] + [zlib.crc32(str(k).encode("utf-8")) for k in keys]
    return int(np.random.SeedSequence(words).generate_state(1)[0])
