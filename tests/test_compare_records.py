"""benchmarks/compare_records.py on tiny records: each match and each class of change of 'ours' is found."""

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
import compare_records as cr


def numbers(rows: list[tuple], verdicts: bool) -> pd.DataFrame:
    """A reproduction_numbers table: (item, quantity, ours, agrees) rows of one study; with ``verdicts`` the newer
    layout (a verdict column)."""
    table = pd.DataFrame([{"study": "s", "item": item, "quantity": q, "paper": "p", "ours": o, "tolerance": "t",
                           "agrees": a} for item, q, o, a in rows])
    if verdicts:
        table["verdict"] = table["agrees"].map({True: "agrees", False: "differs"}).fillna("undecided")
    return table


def test_numbers_are_read_as_printed():
    found = cr.numbers_in("48,842 persons; ratio 2.70 [2.47, 2.93], z = -1.5, 2.8e-16; 1-a; P(1 | 1)")
    assert [n.value for n in found] == [48842, 2.70, 2.47, 2.93, -1.5, 2.8e-16, 1, 1, 1]
    assert found[1].half_unit == pytest.approx(0.005) and found[5].half_unit == pytest.approx(5e-18)


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("Bad  (ratios 2.4)", "Bad (ratios 2.4)", cr.SAME_TEXT),
    ("ratio 2.7", "the ratio is 2.70", cr.SAME_REWORDED),
    ("Bad (ratios 2.7, 1.87)", "Bad (2.70 [2.47, 2.93], 1.87 [1.82, 1.92])", cr.WITH_INTERVALS),
    ("holds in 2 of 2", "holds in 2 of 2, at n = 1000", cr.MORE_NUMBERS),
    ("2.9e-16; 8.3x faster", "2.8e-16; 8.3x faster", cr.CHANGED),
    ("ratio 2.34", "ratio 2.35 [2.1, 2.6]", cr.CHANGED),
])
def test_value_classes(old, new, expected):
    assert cr.value_class(old, new) == expected


def test_pairs_by_quantity_key_and_sole_leftover():
    old = numbers([("A", "x: one", "1.5", True), ("B", "t=1: a; n", "6.3333; n = 7", True),
                   ("C", "old claim", "holds in 4 of 4", True), ("D", "gone", "3", True),
                   ("D", "gone too", "4", False)], verdicts=False)
    new = numbers([("A", "x:  one", "1.5 [1.2, 1.8]", True), ("B", "t=1: n", "n = 7", True),
                   ("B", "t=1: a", "6.3333", None), ("C", "new claim", "holds in 4 of 4", True),
                   ("D", "other", "5", True)], verdicts=True)
    pairs = cr.pair_numbers(old, new).set_index("item")
    assert pairs.loc["A", "match"] == cr.SAME_QUANTITY and pairs.loc["A", "change"] == cr.WITH_INTERVALS
    assert pairs.loc["B", "match"] == cr.SPLIT and pairs.loc["B", "new_count"] == 2
    assert pairs.loc["B", "change"] == cr.SAME_REWORDED and pairs.loc["B", "new_verdict"] == "agrees; undecided"
    assert pairs.loc["C", "match"] == cr.REWORDED and pairs.loc["C", "change"] == cr.SAME_TEXT
    assert sorted(pairs.loc["D", "match"]) == [cr.DROPPED, cr.DROPPED, cr.NEW]
    assert pairs.loc["A", "old_verdict"] == "agrees"


def test_markdown_lists_moved_items_and_counts_every_number():
    items_old = pd.DataFrame([{"study": "s", "item": "A", "status": "reproduced", "why": ""},
                              {"study": "s", "item": "B", "status": "differs", "why": "x 1"}])
    items_new = pd.DataFrame([{"study": "s", "item": "A", "status": "undecided at this scale", "why": "y"},
                              {"study": "s", "item": "B", "status": "differs", "why": "x 1.0 [0.9, 1.1]"},
                              {"study": "t", "item": "C", "status": "built, nothing to check", "why": ""}])
    old = numbers([("A", "q", "2.34", True), ("A", "r", "5", True)], verdicts=False)
    new = numbers([("A", "q", "1.44 [1.35, 1.53]", None), ("A", "r", "5", True)], verdicts=True)
    text = cr.markdown(items_old, items_new, old, new, "old", "new")
    assert "## Items whose status changed (2)" in text
    assert "| s | A | reproduced | **undecided at this scale** |" in text
    assert "## Items whose status held and whose 'why' changed (1)" in text
    assert "| same quantity | values changed | 1 | 1 |" in text and "| same quantity | same text | 1 | 1 |" in text
    assert "| s | A | q |  | same quantity | values changed | 2.34 | 1.44 [1.35, 1.53] | agrees → undecided |" in text
