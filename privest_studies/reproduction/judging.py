"""Judging one catalogue item: run its checks on the outputs and give it a status (see ``records``)."""

from collections.abc import Mapping, Sequence
from typing import Any

from privest_studies.reproduction.checks import CHECKS
from privest_studies.reproduction.records import (
    AGREES,
    BUILT,
    BY_CONSTRUCTION,
    CONSTRUCTED,
    DIFFERS,
    DISAGREES,
    REPRODUCED,
    UNAVAILABLE,
    UNDECIDED,
    UNDECIDED_NUMBER,
    Comparison,
    Item,
    Outputs,
)


def status_of(comparisons: Sequence[Comparison], unavailable: str) -> tuple[str, str]:
    """An item's status and why, from its comparisons (see ``records``)."""
    failed = [c for c in comparisons if c.verdict == DISAGREES]
    if failed:
        return DIFFERS, "; ".join(f"{c.quantity}: paper {c.paper}, ours {c.ours}" for c in failed)
    open_ = [c for c in comparisons if c.verdict == UNDECIDED_NUMBER]
    if open_:
        return UNDECIDED, "; ".join(f"{c.quantity}: paper {c.paper}, ours {c.ours} ({c.tolerance})" for c in open_)
    constructed = [c for c in comparisons if c.verdict == CONSTRUCTED]
    if constructed:
        genuine = sum(c.verdict == AGREES for c in comparisons)
        return BY_CONSTRUCTION, "; ".join(f"{c.quantity}: {c.construction}" for c in constructed) + (
            f"; the other {genuine} judged numbers agree" if genuine else "; nothing else is judged")
    if unavailable:
        return UNAVAILABLE, unavailable
    if any(c.agrees for c in comparisons):
        return REPRODUCED, ""
    return BUILT, "the paper prints no number or claim we can judge"


def judge(study: str, paper: str, entry: Mapping[str, Any], files: list[str], outputs: Outputs,
          config: Mapping[str, Any], facts: Mapping[str, str]) -> Item:
    """One catalogue entry (already filled from the config) judged on the outputs."""
    base = dict(study=study, paper=paper, item=entry["item"], section=str(entry.get("section", "")),
                title=entry["title"], files=files, facts=dict(facts))
    if "not_reproducible" in entry:
        return Item(**base, status=UNAVAILABLE, why=entry["not_reproducible"])
    comparisons, unavailable, tallies = [], [], []
    for spec in entry.get("checks", []):
        (name, args), = spec.items()
        if name not in CHECKS:
            raise ValueError(f"{entry['item']}: unknown check {name!r} (known: {', '.join(CHECKS)})")
        outcome = CHECKS[name](outputs, config, **(args or {}))
        comparisons += outcome.comparisons
        unavailable += [outcome.unavailable] if outcome.unavailable else []
        tallies += [outcome.tally] if outcome.tally else []
    status, why = status_of(comparisons, "; ".join(dict.fromkeys(unavailable)))
    if status == BUILT and entry.get("unchecked"):
        why = entry["unchecked"]
    return Item(**base, status=status, why=why, comparisons=comparisons, tally="; ".join(tallies))
