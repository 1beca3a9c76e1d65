"""Measurements behind the docs, not part of the toolkit: ``python -m experiments.NAME``."""
