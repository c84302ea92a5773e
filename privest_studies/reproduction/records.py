"""The records of the reproduction report: the four statuses an item can have, one comparison of a paper's number
with ours, what a check found, and one judged item.

An item's status, from its comparisons (``judging.status_of``):
- ``differs``: a comparison with the paper fails its stated tolerance;
- ``not reproducible here``: the catalogue says why (a diagram, a table of notation), or a check found the paper's
  data unavailable here (the Manhattan box without the full SNAP file) while no comparison failed;
- ``reproduced``: every judged comparison holds;
- ``built, nothing to check``: our files exist but the paper prints no number or claim we can judge.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REPRODUCED, DIFFERS, UNAVAILABLE, BUILT = "reproduced", "differs", "not reproducible here", "built, nothing to check"
STATUSES = (REPRODUCED, DIFFERS, UNAVAILABLE, BUILT)


@dataclass(frozen=True)
class Comparison:
    """One number or claim of the paper beside ours. ``agrees`` is None when it is shown but not judged."""

    quantity: str
    paper: str
    ours: str
    tolerance: str
    agrees: bool | None


@dataclass(frozen=True)
class Outcome:
    """What a check found: its comparisons, and why the paper's setting cannot be run here (empty when it can)."""

    comparisons: list[Comparison]
    unavailable: str = ""


@dataclass(frozen=True)
class Item:
    """One figure, table or in-text result of a paper, judged."""

    study: str
    paper: str
    item: str
    section: str
    title: str
    files: list[str]
    status: str
    why: str
    comparisons: list[Comparison] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)


Outputs = Mapping[str, Any]
"""What a check reads: each output of the pipeline, keyed by its path under results/, as a loaded table or JSON."""
