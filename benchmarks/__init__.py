"""Timing benchmarks of replearn against scikit-learn (``python -m benchmarks.run_all``)."""
