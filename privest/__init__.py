"""privest: estimate the distribution of users' data from their locally private reports.

Each user perturbs their value before reporting it (a local differential privacy mechanism or protocol); privest
simulates the users' side and, on the server's side, estimates the distribution theta of the original values from
the reports, with confidence intervals. numpy in, numpy out: a mechanism is a row-stochastic matrix
``A[x, z] = P(z | x)`` (rows: the k secrets, columns: what a user can report), a distribution a 1-D float64 array
summing to 1, and every random draw takes an explicit ``numpy.random.Generator`` (``rng_for(seed, *keys)`` makes a
reproducible one). Importing privest loads numpy only.

A mechanism, its users' reports, and the maximum-likelihood estimate (IBU):

>>> import numpy as np
>>> import privest
>>> A = privest.krr(4, eps=1.0)                            # k-RR on 4 secrets
>>> rng = privest.rng_for(2026, "doctest")
>>> counts = privest.sample_counts(A, np.array([400, 300, 200, 100]), rng)   # the users' reports, counted
>>> theta = privest.ibu(A, counts).theta                   # the MLE of theta, on the simplex
>>> bool(abs(theta.sum() - 1.0) < 1e-12)
True

The main entry points:

- mechanisms (matrices): ``krr``, ``geometric``, ``laplace``, ``exponential``, ``planar_geometric``,
  ``planar_laplace``, and ``by_name``; their privacy levels: ``is_ldp``, ``ldp_level``;
- protocols, the standard LDP frequency oracles: ``grr``, ``sue``, ``oue``, ``blh``, ``olh``, ``ss``, ``hr``,
  histogram encoding ``she`` and ``the``, and ``adp`` (GRR or OUE, whichever is better at (k, eps))
  (``privest.oue`` is ``privest.protocols.oue``; ``protocol_by_name`` looks one up), each with
  ``sample(secrets, rng)``, ``likelihood(reports)``, ``estimate(reports, post=...)`` and ``interval(reports)``;
- the users' reports of a matrix mechanism: ``sample_counts``; RAPPOR's: ``sample_rappor``;
- estimators: ``inv`` (INV-N, INV-P), ``ibu`` (the MLE from one mechanism or protocol), ``gibu`` (the MLE from any
  mix of matrices, RAPPOR and protocols), ``krr_mle`` (k-RR in closed form), ``rap`` (RAPPOR's own), and for mixtures
  ``combine_results``, ``inv_m``, ``ibu_m``; error bars from ``ibu(...).interval()``, ``inv_interval`` and
  ``bootstrap``; the consistency post-processings as ``post=`` (``consistency``); an estimator given what it cannot
  take names the call that can;
- numbers rather than categories (``privest.numeric``): Square Wave with EMS, Piecewise, Hybrid and Duchi, with the
  mean, its interval and a histogram on equal cells of [lo, hi];
- heavy hitters on domains too large to enumerate (``privest.heavy_hitters``): PEM, TreeHist and Apple's SFP on
  the sketch oracles, with ``precision``, ``recall`` and ``ncr`` against the true top items;
- scores: ``emd_1d``, ``emd`` (on a grid), ``total_variation`` (``signed=True`` for a raw unbiased estimate); an
  empirical privacy check of a client: ``audit``.

Where two things would share a name, a module keeps it: ``privest.rappor`` and ``privest.shokri`` are modules
(Shokri et al.'s mechanism is ``privest.shokri.shokri``); ``privest.krr`` is k-RR's matrix and ``privest.grr`` the
same channel as a protocol; the count paper's mechanisms (column-stochastic) stay in ``privest.counts``.

Each function's docstring (``help(privest.gibu)``) gives its shapes, its stopping rule and the equation of the paper
it implements. The documentation site, with a user guide (which estimator for which case, the protocols, the
performance against multi-freq-ldpy and pure-LDP), a gallery of runnable examples and the API reference of every
public name, is built from the repository by ``make docs`` (open ``docs/site/_build/html/index.html``); the scripts
of ``examples/`` start from ``examples/quickstart.py``.
"""

