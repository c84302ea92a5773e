"""The contradicting cases of the report's checks (issue 45, item 8): for every check kind of the catalogue
(workflow/report/papers.yaml), tiny outputs on which the paper's claim holds, and a change of them that contradicts
the claim. tests/test_verdicts_can_fail.py runs both through the real judging code (``reproduction.judge``): the
first must be judged ``reproduced``, the second anything but. A check that cannot fail fails there.

The cases of each paper live beside this file: verdict_cases_ibu.py, verdict_cases_counts.py and
verdict_cases_free_will.py, each a list ``CASES``.
"""

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from privest_studies import reproduction

Outputs = dict[str, Any]


@dataclass(frozen=True)
class Case:
    """One check kind on tiny outputs: ``outputs()`` builds outputs (path under results/ -> table or JSON) on which
    the claim holds; ``contradict(outputs)`` changes them (in place, on a deep copy) so that the claim fails, as
    ``change`` says in words. ``config`` holds the config sections the check reads; ``args`` the catalogue's
    arguments. ``shown_only``: a check of ``reproduction.SHOWN_ONLY``, which shows numbers and judges none; its
    case shows that nothing it makes is judged, on either outputs."""

    check: str
    change: str
    outputs: Callable[[], Outputs]
    contradict: Callable[[Outputs], None]
    args: Mapping[str, Any] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)
    shown_only: bool = False

    @property
    def id(self) -> str:
        return f"{self.check}: {self.change}"


def judged(case: Case, outputs: Outputs, checks: Mapping[str, Callable] | None = None) -> reproduction.Item:
    """The case's check judged as a catalogue item through ``reproduction.judge`` (``checks`` replaces the registry:
    the harness's own test passes a check that cannot fail)."""
    entry = {"item": case.check, "title": case.change, "checks": [{case.check: dict(case.args)}]}
    if checks is None:
        return reproduction.judge("study", "paper", entry, [], outputs, case.config, {})
    saved = dict(reproduction.CHECKS)
    reproduction.CHECKS.clear()
    reproduction.CHECKS.update(checks)
    try:
        return reproduction.judge("study", "paper", entry, [], outputs, case.config, {})
    finally:
        reproduction.CHECKS.clear()
        reproduction.CHECKS.update(saved)


def assert_can_fail(case: Case, checks: Mapping[str, Callable] | None = None) -> None:
    """The claim holds on the case's outputs (status reproduced, every judged comparison agrees) and not on the
    contradicted copy (status differs or undecided at this scale)."""
    holding = case.outputs()
    item = judged(case, holding, checks)
    if case.shown_only:
        contradicted = copy.deepcopy(holding)
        case.contradict(contradicted)
        for outputs in (holding, contradicted):
            item = judged(case, outputs, checks)
            assert item.comparisons and all(c.verdict == reproduction.NOT_JUDGED for c in item.comparisons), (
                f"{case.id}: a check that only shows numbers judged one")
        return
    assert item.status == reproduction.REPRODUCED, (
        f"{case.id}: the uncontradicted outputs are judged {item.status!r}: {item.why}; "
        + "; ".join(f"{c.quantity}: {c.verdict}" for c in item.comparisons))
    contradicted = copy.deepcopy(holding)
    case.contradict(contradicted)
    item = judged(case, contradicted, checks)
    assert item.status in (reproduction.DIFFERS, reproduction.UNDECIDED), (
        f"{case.id}: the contradicted outputs are still judged {item.status!r}: the check cannot fail this way")
