"""Shared fixtures. Tests never read ../shared: fixtures they need live in tests/fixtures/."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT
