"""Matrix mechanisms: closed forms and independent integrals first, then row sums, privacy, sampling and speed."""

import itertools
import math
import time

import numpy as np
import pytest
from scipy import integrate, special, stats

import privest
from privest import mechanisms as mech
from privest.alphabets import Alphabet, Grid, linear_distances
from privest.sampling import rng_for, sample

SAN_FRANCISCO = Grid(24, 16, 0.5)  # free-will 8.1: 384 cells of 0.5 km
SQUARE_5KM = Grid(5, 5, 1.0)  # IBU 6.4: 5 x 5 cells of 1 km
GI_RTOL = 1e-9


# --- closed forms and independent computations ------------------------------------------------------------------------


@pytest.mark.parametrize("k, eps", [(2, 0.5), (10, 1.0), (100, 3.0), (5, 800.0)])
def test_krr_entries_equal_eq1(k, eps):
    A = mech.krr(k, eps)
    if eps < 700:
        expected = np.where(np.eye(k, dtype=bool), math.exp(eps), 1.0) / (k - 1 + math.exp(eps))
    else:  # e^eps overflows: the limit is the identity up to e^-eps
        expected = np.where(np.eye(k, dtype=bool), 1.0, 0.0)
    np.testing.assert_allclose(A, expected, rtol=1e-14, atol=0 if eps < 700 else 1e-300)


@pytest.mark.parametrize("k, eps", [(2, 0.3), (7, 0.02), (100, 0.05), (100, 6.0)])
def test_geometric_entries_equal_eq2_eq3(k, eps):
    z = np.arange(k)
    c = np.where((z == 0) | (z == k - 1), 1.0, 1 - math.exp(-eps)) / (1 + math.exp(-eps))
    expected = c[None, :] * np.exp(-eps * np.abs(z[None, :] - z[:, None]))
    np.testing.assert_allclose(mech.geometric(k, eps), expected, rtol=1e-13, atol=0)


def test_geometric_border_columns_collect_the_untruncated_tails():
    # Truncation = remapping each report of the untruncated mechanism (IBU eq. 6) to the nearest element of X.
    k, eps = 12, 0.4
    wide = mech.geometric_untruncated(k, eps, -200, k - 1 + 200)  # e^{-0.4 * 200} is far below double precision
    inner = wide[:, 200:200 + k].copy()
    inner[:, 0] = wide[:, :201].sum(axis=1)
    inner[:, -1] = wide[:, 200 + k - 1:].sum(axis=1)
    np.testing.assert_allclose(mech.geometric(k, eps), inner, rtol=1e-13)


@pytest.mark.parametrize("eps, z_min, z_max", [(0.05, -30, 129), (0.5, 0, 99), (2.0, -3, 102)])
def test_geometric_untruncated_rows_miss_exactly_the_mass_outside_the_range(eps, z_min, z_max):
    k = 100
    A = mech.geometric_untruncated(k, eps, z_min, z_max)
    assert A.shape == (k, z_max - z_min + 1)
    x = np.arange(k)
    np.testing.assert_allclose(A[x, x - z_min], math.tanh(eps / 2), rtol=1e-14)  # z = x
    outside = (np.exp(-eps * (x - z_min + 1)) + np.exp(-eps * (z_max - x + 1))) / (1 + math.exp(-eps))
    np.testing.assert_allclose(A.sum(axis=1), 1 - outside, rtol=0, atol=1e-12)


def test_geometric_untruncated_columns_are_the_requested_integers():
    A = mech.geometric_untruncated(3, 1.0, -2, 4)
    c = math.tanh(0.5)
    assert A[0, 0] == pytest.approx(c * math.exp(-2), rel=1e-15)  # x = 0, z = -2
    assert A[2, 6] == pytest.approx(c * math.exp(-2), rel=1e-15)  # x = 2, z = 4
    assert A[1, 3] == pytest.approx(c, rel=1e-15)  # x = 1, z = 1


