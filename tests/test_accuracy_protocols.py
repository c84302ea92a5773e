"""benchmarks/accuracy_protocols.py's verdict rules on made-up distances: each verdict reached and each missed, the
confirmatory design's simultaneous z as scipy's normal quantile, the issue's claim judged only on the small-eps rows,
and one cell's distances the same on a rerun."""

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
import accuracy_protocols as ap

Z = 1.96


def distances(gibu_minus_other: np.ndarray, other: float = 0.2) -> np.ndarray:
    """(runs, 3) distances of GIBU, INV-P and INV-N, INV-P and INV-N both at ``other``."""
    return np.column_stack([other + gibu_minus_other, np.full_like(gibu_minus_other, other),
                            np.full_like(gibu_minus_other, other)])


def spread(mean: float, sd: float, runs: int = 400) -> np.ndarray:
    """``runs`` differences of exactly this mean and sample standard deviation."""
    z = np.random.default_rng(0).standard_normal(runs)
    return mean + sd * (z - z.mean()) / z.std(ddof=1)


@pytest.mark.parametrize(("mean", "sd", "margin", "verdict"), [
    (-0.01, 0.01, 0.01, "closer"),
    (+0.01, 0.01, 0.01, "farther"),
    (0.0, 0.0153, 0.01, "level"),  # half-width 0.0015, inside +-0.002 (1% of 0.2)
    (0.0, 0.0255, 0.01, "undecided"),  # half-width 0.0025 reaches past +-0.002
    (+0.0002, 0.05, None, "level"),  # the pilot: no margin, holding 0 is level
    (-0.0012, 0.01, 0.01, "closer"),  # closer wins over level where the interval is below 0 and within the margin
])
def test_verdicts(mean, sd, margin, verdict):
    errors = distances(spread(mean, sd))
    text, found = ap.compared(errors, 1, Z, margin)
    assert found == verdict
    half = Z * sd / np.sqrt(len(errors))
    shown = [float(part) for part in text.replace("[", " ").replace("]", " ").replace(",", " ").split()]
    assert shown == pytest.approx([mean, mean - half, mean + half], abs=5e-5)


def test_confirmatory_z_is_the_bonferroni_normal_quantile():
    comparisons = 2 * 51
    z = ap.NormalDist().inv_cdf(1 - 0.05 / 2 / comparisons)
    assert z == pytest.approx(stats.norm.ppf(1 - 0.025 / comparisons), rel=1e-12)
    assert z == pytest.approx(3.486, abs=5e-4)  # the record's header


@pytest.mark.parametrize(("verdicts", "judged"), [
    ({0.5: "closer", 1.0: "closer", 2.0: "farther"}, "holds"),  # eps 2 is not a small eps
    ({0.5: "closer", 1.0: "level", 2.0: "closer"}, "holds in part"),
    ({0.5: "undecided", 1.0: "closer", 2.0: "closer"}, "holds in part"),
    ({0.5: "closer", 1.0: "farther", 2.0: "closer"}, "refuted"),
])
def test_claim(verdicts, judged):
    assert ap.claim(list(verdicts.items()), "X").endswith(f"**{judged}**.")


def test_a_cell_reruns_the_same():
    first = ap.errors_of(ap.single("l_grr", 1.0), ap.PILOT, 2)
    assert first.shape == (2, 3) and np.all(np.isfinite(first)) and np.all(first > 0)
    np.testing.assert_array_equal(first, ap.errors_of(ap.single("l_grr", 1.0), ap.PILOT, 2))
    assert not np.array_equal(first, ap.errors_of(ap.single("l_grr", 1.0), ap.CONFIRMATORY, 2))
