"""Numeric mechanisms: each user's number (an age, an income, hours a week) in [lo, hi] reported as one number under
eps-LDP, and the server's estimates from the reports: the mean (unbiased), its variance and confidence interval, and a
histogram on equal cells of [lo, hi] by EM or EMS.

- ``square_wave`` (Li et al., SIGMOD 2020), built for distributions: its histogram by EMS (EM with a smoothing step)
  or plain EM on the discretised channel;
- ``piecewise`` and ``hybrid`` (Wang et al., ICDE 2019) and ``duchi`` (Duchi, Jordan and Wainwright, JASA 2018),
  built for means; the same EM on their discretised channels gives their maximum-likelihood histogram.

Each mechanism has ``sample(values, rng)``, ``mean(reports)``, ``estimate_variance(reports)``,
``mean_interval(reports, level)``, ``distribution(reports, bins, smoothing=...)``, the closed forms ``variance`` and
``cdf``, and ``channel(bins)`` (the k x m matrix the EM runs on); ``privest.audit`` takes one as its subject.

>>> import numpy as np
>>> from privest import numeric, rng_for
>>> rng = rng_for(2026, "numeric package doctest")
>>> hours = rng.uniform(20, 60, 100_000)
>>> pm = numeric.piecewise(1.0, lo=0, hi=100)
>>> interval = pm.mean_interval(pm.sample(hours, rng))
>>> bool(interval.lower < hours.mean() < interval.upper)
True
"""

from privest.numeric.base import EPS_MAX, EPS_MIN, MeanInterval, NumericHistogram, NumericMechanism
from privest.numeric.mechanisms import (
    HYBRID_THRESHOLD,
    Duchi,
    Hybrid,
    Piecewise,
    SquareWave,
    duchi,
    hybrid,
    piecewise,
    square_wave,
)

__all__ = [
    "EPS_MAX",
    "EPS_MIN",
    "HYBRID_THRESHOLD",
    "Duchi",
    "Hybrid",
    "MeanInterval",
    "NumericHistogram",
    "NumericMechanism",
    "Piecewise",
    "SquareWave",
    "duchi",
    "hybrid",
    "piecewise",
    "square_wave",
]