@pytest.mark.parametrize("eps", [0.01, 0.3, 6.0])
def test_laplace_entries_equal_quad_of_the_density(eps):
    k = 9

    def density(t: float, x: int) -> float:
        return eps / 2 * math.exp(-eps * abs(t - x))

    A = mech.laplace(k, eps)
    for x in (0, 4, 8):
        for z in range(k):
            lower = -math.inf if z == 0 else z - 0.5
            upper = math.inf if z == k - 1 else z + 0.5
            pieces = sorted({lower, upper, *([x] if lower < x < upper else [])})  # split at the kink of the density
            mass = sum(integrate.quad(density, a, b, args=(x,), epsabs=0, epsrel=1e-12)[0]
                       for a, b in itertools.pairwise(pieces))
            assert A[x, z] == pytest.approx(mass, rel=1e-10), (x, z)


@pytest.mark.parametrize("distances", [linear_distances(30), SQUARE_5KM.distances()], ids=["linear", "planar"])
def test_exponential_is_the_normalised_kernel(distances):
    eps = 0.7
    kernel = np.exp(-eps * distances / 2)
    np.testing.assert_allclose(mech.exponential(distances, eps), kernel / kernel.sum(axis=1, keepdims=True), rtol=1e-13)


def _lambda_planar_geometric(a: float) -> float:
    i = np.arange(-math.ceil(80 / a), math.ceil(80 / a) + 1, dtype=np.float64)  # e^-80: nothing left out
    return 1.0 / np.exp(-a * np.hypot(i[:, None], i[None, :])).sum()


@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_planar_geometric_far_from_border_equals_lambda_exp(eps):
    grid = Grid(41, 41, 0.5)
    A = mech.planar_geometric(grid, eps)
    x = grid.index(20, 20)
    column, row = np.meshgrid(np.arange(10, 31), np.arange(10, 31))
    z = grid.index(column.ravel(), row.ravel())
    expected = _lambda_planar_geometric(eps * grid.cell_km) * np.exp(-eps * grid.distances()[x, z])
    np.testing.assert_allclose(A[x, z], expected, rtol=1e-12)


def _brute_planar_geometric(grid: Grid, eps: float) -> np.ndarray:
    """Draw-by-draw definition: every point of a big window of the infinite grid, clamped to the grid."""
    a = eps * grid.cell_km
    reach = math.ceil(80 / a) + max(grid.columns, grid.rows)
    i = np.arange(-reach, reach + 1)
    east, north = np.meshgrid(i, i, indexing="ij")
    weight = np.exp(-a * np.hypot(east, north)).ravel()
    A = np.empty((grid.k, grid.k))
    for x in range(grid.k):
        cx, cy = grid.column_row(x)
        target = grid.index(np.clip(cx + east, 0, grid.columns - 1), np.clip(cy + north, 0, grid.rows - 1)).ravel()
        A[x] = np.bincount(target, weights=weight, minlength=grid.k)
    return A / weight.sum()


@pytest.mark.parametrize("grid, eps", [(Grid(4, 3, 1.0), 0.7), (Grid(2, 2, 0.5), 2.0), (Grid(1, 5, 0.5), 1.5),
                                       (Grid(3, 1, 2.0), 0.3), (Grid(1, 1, 1.0), 1.0)])
def test_planar_geometric_equals_brute_force_clamping_of_the_infinite_grid(grid, eps):
    np.testing.assert_allclose(mech.planar_geometric(grid, eps), _brute_planar_geometric(grid, eps), rtol=1e-12)


def _cell_bounds(grid: Grid, cell: int) -> tuple[float, float, float, float]:
    """The region in km reported as ``cell``: its square, border cells extending to infinity."""
    column, row = grid.column_row(cell)
    s = grid.cell_km
    east = (-math.inf if column == 0 else column * s, math.inf if column == grid.columns - 1 else (column + 1) * s)
    north = (-math.inf if row == 0 else row * s, math.inf if row == grid.rows - 1 else (row + 1) * s)
    return (*east, *north)


