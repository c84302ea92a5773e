"""The records of the reproduction report: the statuses an item can have, one comparison of a paper's number with
ours, what a check found, and one judged item.

A comparison's verdict (``Comparison.verdict``): agrees, differs, undecided at this scale (our interval crosses the
paper's threshold: more runs could turn it either way), consistent by construction (the printed number fixed one of
our parameters, so it cannot fail), or not judged (shown only).

An item's status, from its comparisons (``judging.status_of``), the first that applies:
- ``differs``: a comparison with the paper fails its stated tolerance;
- ``undecided at this scale``: none fails, and one is undecided;
- ``consistent by construction``: none fails or is undecided, and one agrees only because the paper's number fixed
  a parameter of ours (the row says which, and what else was judged);
- ``not reproducible here``: the catalogue says why (a diagram, a table of notation), or a check found the paper's
  data unavailable here (the Manhattan box without the full SNAP file) while no comparison failed;
- ``reproduced``: every judged comparison holds;
- ``built, nothing to check``: our files exist but the paper prints no number or claim we can judge.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REPRODUCED, DIFFERS, UNAVAILABLE, BUILT = "reproduced", "differs", "not reproducible here", "built, nothing to check"
UNDECIDED, BY_CONSTRUCTION = "undecided at this scale", "consistent by construction"
STATUSES = (REPRODUCED, DIFFERS, UNDECIDED, BY_CONSTRUCTION, UNAVAILABLE, BUILT)

AGREES, DISAGREES, UNDECIDED_NUMBER, CONSTRUCTED, NOT_JUDGED = (
    "agrees", "differs", "undecided", "by construction", "not judged")
VERDICTS = (AGREES, DISAGREES, UNDECIDED_NUMBER, CONSTRUCTED, NOT_JUDGED)


@dataclass(frozen=True)
class Comparison:
    """One number or claim of the paper beside ours. ``agrees`` is None when it is shown but not judged, or when
    it is ``undecided`` (our interval crosses the paper's threshold); ``construction`` says which parameter of ours
    the paper's number fixed (so that it agrees by construction), empty when it did not. ``key`` names what is
    compared the same way at every scale (see ``identity``)."""

    quantity: str
    paper: str
    ours: str
    tolerance: str
    agrees: bool | None
    undecided: bool = False
    construction: str = ""
    key: str = ""

    def __post_init__(self) -> None:
        if self.undecided and self.agrees is not None:
            raise ValueError(f"{self.quantity}: an undecided comparison neither agrees nor differs")

    @property
    def identity(self) -> str:
        """What is compared, the same at every scale, so that two records pair their numbers (docs/*/changes.md):
        ``key`` when the check gives one, else the quantity with each number, or list of numbers, as '#' (a run
        count, the n and alpha of a grid)."""
        return self.key or identity_of(self.quantity)

    @property
    def verdict(self) -> str:
        """One of VERDICTS: differs wins over by construction (a broken formula still fails)."""
        if self.agrees is False:
            return DISAGREES
        if self.construction and self.agrees:
            return CONSTRUCTED
        if self.undecided:
            return UNDECIDED_NUMBER
        return AGREES if self.agrees else NOT_JUDGED


_NUMBER = r"-?\d+(?:,\d{3})*(?:\.\d+)?(?:e[+-]?\d+)?"
_NUMBERS = re.compile(rf"{_NUMBER}(?:,\s+{_NUMBER})*")


def identity_of(quantity: str) -> str:
    """A comparison's quantity with each number, or list of numbers ('2,000', '0.05', '2, 3, 5, 8'), as '#'."""
    return _NUMBERS.sub("#", quantity)
"""A number as a check writes it ('2,000', '0.05', '1e-06'), or a list of them ('2, 3, 5, 8')."""


@dataclass(frozen=True)
class Outcome:
    """What a check found: its comparisons, why the paper's setting cannot be run here (empty when it can), and a
    one-line tally of what it judged (e.g. a table's cells: '14 agree, 2 disagree, 4 undecided'), empty if none."""

    comparisons: list[Comparison]
    unavailable: str = ""
    tally: str = ""


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
    tally: str = ""


Outputs = Mapping[str, Any]
"""What a check reads: each output of the pipeline, keyed by its path under results/, as a loaded table or JSON."""
