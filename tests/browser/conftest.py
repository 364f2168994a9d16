"""Registers the `browser` marker for the tests of this folder (also declared in pyproject.toml)."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "browser: renders pages in headless Chromium (skipped where it is not installed)"
    )
