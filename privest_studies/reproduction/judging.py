"""Judging one catalogue item: run its checks on the outputs and give it a status (see ``records``)."""

from collections.abc import Mapping, Sequence
from typing import Any

from privest_studies.reproduction.checks import CHECKS
from privest_studies.reproduction.records import BUILT, DIFFERS, REPRODUCED, UNAVAILABLE, Comparison, Item, Outputs


def status_of(comparisons: Sequence[Comparison], unavailable: str) -> tuple[str, str]:
    """An item's status and why, from its comparisons (see ``records``)."""
    failed = [c for c in comparisons if c.agrees is False]
    if failed:
        return DIFFERS, "; ".join(f"{c.quantity}: paper {c.paper}, ours {c.ours}" for c in failed)
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
    comparisons, unavailable = [], []
    for spec in entry.get("checks", []):
        (name, args), = spec.items()
        if name not in CHECKS:
            raise ValueError(f"{entry['item']}: unknown check {name!r} (known: {', '.join(CHECKS)})")
        outcome = CHECKS[name](outputs, config, **(args or {}))
        comparisons += outcome.comparisons
        unavailable += [outcome.unavailable] if outcome.unavailable else []
    status, why = status_of(comparisons, "; ".join(dict.fromkeys(unavailable)))
    if status == BUILT and entry.get("unchecked"):
        why = entry["unchecked"]
    return Item(**base, status=status, why=why, comparisons=comparisons)
