"""The checks of the catalogue: each compares the paper's numbers or claims for one item with ours.

A check is a function of the pipeline's outputs (``outputs``: a mapping from a path under results/ to its loaded table
or JSON), the config and the catalogue's arguments; it returns an ``Outcome``: the comparisons it made, and why the
paper's setting cannot be run here (empty when it can). Nothing here reads a file. ``CHECKS`` names them for the
catalogue (``checks:`` of an item in workflow/report/papers.yaml).
"""

from collections.abc import Callable

from privest_studies.reproduction.checks_beyond import sw_or_geometric
from privest_studies.reproduction.checks_counts import (
    counts_close,
    counts_objectives,
    counts_ordering,
    counts_published,
    counts_scores,
    flowchart,
    optimal_properties,
    properties_table,
    um_chance,
)
from privest_studies.reproduction.checks_free_will import fw_findings, fw_noninformative, fw_propositions, fw_verdicts
from privest_studies.reproduction.checks_ibu import (
    adult_persons,
    fig08_emd,
    fixed_points,
    ibu_better,
    ibu_emd,
    likely,
    planar_checkins,
    ranking,
    rappor_concavity,
    section7_6,
    similar,
    surfaces,
)
from privest_studies.reproduction.records import Outcome

SHOWN_ONLY = frozenset({"ibu_emd"})
"""Checks that show our numbers where the paper prints neither a number nor a claim, and judge none (each of their
comparisons is not judged; tests/test_verdicts_can_fail.py holds them to it)."""

CHECKS: dict[str, Callable[..., Outcome]] = {f.__name__: f for f in (
    adult_persons, planar_checkins, fig08_emd, ranking, ibu_better, similar, ibu_emd, surfaces, rappor_concavity,
    fixed_points, section7_6, likely, counts_published, properties_table, flowchart, counts_objectives, um_chance,
    optimal_properties, counts_ordering, counts_close, counts_scores,
    fw_findings, fw_verdicts, fw_propositions, fw_noninformative, sw_or_geometric,
)}
