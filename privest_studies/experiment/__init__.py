"""The one experiment chain of every study: mechanisms -> perturb -> estimate (one job per estimator family) -> score.

An ``Experiment`` (``spec``) is a dataset on an alphabet, the mechanisms it uses, the points of its x axis (eps, or the
number of users n), the runs per point and the estimator families applied to the reports. Every estimator family is
named once, in ``FAMILIES`` (``families``): the methods it computes from one pass over the reports of one point. A
family that cannot run on a point (INV on a singular matrix, RAP on matrix reports, ...) gives NaN estimates and the
reason, the papers' "NA".

One idea a module, each importing only those before it:

    mechanisms  the kinds, a member, the built mechanisms and their npz (rule mechanisms)
    families    what each estimator family computes from one point's reports, and its NA
    spec        Point and Experiment: plain data, checked against the kinds and the families
    reports     perturb: every (point, run)'s reports, their npz, read back run by run (rule perturb)
    estimates   estimate: one family on every point and run, in units of work (rule estimate), or on one part of a
                split job (rule estimate_part), and the parts gathered
    scores      score: one tidy row per (point, run, method) (rule score)

The scripts and the studies import this package (``from privest_studies import experiment``), never the modules.
"""

from privest_studies.experiment.estimates import Part, estimate, estimate_part, gather, parts
from privest_studies.experiment.families import (
    FAMILIES,
    ITERATIVE,
    RAW_SUFFIX,
    RUN_BY_RUN_KINDS,
    Estimate,
    Family,
    FamilyResult,
    estimate_family,
    refused,
    rounds_refusal,
)
from privest_studies.experiment.mechanisms import (
    HASHED_KINDS,
    KIND_NAMES,
    KIND_OPTIONS,
    LONGITUDINAL_KINDS,
    MECHANISM_KINDS,
    MEMBER_OPTIONS,
    NUMERIC_KINDS,
    PROTOCOL_KINDS,
    Member,
    NumericOnBins,
    bounds_of,
    build_mechanisms,
    describe,
    is_numeric,
    is_protocol,
    mechanism_k,
    mechanisms_from_arrays,
    mechanisms_to_arrays,
    protocol,
)
from privest_studies.experiment.reports import (
    PointRuns,
    perturb,
    population_reports,
    reports_from_arrays,
    reports_to_arrays,
    run_to_arrays,
)
from privest_studies.experiment.scores import MEAN_COLUMNS, SCORE_COLUMNS, error_column, score
from privest_studies.experiment.spec import Experiment, Point

__all__ = [
    "FAMILIES",
    "HASHED_KINDS",
    "ITERATIVE",
    "KIND_NAMES",
    "KIND_OPTIONS",
    "LONGITUDINAL_KINDS",
    "MEAN_COLUMNS",
    "MECHANISM_KINDS",
    "MEMBER_OPTIONS",
    "NUMERIC_KINDS",
    "PROTOCOL_KINDS",
    "RAW_SUFFIX",
    "RUN_BY_RUN_KINDS",
    "SCORE_COLUMNS",
    "Estimate",
    "Experiment",
    "Family",
    "FamilyResult",
    "Member",
    "NumericOnBins",
    "Part",
    "Point",
    "PointRuns",
    "bounds_of",
    "build_mechanisms",
    "describe",
    "error_column",
    "estimate",
    "estimate_family",
    "estimate_part",
    "gather",
    "is_numeric",
    "is_protocol",
    "mechanism_k",
    "mechanisms_from_arrays",
    "mechanisms_to_arrays",
    "parts",
    "perturb",
    "population_reports",
    "protocol",
    "refused",
    "reports_from_arrays",
    "reports_to_arrays",
    "rounds_refusal",
    "run_to_arrays",
    "score",
]