@pytest.mark.parametrize("eps", [0.19, 1.0, 6.0])
def test_planar_laplace_entries_match_dblquad(eps):
    grid = Grid(6, 5, 0.5)
    A = mech.planar_laplace(grid, eps)
    centres = grid.centres()

    def density(north: float, east: float, x_east: float, x_north: float) -> float:
        return eps**2 / (2 * math.pi) * math.exp(-eps * math.hypot(east - x_east, north - x_north))

    # the true cell, inner cells, a border strip, the two opposite corners (quadrants)
    for x, z in [(7, 7), (7, 14), (12, 17), (8, 9), (0, 0), (0, 29), (29, 0), (14, 5)]:
        e0, e1, n0, n1 = _cell_bounds(grid, z)
        mass, _ = integrate.dblquad(density, e0, e1, n0, n1, args=tuple(centres[x]), epsabs=1e-15, epsrel=1e-11)
        assert A[x, z] == pytest.approx(mass, rel=1e-6, abs=0), (x, z)


@pytest.mark.parametrize("eps", [0.19, 1.0, 6.0])
def test_planar_laplace_one_row_grid_equals_the_bessel_marginal(eps):
    # On one row of cells only the east coordinate matters: its marginal density is (eps^2/pi) |u| K_1(eps |u|).
    def marginal(u: float) -> float:
        return eps**2 / math.pi * abs(u) * special.k1(eps * abs(u)) if u != 0 else eps / math.pi

    for grid in (Grid(7, 1, 0.5), Grid(1, 7, 0.5)):
        A = mech.planar_laplace(grid, eps)
        for x in (0, 3):
            offsets = np.concatenate([[-math.inf], (np.arange(1, 7) - x - 0.5) * 0.5, [math.inf]])
            for z in range(7):
                pieces = sorted({offsets[z], offsets[z + 1], *([0.0] if offsets[z] < 0 < offsets[z + 1] else [])})
                mass = sum(integrate.quad(marginal, a, b, epsabs=0, epsrel=1e-13, limit=200)[0]
                           for a, b in itertools.pairwise(pieces))
                assert A[x, z] == pytest.approx(mass, rel=1e-10), (grid, x, z)


def test_rappor_flip_probability_equals_eq12():
    for eps in (0.1, 1.0, 7.0):
        p = mech.rappor_flip_probability(eps)
        assert p == pytest.approx(1 / (1 + math.exp(eps / 2)), rel=1e-15)
        assert ((1 - p) / p) ** 2 == pytest.approx(math.exp(eps), rel=1e-12)  # two bits differ: eps-LDP, tight


def test_average_is_the_weighted_sum_with_normalised_weights():
    A, B = mech.krr(5, 1.0), mech.geometric(5, 0.5)
    np.testing.assert_allclose(mech.average([A, B], [3, 1]), 0.75 * A + 0.25 * B, rtol=1e-15)
    np.testing.assert_allclose(mech.average([A, B]), 0.5 * (A + B), rtol=1e-15)


# --- every mechanism is row-stochastic ------------------------------------------------------------------------------


ROW_STOCHASTIC = {
    **{f"krr k={k} eps={eps}": (mech.krr, (k, eps)) for k in (2, 100) for eps in (0.02, 1.0, 8.0)},
    **{f"geometric k=100 eps={eps}": (mech.geometric, (100, eps)) for eps in (0.02, 0.3, 6.0)},
    **{f"laplace k=100 eps={eps}": (mech.laplace, (100, eps)) for eps in (0.01, 0.3, 6.0)},
    **{f"exponential linear eps={eps}": (mech.exponential, (linear_distances(100), eps)) for eps in (0.01, 6.0)},
    **{f"exponential planar eps={eps}": (mech.exponential, (SAN_FRANCISCO.distances(), eps)) for eps in (0.2, 6.0)},
    **{f"{name} 24x16 eps={eps}": (fn, (SAN_FRANCISCO, eps))
       for name, fn in (("planar_geometric", mech.planar_geometric), ("planar_laplace", mech.planar_laplace))
       for eps in (0.02, 0.19, 1.0, 3.124, 6.0)},
    "planar_geometric 5x5 1km eps=0.5": (mech.planar_geometric, (SQUARE_5KM, 0.5)),
    "planar_laplace 5x5 1km eps=0.5": (mech.planar_laplace, (SQUARE_5KM, 0.5)),
    "planar_geometric 1x9": (mech.planar_geometric, (Grid(1, 9, 0.5), 0.8)),
    "planar_laplace 2x1": (mech.planar_laplace, (Grid(2, 1, 0.5), 0.8)),
}


