"""privest_studies.ibu_theory: INV's expected squared error (IBU paper section 7.6) against closed forms, full
enumeration of the multinomial, and the propositions' bounds."""

import itertools
import math

import numpy as np
import pytest

from privest import mechanisms
from privest.sampling import rng_for
from privest_studies import ibu_theory, tables


def test_the_formulas_give_277_28_and_7818_5_not_the_printed_227_28_and_7238():
    """decisions.md, section 8: the paper prints 227.28/n and 7238/n; its own formulas give these."""
    assert ibu_theory.inv_krr_upper_bound(100, 2.0) == pytest.approx(277.2812534690527, rel=1e-12)
    assert ibu_theory.inv_geometric_lower_bound(0.05) == pytest.approx(7818.545619659913, rel=1e-12)
    alpha, beta = math.exp(-0.05), 1 / (1 - math.exp(-0.05))
    assert ibu_theory.inv_geometric_lower_bound(0.05) == pytest.approx(beta**3 - 2 * alpha * beta**2 - 2, rel=1e-14)
    with pytest.raises(ValueError, match="alpha"):
        ibu_theory.inv_geometric_lower_bound(1.0)  # e^-1 < 1/2


def enumerated_error(M: np.ndarray, theta: np.ndarray, n: int) -> float:
    """n E||v - theta||^2 by summing over every outcome of Multinomial(n, theta M)."""
    m = theta @ M
    k = len(m)
    total = 0.0
    for cells in itertools.combinations_with_replacement(range(k), n):
        counts = np.bincount(cells, minlength=k)
        probability = math.factorial(n) / math.prod(math.factorial(c) for c in counts) * np.prod(m**counts)
        v = np.linalg.solve(M.T, counts / n)
        total += probability * ((v - theta) ** 2).sum()
    return n * total


@pytest.mark.parametrize("M", [mechanisms.krr(3, 1.0), mechanisms.geometric(3, 0.4),
                               np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]])])
def test_exact_error_equals_the_enumerated_expectation(M):
    theta = np.array([0.5, 0.2, 0.3])
    assert ibu_theory.inv_error_exact(M, theta) == pytest.approx(enumerated_error(M, theta, 5), rel=1e-10)


def test_exact_error_of_krr_has_its_closed_form_and_stays_below_the_bound():
    rng = rng_for(0, "test", "krr-error")
    for k, eps in [(2, 0.5), (10, 1.0), (100, 2.0)]:
        for theta in [np.full(k, 1 / k), np.eye(k)[0], rng.dirichlet(np.ones(k))]:
            exact = ibu_theory.inv_error_exact(mechanisms.krr(k, eps), theta)
            assert exact == pytest.approx(ibu_theory.inv_krr_error(k, eps, theta), rel=1e-9)
            assert exact <= ibu_theory.inv_krr_upper_bound(k, eps)


def test_exact_error_of_the_geometric_mechanism_is_above_the_lower_bound():
    rng = rng_for(0, "test", "geometric-error")
    for k, eps in [(20, 0.3), (100, 0.05), (100, 0.1)]:
        for theta in [np.full(k, 1 / k), np.eye(k)[k // 2], rng.dirichlet(np.ones(k))]:
            exact = ibu_theory.inv_error_exact(mechanisms.geometric(k, eps), theta)
            assert exact >= ibu_theory.inv_geometric_lower_bound(eps)


def test_simulated_error_agrees_with_the_exact_error():
    theta = rng_for(0, "test", "theta").dirichlet(np.ones(8))
    M = mechanisms.geometric(8, 0.5)
    errors = ibu_theory.inv_errors_simulated(M, theta, 1000, 4000, rng_for(0, "test", "simulated"))
    se = errors.std(ddof=1) / math.sqrt(errors.size)
    assert abs(errors.mean() - ibu_theory.inv_error_exact(M, theta)) < 4 * se


def test_markdown_table_writes_header_rule_and_rows():
    text = tables.markdown_table([{"a": 1, "b": 0.5}, {"a": 2, "b": 1 / 3}], ["b", "a"])
    assert text == "| b | a |\n|---|---|\n| 0.5 | 1 |\n| 0.333333 | 2 |\n"
