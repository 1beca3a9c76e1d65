"""Search at play time: the determinized rollout search ``pimc`` and its series value table.

``pimc`` (``agents.search.pimc``) is a batched policy registered by name with its
parameters in the name (``pimc:worlds=64,rollout=simple``); ``agents.search.series_value``
prices a score sheet by the chance of winning the series. See docs/search.md.
"""

from __future__ import annotations

from agents.search.pimc import PimcParams, PimcPolicy, make_pimc, parse_params
from agents.search.series_value import series_values

__all__ = ["PimcParams", "PimcPolicy", "make_pimc", "parse_params", "series_values"]
