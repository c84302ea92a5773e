"""benchmarks/compare_scores.py on tiny scores tables: Welch's interval and p-value as scipy's own test gives them,
a shifted cell found, Holm's correction, cells on one side only left out."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
import compare_scores as cs


def scores(values: dict[tuple[str, int], np.ndarray]) -> pd.DataFrame:
    return pd.DataFrame([{"study": "s", "dataset": dataset, "n": n, "run": run, "method": "GIBU", "emd": v}
                         for (dataset, n), column in values.items() for run, v in enumerate(column)])


def test_welch_interval_and_p_value_are_scipys():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1.0, 0.2, 20), rng.normal(1.1, 0.4, 15)
    table = cs.cells(scores({("d", 10): a}), scores({("d", 10): b}), "emd", 0.95)
    row = table.iloc[0]
    welch = stats.ttest_ind(b, a, equal_var=False)
    interval = welch.confidence_interval(0.95)
    assert row["p"] == pytest.approx(welch.pvalue, rel=1e-10)
    assert (row["low"], row["high"]) == pytest.approx((interval.low, interval.high), rel=1e-10)
    assert row["difference"] == pytest.approx(b.mean() - a.mean())


def test_a_shifted_cell_differs_and_an_equal_one_does_not():
    rng = np.random.default_rng(2)
    old = scores({("d", 10): rng.normal(1, 0.1, 30), ("d", 20): rng.normal(1, 0.1, 30)})
    new = scores({("d", 10): rng.normal(1, 0.1, 30), ("d", 20): rng.normal(2, 0.1, 30)})
    table = cs.cells(old, new, "emd", 0.95).set_index("n")
    assert not table.loc[10, "differs"] and table.loc[20, "differs"] and table.loc[20, "differs_holm"]
    text = cs.markdown(table.reset_index(), "emd", 0.95, "old", "new")
    assert "2 cells; 1 differ at 95%" in text and "1 still differ after Holm" in text


def test_holm_steps_down():
    assert cs._holm(np.array([0.01, 0.04, 0.03, 0.5]), 0.05).tolist() == [True, False, False, False]
    assert cs._holm(np.array([0.001, 0.012, 0.02]), 0.05).tolist() == [True, True, True]


def test_cells_on_one_side_or_with_one_run_are_left_out(tmp_path):
    old = scores({("d", 10): np.array([1.0, 1.1, 0.9]), ("d", 20): np.array([1.0])})
    new = scores({("d", 10): np.array([1.0, 1.2, 0.8]), ("e", 10): np.array([1.0, 2.0])})
    table = cs.cells(old, new, "emd", 0.95)
    assert table[["dataset", "n"]].values.tolist() == [["d", 10]]
    old.to_csv(tmp_path / "old.csv", index=False)
    new.to_csv(tmp_path / "new.csv", index=False)
    assert cs.main([str(tmp_path / "old.csv"), str(tmp_path / "new.csv"), "--out", str(tmp_path / "c.md")]) == 0
    assert "1 cells" in (tmp_path / "c.md").read_text()
    with pytest.raises(SystemExit):
        cs.main([str(tmp_path / "old.csv"), str(tmp_path / "new.csv"), "--score", "nope"])
