"""Every verdict of the reproduction report can fail (issue 45, item 8): each check kind the catalogue uses has a
case whose contradicting change of its input table moves the verdict away from agrees, through the real judging
code (tests/verdict_cases.py)."""

from pathlib import Path

import pytest
import verdict_cases
import verdict_cases_beyond
import verdict_cases_counts
import verdict_cases_free_will
import verdict_cases_ibu
import yaml

from privest_studies import reproduction

CASES = (verdict_cases_ibu.CASES + verdict_cases_counts.CASES + verdict_cases_free_will.CASES
         + verdict_cases_beyond.CASES)
CATALOGUE = Path(__file__).resolve().parents[1] / "workflow" / "report" / "papers.yaml"


def catalogue_check_kinds() -> set[str]:
    """Every check name an item of the catalogue uses."""
    papers = yaml.safe_load(CATALOGUE.read_text())
    return {name for study in papers.values() for entry in study.get("items", []) for spec in entry.get("checks", [])
            for name in spec}


def test_every_check_kind_of_the_catalogue_has_a_contradicting_case():
    """A new check kind fails here until it has a case."""
    kinds = catalogue_check_kinds() | set(reproduction.CHECKS)
    covered = {case.check for case in CASES}
    assert not kinds - covered, f"check kinds without a contradicting case: {sorted(kinds - covered)}"


def test_the_checks_that_judge_nothing_are_named_and_shown_only():
    assert {case.check for case in CASES if case.shown_only} == set(reproduction.SHOWN_ONLY)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_a_contradicting_change_moves_the_verdict_away_from_agrees(case):
    verdict_cases.assert_can_fail(case)


def test_a_check_that_cannot_fail_fails_the_harness():
    """Shown once: the first case's check replaced by one that always agrees is caught."""
    case = next(case for case in CASES if not case.shown_only)

    def always_agrees(outputs, config, **args):
        return reproduction.Outcome([reproduction.Comparison("anything", "holds", "holds", "none", True)])

    with pytest.raises(AssertionError, match="cannot fail"):
        verdict_cases.assert_can_fail(case, {**reproduction.CHECKS, case.check: always_agrees})
