"""Speed measurements, run as modules: ``python -m benchmarks.NAME`` (docs/benchmarks.md)."""