__version__ = "0.1.0"  # the one place of the version: pyproject.toml reads it (tool.setuptools.dynamic)

from privest import (
    alphabets,
    auditing,
    consistency,
    counts,
    estimators,
    groups,
    heavy_hitters,
    intervals,
    lp,
    mechanisms,
    metrics,
    numeric,
    protocols,
    rappor,
    sampling,
    shokri,
    simplex,
)
from privest.alphabets import Alphabet, Grid, linear_distances
from privest.auditing import AuditResult, audit
from privest.consistency import base_cut, base_pos, norm, norm_cut, norm_mul, norm_sub, post_pos, power, power_ns
from privest.counts import by_name as count_mechanism_by_name
from privest.estimators import (
    BitGroup,
    Group,
    IbuResult,
    SetGroup,
    bootstrap,
    combine_results,
    gibu,
    ibu,
    ibu_m,
    ibu_runs,
    inv,
    inv_interval,
    inv_m,
    inv_runs,
    inv_variance,
    krr_mle,
    matrix_group,
    normalise,
    project_simplex,
    rap,
    rap_grouped,
    rappor_group,
)
from privest.intervals import Interval
from privest.mechanisms import (
    average,
    by_name,
    check_row_stochastic,
    exponential,
    geo_indistinguishability_level,
    geometric,
    geometric_untruncated,
    is_geo_indistinguishable,
    is_ldp,
    krr,
    laplace,
    ldp_level,
    planar_geometric,
    planar_geometric_remapped,
    planar_laplace,
)
from privest.mechanisms import by_name as mechanism_by_name
from privest.metrics import emd, emd_1d, total_variation
from privest.protocols import Protocol, adp, blh, grr, hr, olh, oue, she, ss, sue, the
from privest.protocols import by_name as protocol_by_name
from privest.rappor import RapporReports
from privest.sampling import Rappor, population, rng_for, sample, sample_counts, split_users
from privest.sampling import rappor as sample_rappor

__all__ = [
    "Alphabet",
    "AuditResult",
    "BitGroup",
    "Grid",
    "Group",
    "IbuResult",
    "Interval",
    "Protocol",
    "Rappor",
    "RapporReports",
    "SetGroup",
    "__version__",
    "adp",
    "alphabets",
    "audit",
    "auditing",
    "average",
    "base_cut",
    "base_pos",
    "blh",
    "bootstrap",
    "by_name",
    "check_row_stochastic",
    "combine_results",
    "consistency",
    "count_mechanism_by_name",
    "counts",
    "emd",
    "emd_1d",
    "estimators",
    "exponential",
    "geo_indistinguishability_level",
    "geometric",
    "geometric_untruncated",
    "gibu",
    "groups",
    "grr",
    "heavy_hitters",
    "hr",
    "ibu",
    "ibu_m",
    "ibu_runs",
    "intervals",
    "inv",
    "inv_interval",
    "inv_m",
    "inv_runs",
    "inv_variance",
    "is_geo_indistinguishable",
    "is_ldp",
    "krr",
    "krr_mle",
    "laplace",
    "ldp_level",
    "linear_distances",
    "lp",
    "matrix_group",
    "mechanism_by_name",
    "mechanisms",
    "metrics",
    "norm",
    "norm_cut",
    "norm_mul",
    "norm_sub",
    "normalise",
    "numeric",
    "olh",
    "oue",
    "planar_geometric",
    "planar_geometric_remapped",
    "planar_laplace",
    "population",
    "post_pos",
    "power",
    "power_ns",
    "project_simplex",
    "protocol_by_name",
    "protocols",
    "rap",
    "rap_grouped",
    "rappor",
    "rappor_group",
    "rng_for",
    "sample",
    "sample_counts",
    "sample_rappor",
    "sampling",
    "she",
    "shokri",
    "simplex",
    "split_users",
    "ss",
    "sue",
    "the",
    "total_variation",
]