@pytest.mark.parametrize("build", ROW_STOCHASTIC.values(), ids=ROW_STOCHASTIC.keys())
def test_rows_sum_to_one_within_1e_12(build):
    fn, args = build
    A = fn(*args)
    assert A.dtype == np.float64 and A.shape[0] == A.shape[1]
    assert np.all(A > 0)
    np.testing.assert_allclose(A.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    mech.check_row_stochastic(A)


def test_geometric_untruncated_rows_sum_to_one_over_a_wide_range():
    A = mech.geometric_untruncated(100, 0.02, -1800, 1899)  # e^{-0.02 * 1800} / 2 ~ 1e-16 outside
    np.testing.assert_allclose(A.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# --- privacy --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k, eps", [(2, 0.5), (100, 0.02), (100, 3.0)])
def test_krr_is_exactly_eps_ldp(k, eps):
    A = mech.krr(k, eps)
    assert mech.is_ldp(A, eps, rtol=GI_RTOL)
    assert not mech.is_ldp(A, 0.99 * eps)
    assert mech.ldp_level(A) == pytest.approx(eps, rel=1e-12)


LINEAR_GEO = [(fn, eps) for fn in (mech.geometric, mech.laplace) for eps in (0.02, 0.3, 6.0)]


@pytest.mark.parametrize("fn, eps", LINEAR_GEO, ids=[f"{fn.__name__}-{eps}" for fn, eps in LINEAR_GEO])
def test_linear_geometric_and_laplace_are_tight_eps_d_geo_indistinguishable(fn, eps):
    d = linear_distances(100)
    A = fn(100, eps)
    assert mech.is_geo_indistinguishable(A, d, eps, rtol=GI_RTOL)
    # tight: the border cells see the whole tail, whose ratio between two secrets is exactly e^{eps d}
    assert mech.geo_indistinguishability_level(A, d) == pytest.approx(eps, rel=1e-9)


PLANAR_GEO = [(fn, grid, eps) for fn in (mech.planar_geometric, mech.planar_laplace, mech.exponential)
              for grid, eps in ((SAN_FRANCISCO, 0.19), (SAN_FRANCISCO, 1.0), (SAN_FRANCISCO, 6.0), (SQUARE_5KM, 0.5))]


@pytest.mark.parametrize("fn, grid, eps", PLANAR_GEO,
                         ids=[f"{fn.__name__}-{grid.columns}x{grid.rows}-{eps}" for fn, grid, eps in PLANAR_GEO])
def test_planar_mechanisms_are_eps_d_geo_indistinguishable_on_every_column(fn, grid, eps):
    d = grid.distances()
    A = fn(d, eps) if fn is mech.exponential else fn(grid, eps)
    assert mech.is_geo_indistinguishable(A, d, eps, rtol=GI_RTOL)
    assert not mech.is_geo_indistinguishable(A, d, eps / 2)


@pytest.mark.parametrize("distances", [linear_distances(100), SAN_FRANCISCO.distances()], ids=["linear", "planar"])
@pytest.mark.parametrize("eps", [0.02, 1.0, 6.0])
def test_exponential_guarantee_is_eps_d_not_eps_d_over_2(distances, eps):
    # The kernel e^{-eps d/2} contributes at most e^{eps d(x,x')/2} and the normaliser another e^{eps d(x,x')/2}
    # (triangle inequality): the guarantee is eps*d, and the normaliser really does use more than half of it.
    level = mech.geo_indistinguishability_level(mech.exponential(distances, eps), distances)
    assert eps / 2 < level <= eps * (1 + GI_RTOL)


def test_checkers_detect_violations():
    A = np.array([[0.6, 0.4], [0.3, 0.7]])  # column 0 ratio 2, column 1 ratio 1.75
    assert mech.ldp_level(A) == pytest.approx(math.log(2), rel=1e-15)
    assert mech.is_ldp(A, math.log(2)) and not mech.is_ldp(A, 0.69)
    d = np.array([[0.0, 2.0], [2.0, 0.0]])
    assert mech.geo_indistinguishability_level(A, d) == pytest.approx(math.log(2) / 2, rel=1e-15)
    assert mech.is_geo_indistinguishable(A, d, math.log(2) / 2) and not mech.is_geo_indistinguishable(A, d, 0.34)
    zeros = np.array([[1.0, 0.0], [0.5, 0.5]])
    assert mech.ldp_level(zeros) == math.inf and not mech.is_geo_indistinguishable(zeros, d, 100.0)
    assert mech.geo_indistinguishability_level(np.eye(2)[[0, 0]], d) == 0.0  # identical rows: no information


# --- sampling -----------------------------------------------------------------------------------------------------


def _assert_draws_follow(A: np.ndarray, rows: list[int], draws: int, key: str) -> None:
    """Empirical rows within 4 binomial standard errors of A (more when many entries are compared); zeros never drawn.

    Entries expected fewer than 100 times are pooled into one count, where the normal approximation still holds. With
    m entries compared, the bound is max(4, the two-sided Bonferroni quantile for a family-wise false alarm of 1e-3):
    4 s.e. on each of ~500 entries would fail a correct sampler about once in 30 runs (measured over 200 seeds).
    """
    rng = rng_for(2024, "test_mechanisms", key)
    secrets = np.repeat(np.array(rows), draws // len(rows))
    reports = sample(A, secrets, rng)
    z_scores = []
    for x in rows:
        n = int((secrets == x).sum())
        frequency = np.bincount(reports[secrets == x], minlength=A.shape[1]) / n
        p = A[x]
        assert np.all(frequency[p == 0] == 0), f"{key}: row {x} drew an impossible report"
        checked = n * p >= 100
        p = np.append(p[checked], p[~checked].sum())
        f = np.append(frequency[checked], frequency[~checked].sum())
        se = np.sqrt(p * (1 - p) / n)
        z_scores.append(np.abs(f - p) / np.where(se > 0, se, 1.0))
    z = np.concatenate(z_scores)
    bound = max(4.0, float(stats.norm.isf(1e-3 / (2 * z.size))))
    assert np.all(z <= bound), f"{key}: {int((z > bound).sum())} of {z.size} entries beyond {bound:.2f} s.e."


SAMPLED = {  # the mechanism and the secrets whose rows are checked: corners, borders, inner cells
    "krr": (lambda: mech.krr(100, 2.0), [0, 57, 99]),
    "geometric": (lambda: mech.geometric(100, 0.3), [0, 1, 50]),
    "laplace": (lambda: mech.laplace(100, 0.3), [0, 50, 99]),
    "exponential": (lambda: mech.exponential(SAN_FRANCISCO.distances(), 1.0), [0, 200]),
    "planar_geometric": (lambda: mech.planar_geometric(SAN_FRANCISCO, 1.0), [0, 192, 200]),
    "planar_laplace": (lambda: mech.planar_laplace(SAN_FRANCISCO, 1.0), [0, 192, 200]),
    "with_zeros": (lambda: np.array([[0.5, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]]), [0, 1, 2]),
}


@pytest.mark.parametrize("key", SAMPLED.keys())
def test_a_million_draws_follow_the_mechanism(key):
    build, rows = SAMPLED[key]
    _assert_draws_follow(build(), rows, 1_000_000, key)


# --- arguments, re-exports, speed ----------------------------------------------------------------------------------


@pytest.mark.parametrize("call, name", [
    (lambda: mech.krr(1, 1.0), "k"),
    (lambda: mech.krr(3, 0.0), "eps"),
    (lambda: mech.geometric(5, -1.0), "eps"),
    (lambda: mech.geometric(5, math.nan), "eps"),
    (lambda: mech.laplace(5, math.inf), "eps"),
    (lambda: mech.geometric_untruncated(5, 1.0, 3, 2), "z_max"),
    (lambda: mech.exponential(np.ones((3, 2)), 1.0), "distances"),
    (lambda: mech.exponential(-np.ones((3, 3)), 1.0), "distances"),
    (lambda: mech.planar_geometric(SQUARE_5KM, 0.0), "eps"),
    (lambda: mech.planar_geometric(SQUARE_5KM, 1e-6), "eps \\* cell_km"),
    (lambda: mech.planar_laplace(SQUARE_5KM, -2.0), "eps"),
    (lambda: mech.rappor_flip_probability(0.0), "eps"),
    (lambda: mech.average([], []), "mechanisms"),
    (lambda: mech.average([mech.krr(3, 1.0), mech.krr(4, 1.0)], [1, 1]), r"mechanisms\[1\]"),
    (lambda: mech.average([mech.krr(3, 1.0), np.ones((3, 3))], [1, 1]), r"mechanisms\[1\]"),
    (lambda: mech.average([mech.krr(3, 1.0)], [1, 1]), "weights"),
    (lambda: mech.average([mech.krr(3, 1.0)], [-1]), "weights"),
    (lambda: mech.check_row_stochastic(np.ones((2, 2)), name="Q"), "Q must be row-stochastic"),
    (lambda: mech.check_row_stochastic(np.array([[1.5, -0.5]]), name="Q"), "Q must be non-negative"),
    (lambda: mech.check_row_stochastic(np.ones(3), name="Q"), "Q must be a non-empty 2-D"),
    (lambda: mech.is_geo_indistinguishable(np.eye(2), np.zeros((3, 3)), 1.0), "distances"),
    (lambda: mech.is_ldp(np.eye(2), 0.0), "eps"),
])
def test_invalid_arguments_raise_value_errors_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("compiled", [True, False])
def test_the_one_pass_mechanism_check_finds_every_bad_entry_and_row(compiled, monkeypatch):
    # the compiled pass (privest._kernel.mechanism_summary, where built) and numpy's give the same verdicts, messages
    # and column maxima, at a width with a vector part and a tail (k = 3, m = 11)
    from privest import _checks

    if not compiled:
        monkeypatch.setattr(_checks, "_kernel", None)
    elif _checks._kernel is None:
        pytest.skip("privest._kernel is not built")
    rng = np.random.default_rng(5)
    A = rng.dirichlet(np.ones(11), size=3)
    checked, column_max, product = _checks.check_mechanism_columns(A, "Q", atol=1e-9, start=0.3)
    assert checked is A and np.array_equal(column_max, A.max(axis=0))
    if compiled:  # IBU's first product from the start (0.3, 0.3, 0.3), the rows added in order, as combine_rows does
        assert np.array_equal(product, (0.0 + 0.3 * A[0]) + 0.3 * A[1] + 0.3 * A[2])
    else:
        assert product is None
    for row, column, value, message in [(1, 9, np.nan, "finite"), (2, 3, np.inf, "finite"), (0, 10, -np.inf, "finite"),
                                        (2, 10, -1e-300, "non-negative"), (1, 2, A[1, 2] + 1e-6, "row 1 sums")]:
        bad = A.copy()
        bad[row, column] = value
        with pytest.raises(ValueError, match=f"Q must .*{message}"):
            _checks.check_mechanism_columns(bad, "Q", atol=1e-9)


@pytest.mark.parametrize("call, name", [
    (lambda: mech.krr(3.0, 1.0), "k"),
    (lambda: mech.laplace(True, 1.0), "k"),
    (lambda: mech.geometric_untruncated(5, 1.0, 0.5, 2), "z_min"),
    (lambda: mech.exponential(linear_distances(3), "a"), "eps"),
    (lambda: mech.planar_geometric((24, 16, 0.5), 1.0), "grid"),
])
def test_arguments_of_a_wrong_type_raise_type_errors_naming_them(call, name):
    with pytest.raises(TypeError, match=name):
        call()


def test_shokri_is_reexported():
    from privest import shokri

    assert mech.shokri is shokri.shokri
    assert "shokri" in mech.__all__


@pytest.mark.parametrize("fn", [mech.planar_geometric, mech.planar_laplace])
def test_planar_mechanisms_build_the_384_cell_grid_in_well_under_a_second(fn):
    for eps in (0.19, 1.0, 3.124, 6.0):
        start = time.perf_counter()
        fn(SAN_FRANCISCO, eps)
        assert time.perf_counter() - start < 0.5, eps


# --- the remapped planar geometric mechanism of the IBU paper, section 6.4 -------------------------------------------


def brute_force_remapped(grid: Grid, output: Grid, eps: float, window: int = 90) -> np.ndarray:
    """Draw every point of the infinite grid of cell centres within ``window`` cells (the kernel beyond is below
    1e-16 at eps * cell = 0.5), weight it lambda e^{-eps d}, and send it to its nearest output centres found by 2-D
    distances, split equally on ties: no clamping, no per-axis shortcut."""
    offsets = np.arange(-window, window + grid.columns)
    u, v = np.meshgrid((offsets + 0.5) * grid.cell_km, (offsets + 0.5) * grid.cell_km, indexing="ij")
    u, v = u.ravel(), v.ravel()
    out = output.centres()
    distance = np.sqrt((u[:, None] - out[None, :, 0]) ** 2 + (v[:, None] - out[None, :, 1]) ** 2)
    nearest = distance <= distance.min(axis=1, keepdims=True) + 1e-9
    share = nearest / nearest.sum(axis=1, keepdims=True)
    A = np.empty((grid.k, output.k))
    for x, (east, north) in enumerate(grid.centres()):
        weight = np.exp(-eps * np.hypot(u - east, v - north))
        A[x] = weight @ share / weight.sum()
    return A


def test_remapped_planar_geometric_equals_the_brute_force_draw_and_remap():
    grid, output = Grid(5, 5, 1.0), Grid(4, 4, 1.25)
    A = mech.planar_geometric_remapped(grid, output, 0.5)
    assert A.shape == (25, 16)
    assert np.allclose(A.sum(axis=1), 1, rtol=0, atol=1e-12)
    assert np.allclose(A, brute_force_remapped(grid, output, 0.5), rtol=1e-9, atol=1e-14)
    assert np.linalg.matrix_rank(A) == 16  # fewer than |X| = 25 independent columns: not identifiable


def test_remap_splits_ties_equally_and_is_otherwise_the_nearest_cell():
    R = mech.remap_to_grid(Grid(5, 5, 1.0), Grid(4, 4, 1.25))
    assert np.allclose(R.sum(axis=1), 1)
    middle = Grid(5, 5, 1.0).index(2, 2)  # the centre (2.5, 2.5) km is equidistant from four output centres
    assert np.allclose(R[middle][R[middle] > 0], 0.25) and (R[middle] > 0).sum() == 4
    corner = Grid(5, 5, 1.0).index(0, 0)
    assert R[corner, 0] == 1.0
    assert np.array_equal(mech.remap_to_grid(Grid(3, 2, 1.0), Grid(3, 2, 1.0)), np.eye(6))


def test_remapped_planar_geometric_rejects_grids_of_different_extent():
    with pytest.raises(ValueError, match="extent"):
        mech.planar_geometric_remapped(Grid(5, 5, 1.0), Grid(4, 4, 1.0), 0.5)


def test_by_name_takes_eps_per_unit_of_a_spaced_alphabet_and_refuses_geometry_on_categories():
    spaced = Alphabet(6, spacing=2.5)
    for kind, matrix in (("geometric", privest.geometric), ("laplace", privest.laplace)):
        np.testing.assert_allclose(privest.by_name(kind, spaced, 0.4), matrix(6, 1.0))
    np.testing.assert_allclose(privest.by_name("exponential", spaced, 0.4),
                               privest.exponential(linear_distances(6, 2.5), 0.4))
    categories = Alphabet(3, categories=("a", "b", "c"))
    np.testing.assert_allclose(privest.by_name("krr", categories, 1.0), privest.krr(3, 1.0))
    assert privest.is_ldp(privest.by_name("exponential", categories, 1.0), 1.0)
    for kind in ("geometric", "laplace"):
        with pytest.raises(ValueError, match="categories have none"):
            privest.by_name(kind, categories, 1.0)
