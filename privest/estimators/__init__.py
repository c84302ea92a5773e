"""Estimators of the original distribution theta from privatised reports (free-will sections 4-6, IBU paper 3 and 8).

Reports of one mechanism enter as a ``Group`` (``privest.groups``): the columns of the mechanism for the observables
that were reported, and how often each was reported. A matrix mechanism's group is its matrix and the counts of its
columns. A set-valued protocol's reports form a ``SetGroup`` (its distinct sets) or, where a report is k bits (SUE,
OUE, SS) and for RAPPOR, a ``BitGroup`` (its distinct bit vectors, packed). GIBU (free-will Algorithm 1) works on any
list of groups; IBU is GIBU with one group.

One module per estimator family, re-exported here (import from ``privest.estimators``; the split is invisible):

================  ===================================================================================================
``iterative``     IBU, GIBU (Algorithm 1), SQUAREM, the batches over runs, the normalised log-likelihood
``_iteration``    the iteration engine behind them (plain loop, block loop, compiled loop, SQUAREM, batch); private
``_calls``        what to call instead: one line for a wrong call (a protocol where a matrix is needed, ...); private
``_bits``         GIBU's likelihood on bit-packed reports (byte-sliced tables, one pass); private
``inversion``     INV (eq. 7), one LU factorisation for all runs; its variance and normal intervals
``mixtures``      [INV]_M and [IBU]_M on the average mechanism, [e]_R
``closed_form``   the k-RR MLE in closed form
``rappor``        RAP and [RAP]_M (eqs. 13-14)
``likely``        likely subsets (IBU paper section 8)
``bootstrap``     the parametric bootstrap of IBU/GIBU: percentile intervals, on the boundary too
================  ===================================================================================================

The groups (``Group``, ``SetGroup``, ``BitGroup``, ``matrix_group``, ``rappor_group``) live in ``privest.groups`` and
the simplex post-processing (``project_simplex``, ``normalise``, ``post_process``, ``POSTS``) in ``privest.simplex``,
below both this package and ``privest.protocols``; both are re-exported here as before. The modules are not named after
the functions they hold (``iterative``, not ``ibu``) so that ``privest.estimators.ibu`` is always the function.
"""

from privest.estimators._iteration import COMPILED_KERNEL, IbuResult
from privest.estimators.bootstrap import bootstrap
from privest.estimators.closed_form import krr_mle
from privest.estimators.inversion import CONDITION_LIMIT, inv, inv_interval, inv_runs, inv_variance
from privest.estimators.iterative import (
    PLAIN_IBU,
    Accelerate,
    Stop,
    gibu,
    gibu_matrix_runs,
    ibu,
    ibu_runs,
    log_likelihood,
    squarem,
)
from privest.estimators.likely import likely_subset_krr, likely_subset_linear, likely_subset_planar
from privest.estimators.mixtures import combine_results, ibu_m, inv_m
from privest.estimators.rappor import rap, rap_grouped
from privest.groups import BitGroup, Group, GroupLike, SetGroup, matrix_group, rappor_group
from privest.simplex import POSTS, Post, normalise, post_process, project_simplex

__all__ = [
    "COMPILED_KERNEL",
    "CONDITION_LIMIT",
    "PLAIN_IBU",
    "POSTS",
    "Accelerate",
    "BitGroup",
    "Group",
    "GroupLike",
    "IbuResult",
    "Post",
    "SetGroup",
    "Stop",
    "bootstrap",
    "combine_results",
    "gibu",
    "gibu_matrix_runs",
    "ibu",
    "ibu_m",
    "ibu_runs",
    "inv",
    "inv_interval",
    "inv_m",
    "inv_runs",
    "inv_variance",
    "krr_mle",
    "likely_subset_krr",
    "likely_subset_linear",
    "likely_subset_planar",
    "log_likelihood",
    "matrix_group",
    "normalise",
    "post_process",
    "project_simplex",
    "rap",
    "rap_grouped",
    "rappor_group",
    "squarem",
]
