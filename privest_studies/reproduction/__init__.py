"""The reproduction: every figure and table of the three papers judged, our outputs beside the papers' numbers.

A catalogue (workflow/report/papers.yaml) lists each paper's figures and tables and the in-text numbers NOTES 8 asks
for, with the files of ours that reproduce each and the checks that compare them. Nothing here reads a file:
scripts/reproduction.py loads the outputs, this package judges them, ``privest_studies.rendering`` writes the report.

- ``records``: the statuses, a comparison, a check's outcome, a judged item;
- ``placeholders``: the catalogue's {config...}, {scale...} and {published...} filled in;
- ``printed``: numbers in short form, and equal to the paper's to its printed precision;
- ``checks_ibu``, ``checks_counts``, ``checks_free_will``: the checks of each paper's items, each a function of the
  outputs and the config;
- ``checks``: all of them by name (``CHECKS``), as the catalogue names them;
- ``judging``: one catalogue entry through its checks to an item with a status.

Imports point down in that order.
"""

from privest_studies.reproduction.checks import CHECKS, SHOWN_ONLY
from privest_studies.reproduction.checks_counts import (
    counts_objectives,
    counts_published,
    flowchart,
    properties_table,
    um_chance,
)
from privest_studies.reproduction.checks_free_will import fw_findings, fw_verdicts
from privest_studies.reproduction.checks_ibu import (
    ESTIMATORS,
    SIMILAR_HISTORY,
    adult_persons,
    comparable,
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
from privest_studies.reproduction.judging import judge, status_of
from privest_studies.reproduction.placeholders import fill, lookup, show
from privest_studies.reproduction.printed import as_printed, as_printed_tolerance, fmt, printed_decimals
from privest_studies.reproduction.records import (
    AGREES,
    BUILT,
    BY_CONSTRUCTION,
    CONSTRUCTED,
    DIFFERS,
    DISAGREES,
    NOT_JUDGED,
    REPRODUCED,
    STATUSES,
    UNAVAILABLE,
    UNDECIDED,
    UNDECIDED_NUMBER,
    VERDICTS,
    Comparison,
    Item,
    Outcome,
    Outputs,
    identity_of,
)

__all__ = [
    "AGREES",
    "BUILT",
    "BY_CONSTRUCTION",
    "CHECKS",
    "CONSTRUCTED",
    "DIFFERS",
    "DISAGREES",
    "ESTIMATORS",
    "NOT_JUDGED",
    "REPRODUCED",
    "SHOWN_ONLY",
    "SIMILAR_HISTORY",
    "STATUSES",
    "UNAVAILABLE",
    "UNDECIDED",
    "UNDECIDED_NUMBER",
    "VERDICTS",
    "Comparison",
    "Item",
    "Outcome",
    "Outputs",
    "adult_persons",
    "as_printed",
    "as_printed_tolerance",
    "comparable",
    "counts_objectives",
    "counts_published",
    "fig08_emd",
    "fill",
    "fixed_points",
    "flowchart",
    "fmt",
    "fw_findings",
    "fw_verdicts",
    "ibu_better",
    "ibu_emd",
    "identity_of",
    "judge",
    "likely",
    "lookup",
    "planar_checkins",
    "printed_decimals",
    "properties_table",
    "ranking",
    "rappor_concavity",
    "section7_6",
    "show",
    "similar",
    "status_of",
    "surfaces",
    "um_chance",
]
