"""Search at play time: the determinized rollout search ``pimc`` and its named versions.

``pimc`` is a batched policy registered by name with its parameters in the name
(``pimc:worlds=64,rollout=simple``): ``params`` parses them, ``pimc`` decides,
``rollouts`` plays the sampled worlds out, ``worlds`` deals them, ``series_value`` prices a
score sheet by the chance of winning the series, and ``searchers`` holds the named
versions ``searcher@1..4``. See docs/search.md.
"""

from __future__ import annotations

from agents.search.params import PimcParams, parse_params
from agents.search.pimc import PimcPolicy, make_pimc
from agents.search.series_value import series_values

__all__ = ["PimcParams", "PimcPolicy", "make_pimc", "parse_params", "series_values"]
