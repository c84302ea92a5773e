"""privest: estimate the original distribution of data from privatised reports.

numpy in, numpy out. A mechanism is a row-stochastic matrix ``A[x, z] = P(z | x)`` (rows: secrets, columns:
observables); distributions are 1-D float64 arrays summing to 1; every random draw takes an explicit
``numpy.random.Generator``. Importing privest loads numpy only: the LP solver (Shokri's mechanism, the count paper's
LPs) and POT (EMD on a grid) load when first used.

>>> import numpy as np
>>> import privest
>>> A = privest.krr(4, eps=1.0)                            # k-RR on 4 secrets (free-will eq. 1)
>>> rng = privest.rng_for(2026, "doctest")
>>> counts = privest.sample_counts(A, np.array([400, 300, 200, 100]), rng)
>>> theta = privest.ibu(A, counts).theta                   # IBU (free-will eq. 10)
>>> bool(abs(theta.sum() - 1.0) < 1e-12)
True

Modules: ``alphabets`` (linear ranges and planar grids), ``mechanisms`` (matrix mechanisms and their privacy
levels), ``protocols`` (the standard LDP frequency oracles GRR, SUE, OUE, BLH, OLH, SS and HR: sampling, exact
likelihood, unbiased estimators), ``rappor`` (basic one-time RAPPOR reports), ``sampling`` (the users' reports),
``estimators`` (INV, IBU, GIBU over any mix of matrices and protocols, the k-RR MLE, RAP and likely subsets),
``metrics`` (EMD), ``counts`` (the count-data paper's mechanisms and LPs), ``shokri`` (Shokri et al.'s optimal
mechanism), ``lp`` (linear programs on HiGHS, loaded with the first LP), ``groups`` (the reports of one mechanism as
GIBU's likelihood takes them), ``simplex`` (INV-P's projection and INV-N's normalisation), ``consistency`` (the
NDSS 2020 consistency post-processings: Base-Pos, Base-Cut, Norm, Norm-Mul, Norm-Cut, Norm-Sub, Power, PowerNS, the
``post=`` choices of every unbiased estimator), ``intervals`` (confidence intervals: ``Interval``) and ``auditing``
(``audit``: an empirical lower bound on the eps a client gives, from its reports). ``mechanisms``, ``protocols`` and
``estimators`` are packages, one family a module, that re-export everything: import from the package.

One namespace: every mechanism and protocol is ``privest.<name>``, the matrix mechanisms (``privest.krr``,
``privest.geometric``, ...) beside the protocols' constructors (``privest.grr``, ``privest.sue``, ``privest.oue``,
``privest.blh``, ``privest.olh``, ``privest.ss``, ``privest.hr``: what ``privest.protocols.oue`` is) and their type
``privest.Protocol``; ``ibu``, ``gibu`` and ``bootstrap`` take either (``privest.ibu(privest.oue(k, eps),
reports)``), and an estimator given what it cannot take names the call that can. Where two things share a name, the
rule is:

- A module keeps its name. ``privest.rappor`` and ``privest.shokri`` are the modules, as they always were (``from
  privest import shokri`` imports the module); the function a module is named after is one level down
  (``privest.shokri.shokri``, also ``privest.mechanisms.shokri``). RAPPOR's sampler ``privest.sampling.rappor`` is
  ``privest.sample_rappor`` here, beside ``sample`` and ``sample_counts``, and its mechanism (for ``population``)
  ``privest.Rappor``.
- A matrix and a protocol are told apart by case and name, never by position: ``privest.krr`` is k-RR's matrix,
  ``privest.grr`` the same channel as a protocol (reports, not counts); the protocol classes (``GRR``, ``OUE``, ...)
  stay in ``privest.protocols``, their constructors are what the top level exports.
- The count paper's mechanisms (``gm``, ``em``, ``wm``, ``um``: column-stochastic, another convention) stay in
  ``privest.counts``.

Three lookups by name, one per family: ``by_name`` here is the matrix mechanisms' (``privest.mechanisms.by_name``,
also ``mechanism_by_name``), kept under that name for compatibility; ``protocol_by_name`` is
``privest.protocols.by_name`` (the set-valued protocols) and ``count_mechanism_by_name`` is ``privest.counts.by_name``
(the count paper's mechanisms).

The house (STYLE.md): imports point down in one order, each module importing only modules before it, and
``tests/test_layout.py`` walks them:

    _checks -> metrics -> alphabets -> simplex -> consistency -> intervals -> rappor -> groups -> lp -> shokri
    -> mechanisms -> sampling -> protocols -> estimators -> counts -> auditing -> privest

(inside the packages: mechanisms linear, planar, properties -> lookup; protocols xxh32 -> packed -> base -> response,
unary, subsets, hashing -> factories; estimators _calls -> _bits, _sets -> _iteration -> iterative -> inversion ->
mixtures, closed_form, rappor, likely, bootstrap). Validators live in ``privest._checks``; privest never imports the
study code (``privest_studies``), the workflow or the scripts.
"""

__version__ = "0.1.0"  # the one place of the version: pyproject.toml reads it (tool.setuptools.dynamic)

from privest import (
    alphabets,
    auditing,
    consistency,
    counts,
    estimators,
    groups,
    intervals,
    lp,
    mechanisms,
    metrics,
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
from privest.protocols import Protocol, blh, grr, hr, olh, oue, ss, sue
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
    "shokri",
    "simplex",
    "split_users",
    "ss",
    "sue",
    "total_variation",
]
