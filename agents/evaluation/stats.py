"""The statistics of an evaluation: intervals over clustered samples and league ratings.

Uncertainty (95%, two-sided), each result treating series as the independent units (deal
sequences, two series each, in duplicate mode):

- series win rate: Wilson score interval; in duplicate mode with the effective sample size
  ``p (1 - p) / var`` where ``var`` is the variance of the mean over deal sequences;
- per-hand quantities (hand win rate, points per hand): ratio estimators over series
  (``sum over series / hands``) with the cluster (ratio-estimator) standard error, a Wilson
  interval at the effective sample size for the rate and a normal interval for points;
- league ratings: a Bradley-Terry model on series results (Elo scale, mean 0), fitted with
  a prior of one drawn series per pair (half a win each way) so that a clean sweep gives a
  finite rating; the interval holds the 2.5-97.5 percentiles of the ratings refitted on
  win probabilities drawn (seeded) from every pair's Jeffreys posterior
  ``Beta(wins + 1/2, losses + 1/2)``, so a sweep keeps a wide, one-sided-looking interval.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054
ELO_SCALE = 400.0 / math.log(10.0)
RATING_METHOD = (
    "Bradley-Terry on series results (Elo scale: 400 log10 strength, mean 0), MM fit with a "
    "prior of one drawn series per pair; 95% interval: 2.5-97.5 percentiles of the ratings "
    "refitted on {n} seeded draws of every pair's win probability from its Jeffreys posterior "
    "Beta(wins + 1/2, losses + 1/2)"
)


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return (low, high)


def ratio_standard_error(values: np.ndarray, sizes: np.ndarray) -> float:
    """Standard error of ``sum(values) / sum(sizes)`` over independent clusters.

    The cluster (linearised ratio-estimator) formula; 0 with fewer than two clusters.
    """
    values = np.asarray(values, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    k, total = values.size, sizes.sum()
    if k < 2 or total <= 0:
        return 0.0
    ratio = values.sum() / total
    resid = values - ratio * sizes
    return float(math.sqrt(k / (k - 1) * (resid**2).sum()) / total)


def clustered_rate_interval(
    successes: np.ndarray, trials: np.ndarray
) -> tuple[float, tuple[float, float]]:
    """A rate over clusters and its Wilson interval at the clusters' effective sample size.

    Args:
        successes: per cluster successes.
        trials: per cluster trials.

    Returns:
        ``(rate, (low, high))``.
    """
    n = float(np.sum(trials))
    if n <= 0:
        return 0.0, (0.0, 1.0)
    rate = float(np.sum(successes)) / n
    se = ratio_standard_error(successes, trials)
    n_eff = n
    if se > 0 and 0 < rate < 1:
        n_eff = min(rate * (1 - rate) / se**2, n * len(trials))  # design-effect adjusted
    return rate, wilson_interval(rate * n_eff, n_eff)


def mean_interval(values: np.ndarray, sizes: np.ndarray) -> tuple[float, tuple[float, float]]:
    """``sum(values) / sum(sizes)`` with a normal 95% interval from the cluster standard error."""
    total = float(np.sum(sizes))
    mean = float(np.sum(values)) / total if total > 0 else 0.0
    half = Z95 * ratio_standard_error(values, sizes)
    return mean, (mean - half, mean + half)


def bradley_terry(wins: np.ndarray, prior: float = 0.5, iterations: int = 500) -> np.ndarray:
    """Bradley-Terry ratings (Elo scale, mean 0) from win counts, batched.

    Args:
        wins: ``float[..., K, K]``, ``wins[i, j]`` = series i won against j.
        prior: virtual wins added each way for every pair (keeps sweeps finite).
        iterations: MM iterations (Hunter 2004).

    Returns:
        ``float[..., K]`` ratings.
    """
    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[-1]
    off = 1.0 - np.eye(k)
    w = wins + prior * off
    games = w + np.swapaxes(w, -1, -2)
    total_wins = w.sum(axis=-1)
    strength = np.ones(wins.shape[:-1])
    for _ in range(iterations):
        denom = (games / (strength[..., :, None] + strength[..., None, :])).sum(axis=-1)
        strength = total_wins / denom
        strength /= np.exp(np.log(strength).mean(axis=-1, keepdims=True))
    rating = ELO_SCALE * np.log(strength)
    return rating - rating.mean(axis=-1, keepdims=True)


def rating_draws(wins: np.ndarray, n_draws: int, seed: int) -> np.ndarray:
    """``float[n_draws, K]`` ratings refitted under each pair's Jeffreys posterior.

    Each draw replaces every pair's series record by ``n`` series won with a probability
    drawn from ``Beta(wins + 1/2, losses + 1/2)`` and refits Bradley-Terry (no extra
    prior). Unlike a plain bootstrap, a clean sweep keeps an honest, wide interval.
    """
    rng = np.random.default_rng(seed)
    k = wins.shape[0]
    i, j = np.triu_indices(k, 1)
    games = wins[i, j] + wins[j, i]
    p = rng.beta(wins[i, j] + 0.5, wins[j, i] + 0.5, size=(n_draws, i.size))
    p = np.clip(p, 1e-9, 1 - 1e-9)  # a float draw of exactly 0 or 1 has no finite rating
    draws = np.zeros((n_draws, k, k))
    draws[:, i, j] = p * games
    draws[:, j, i] = (1 - p) * games
    return bradley_terry(draws, prior=0.0)
