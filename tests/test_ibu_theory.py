"""privest_studies.ibu_theory: the log-likelihood, its flat directions, RAPPOR's ranks and bound, IBU's fixed points
on a non-identifiable mechanism, SQUAREM, and likely subsets, against closed forms and brute force."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from privest import estimators, mechanisms, metrics, rappor
from privest.alphabets import Grid
from privest.estimators import Group
from privest.sampling import rng_for
from privest_studies import ibu_theory

ROOT = Path(__file__).resolve().parents[1]
MECHANISM_4 = np.array([[0.10, 0.45, 0.45], [0.45, 0.10, 0.45], [0.45, 0.45, 0.10]])
MECHANISM_12 = np.array([[0.45, 0.10, 0.45], [0.05, 0.90, 0.05], [0.45, 0.10, 0.45]])
E1_MINUS_E3 = np.array([1.0, 0.0, -1.0]) / math.sqrt(2)


def surfaces() -> dict:
    return yaml.safe_load((ROOT / "config.yaml").read_text())["ibu_consistency"]["theory"]["surfaces"]


def counts_of(observed: list[int]) -> np.ndarray:
    return np.bincount(np.asarray(observed) - 1, minlength=3)


# --- the log-likelihood and its flat directions ----------------------------------------------------------------------


def test_config_holds_the_papers_mechanisms_and_observations():
    config = surfaces()
    assert np.array_equal(config["fig03"]["mechanism"], MECHANISM_4)
    assert np.array_equal(config["fig05"]["mechanism"], MECHANISM_12)
    assert config["fig03"]["panels"] == {"a": [2], "b": [2, 1]}
    assert config["fig05"]["panels"] == {"a": [2, 2, 2, 2], "b": [2, 2, 2, 2, 1, 3]}


def test_log_likelihood_equals_the_sum_over_observations():
    rng = rng_for(0, "test", "loglik")
    A = rng.dirichlet(np.ones(5), size=4)
    observed = rng.integers(0, 5, size=30)
    theta = rng.dirichlet(np.ones(4), size=(3, 2))
    expected = sum(np.log(theta @ A[:, z]) for z in observed)
    assert np.allclose(ibu_theory.log_likelihood(theta, A, np.bincount(observed, minlength=5)), expected, atol=1e-12)


def test_simplex_lattice_covers_the_simplex():
    points = ibu_theory.simplex_lattice(10)
    assert points.shape == (66, 3)
    assert np.allclose(points.sum(axis=1), 1) and points.min() >= 0


@pytest.mark.parametrize("figure, panel", [("fig03", "a"), ("fig05", "a"), ("fig05", "b")])
def test_flat_panels_are_constant_exactly_along_e1_minus_e3(figure, panel):
    """The acceptance of Figures 3 and 5: the flat direction is (1,0,0)-(0,0,1), and L is constant along it, on the
    edge itself and on every line parallel to it through the lattice the figures are drawn on."""
    spec = surfaces()[figure]
    A, counts = np.asarray(spec["mechanism"], dtype=np.float64), counts_of(spec["panels"][panel])
    flats = ibu_theory.flat_directions(A[:, counts > 0])
    assert flats.shape == (1, 3)
    assert np.allclose(np.abs(flats[0] @ E1_MINUS_E3), 1.0, atol=1e-12)
    t = np.linspace(0, 1, 1001)
    edge = ibu_theory.log_likelihood(np.column_stack([t, np.zeros_like(t), 1 - t]), A, counts)
    assert np.ptp(edge) < 1e-12
    points = ibu_theory.simplex_lattice(40)
    room = np.minimum(points[:, 2], 1 - points[:, 0] - points[:, 1])  # how far each point can move along e1 - e3
    moved = points + room[:, None] * np.array([1.0, 0.0, -1.0])
    assert np.allclose(ibu_theory.log_likelihood(moved, A, counts), ibu_theory.log_likelihood(points, A, counts),
                       rtol=0, atol=1e-12)


def test_figure_3b_is_strictly_concave_and_not_flat_along_the_edge():
    A, counts = MECHANISM_4, counts_of([2, 1])
    assert ibu_theory.is_strictly_concave(A[:, counts > 0])
    t = np.linspace(0, 1, 101)
    edge = ibu_theory.log_likelihood(np.column_stack([t, np.zeros_like(t), 1 - t]), A, counts)
    assert np.ptp(edge) > 1.0
    # strict inequality (3) of Lemma 4.1 on random pairs
    rng = rng_for(0, "test", "strict")
    theta, phi = rng.dirichlet(np.ones(3), size=(2, 200))
    middle = ibu_theory.log_likelihood((theta + phi) / 2, A, counts)
    ends = ibu_theory.log_likelihood(theta, A, counts) + ibu_theory.log_likelihood(phi, A, counts)
    assert np.all(middle > ends / 2)


def test_mechanism_12_mle_is_unique_with_four_2s_and_a_segment_with_1_and_3():
    """Section 5.1: {2,2,2,2} gives the unique MLE (0,1,0); adding 1 and 3 gives the segment theta_2 = 0.70833
    (the stationary point of 4 log(0.9 - 0.8 s) + 2 log(0.05 + 0.4 s), s = theta_1 + theta_3 = 7/24)."""
    unique = estimators.ibu(MECHANISM_12, counts_of([2, 2, 2, 2]), delta=1e-15)
    assert np.allclose(unique.theta, [0, 1, 0], atol=1e-9)
    start, end = ibu_theory.segment_in_simplex(unique.theta, E1_MINUS_E3)
    assert np.allclose(start, end)
    mle = ibu_theory.squarem_ibu(estimators.matrix_group(MECHANISM_12, counts_of([2, 2, 2, 2, 1, 3])), tol=1e-14)
    assert mle.theta[1] == pytest.approx(17 / 24, abs=1e-10)
    start, end = ibu_theory.segment_in_simplex(mle.theta, E1_MINUS_E3)
    assert np.allclose(sorted([start[0], end[0]]), [0, 7 / 24], atol=1e-8)


def test_flat_directions_are_the_null_space_of_g_with_ones():
    rng = rng_for(0, "test", "flats")
    for k, m in [(6, 2), (6, 4), (5, 7), (4, 1)]:
        G = rng.random((k, m))
        flats = ibu_theory.flat_directions(G)
        assert flats.shape == (max(k - 1 - m, 0), k)
        assert np.allclose(flats @ G, 0, atol=1e-12) and np.allclose(flats.sum(axis=1), 0, atol=1e-12)
        assert np.allclose(flats @ flats.T, np.eye(len(flats)), atol=1e-12)
    G = rng.random((4, 3))
    assert ibu_theory.flat_directions(np.column_stack([G, 3 * G[:, :1]])).shape == (0, 4)  # repeats change nothing


def test_segment_in_simplex_stops_where_an_entry_reaches_zero():
    start, end = ibu_theory.segment_in_simplex(np.array([0.2, 0.5, 0.3]), np.array([1.0, 0.0, -1.0]))
    assert np.allclose(start, [0, 0.5, 0.5]) and np.allclose(end, [0.5, 0.5, 0])


# --- RAPPOR ----------------------------------------------------------------------------------------------------------


def brute_force_rank_f2(columns: np.ndarray) -> int:
    """log2 of the number of distinct xor-combinations of the columns (each a 0/1 vector)."""
    span = {tuple(np.bitwise_xor.reduce(columns[list(s)], axis=0) if s else np.zeros(columns.shape[1], int))
            for r in range(len(columns) + 1) for s in itertools.combinations(range(len(columns)), r)}
    return round(math.log2(len(span)))


def test_rank_f2_prefixes_equals_the_span_enumeration():
    rng = rng_for(0, "test", "f2")
    bits = rng.integers(0, 2, size=(6, 7, 5))
    ranks = ibu_theory.rank_f2_prefixes(bits)
    for r in range(bits.shape[0]):
        for n in range(1, bits.shape[1] + 1):
            assert ranks[r, n - 1] == brute_force_rank_f2(bits[r, :n])


def test_full_rank_over_f2_implies_full_rank_over_r():
    """Lemma 4.3 (and more: rank over F2 never exceeds rank over R for 0/1 matrices)."""
    rng = rng_for(0, "test", "lemma")
    bits = rng.integers(0, 2, size=(400, 6, 5))
    f2 = ibu_theory.rank_f2_prefixes(bits)[:, -1]
    real = ibu_theory.rank_real(np.swapaxes(bits, 1, 2))
    assert np.all(f2 <= real)
    assert (f2 < real).any()  # e.g. [[1,1,0],[0,1,1],[1,0,1]] is singular over F2 only


def test_rappor_bound_matches_its_product_and_is_zero_below_k():
    eps, k = 1.0, 4
    p = math.exp(eps / 2) / (1 + math.exp(eps / 2))
    for n in [4, 7, 20]:
        expected = math.prod(max(0.0, 1 - p**n * 2 ** (j - 1)) for j in range(1, k + 1))
        assert ibu_theory.rappor_concavity_bound(k, n, eps) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert np.all(ibu_theory.rappor_concavity_bound(10, np.arange(1, 10), 0.5) == 0)


def test_rappor_bound_is_below_the_exact_full_rank_probability():
    """Theorem 4.4 on a case small enough to enumerate: k = 2 secrets, n = 4 users (fixed secrets), every one of the
    2^(k n) bit matrices weighted by its probability."""
    k, n, eps = 2, 4, 1.0
    flip = float(rappor.flip_probability(eps))
    for secrets in [(0, 0, 0, 0), (0, 1, 0, 1), (1, 1, 1, 0)]:
        onehot = np.eye(k, dtype=int)[list(secrets)]  # (n, k)
        total = 0.0
        for flat in itertools.product([0, 1], repeat=k * n):
            bits = np.array(flat).reshape(n, k)
            probability = np.prod(np.where(bits == onehot, 1 - flip, flip))
            total += probability * (brute_force_rank_f2(bits) == k)
        assert total >= ibu_theory.rappor_concavity_bound(k, n, eps) - 1e-15


def test_rappor_strict_concavity_equals_theorem_4_1_on_the_observation_matrix():
    rng = rng_for(0, "test", "rappor-concave")
    k, eps, n = 4, 2.0, 5
    bits = rng.integers(0, 2, size=(60, n, k))
    frequencies = [ibu_theory.rappor_rank_frequencies(b[None], np.array([n]))["strictly_concave"][0] for b in bits]
    direct = [ibu_theory.is_strictly_concave(np.exp(rappor.log_probability(b, eps))) for b in bits]
    assert frequencies == [float(d) for d in direct]
    assert 0 < np.mean(direct) < 1


# --- identification: Figure 6 ----------------------------------------------------------------------------------------


def test_ibu_fixed_points_of_the_remapped_planar_mechanism_share_the_likelihood_but_differ():
    """The acceptance of Figure 6: from three starts, IBU on q = theta M reaches log-likelihoods equal to 1e-9 (all at
    the maximum sum q log q) and estimates that differ (and so do their EMDs to theta)."""
    grid, output = Grid(5, 5, 1.0), Grid(4, 4, 1.25)
    M = mechanisms.planar_geometric_remapped(grid, output, 0.5)
    assert not ibu_theory.is_identifiable(M) and np.linalg.matrix_rank(M) == 16
    rng = rng_for(0, "test", "fig06")
    theta = rng.dirichlet(np.ones(grid.k))
    q = theta @ M
    starts = [np.full(grid.k, 1 / grid.k), rng.dirichlet(np.ones(grid.k)), rng.dirichlet(np.ones(grid.k))]
    results = [estimators.ibu(M, q, delta=1e-16, max_iter=1_000_000, theta0=s) for s in starts]
    best = ibu_theory.asymptotic_log_likelihood(q)
    values = [r.log_likelihood for r in results]
    assert max(values) - min(values) < 1e-9 and best - min(values) < 1e-9
    for a, b in itertools.combinations(results, 2):
        assert np.abs(a.theta - b.theta).max() > 1e-3
    emds = [metrics.emd(theta, r.theta, grid.distances()) for r in results]
    assert np.ptp(emds) > 1e-3


# --- SQUAREM and the duality gap -------------------------------------------------------------------------------------


def test_squarem_reaches_ibus_unique_mle_and_the_gap_bounds_the_suboptimality():
    rng = rng_for(0, "test", "squarem")
    A = mechanisms.geometric(30, 0.3)
    counts = rng.multinomial(5000, rng.dirichlet(np.ones(30)) @ A).astype(float)
    group = estimators.matrix_group(A, counts)
    slow = estimators.gibu([group], delta=1e-16, max_iter=200_000, accelerate="squarem-direct")
    fast = ibu_theory.squarem_ibu(group, tol=1e-13)
    assert not fast.capped and fast.iterations < slow.iterations / 5
    assert np.abs(fast.theta - slow.theta).max() < 1e-7
    assert ibu_theory.duality_gap(group, fast.theta) < 1e-10
    best = fast.log_likelihood
    for theta in rng.dirichlet(np.ones(30), size=20):
        gap = ibu_theory.duality_gap(group, theta)
        assert gap >= best - estimators.log_likelihood(theta, [group]) - 1e-12


# --- samplers and columns for section 8 ------------------------------------------------------------------------------


def test_untruncated_geometric_noise_has_the_two_sided_geometric_law():
    eps, n = 0.7, 400_000
    noise = ibu_theory.sample_geometric_untruncated(np.zeros(n, dtype=np.int64), eps, rng_for(0, "test", "geo"))
    d = np.arange(-6, 7)
    law = math.tanh(eps / 2) * np.exp(-eps * np.abs(d))
    observed = np.array([(noise == x).mean() for x in d])
    assert np.all(np.abs(observed - law) < 5 * np.sqrt(law / n))


def test_krr_sampler_and_columns_match_the_matrix():
    k, eps, n = 6, 1.2, 300_000
    A = mechanisms.krr(k, eps)
    secrets = np.full(n, 2)
    reports = ibu_theory.sample_krr(secrets, k, eps, rng_for(0, "test", "krr"))
    observed = np.bincount(reports, minlength=k) / n
    assert np.all(np.abs(observed - A[2]) < 5 * np.sqrt(A[2] / n))
    assert np.allclose(ibu_theory.krr_columns(k, eps, np.array([4, 0, 2])), A[:, [4, 0, 2]], rtol=1e-14)


def test_planar_geometric_columns_sum_to_one_over_the_plane_and_offsets_follow_them():
    eps, cell = 1.5, 0.5
    W = 60
    offsets = np.arange(-W, W + 1)
    points = np.stack(np.meshgrid(offsets, offsets, indexing="ij"), axis=-1).reshape(-1, 2) * cell
    columns = ibu_theory.planar_geometric_columns(np.zeros((1, 2)), points, eps, cell)
    assert columns.sum() == pytest.approx(1.0, abs=1e-12)
    drawn = ibu_theory.planar_geometric_offsets(200_000, eps, cell, rng_for(0, "test", "planar"))
    for point in [(0, 0), (1, 0), (1, 1), (0, -2)]:
        p = ibu_theory.planar_geometric_columns(np.zeros((1, 2)), np.array([point]) * cell, eps, cell)[0, 0]
        assert abs(np.all(drawn == point, axis=1).mean() - p) < 5 * np.sqrt(p / 200_000)


# --- likely subsets: the MLE on the subset is the MLE on the whole alphabet ------------------------------------------


def assert_same_mle(G: np.ndarray, counts: np.ndarray, subset: np.ndarray) -> None:
    rows = ibu_theory.likely_subset_comparison(G, counts, subset, delta=1e-14, max_iter=500, tol=1e-13,
                                               max_steps=20_000)
    accelerated = rows[1]
    assert accelerated["algorithm"] == "SQUAREM-IBU" and not accelerated["full_capped"]
    assert accelerated["max_abs_difference"] < 1e-8
    assert accelerated["likely_gap"] < 1e-9 and accelerated["full_gap"] < 1e-9
    assert accelerated["full_mass_outside"] < 1e-8


def test_linear_likely_subset_gives_the_whole_alphabets_mle():
    rng = rng_for(0, "test", "likely-linear")
    secrets = rng.binomial(40, 0.5, size=3000) + 60
    values, counts = np.unique(ibu_theory.sample_geometric_untruncated(secrets, 0.6, rng), return_counts=True)
    G = mechanisms.geometric_untruncated(300, 0.6, int(values[0]), int(values[-1]))[:, values - values[0]]
    subset = estimators.likely_subset_linear(np.arange(300), values)
    assert subset.size < 60
    assert_same_mle(G, counts, subset)


def test_planar_likely_subset_gives_the_whole_alphabets_mle():
    rng = rng_for(0, "test", "likely-planar")
    large = Grid(30, 30, 1.0)
    cells = rng.integers(12, 17, size=(2000, 2))
    points, counts = np.unique(cells + ibu_theory.planar_geometric_offsets(2000, 1.5, 1.0, rng), axis=0,
                               return_counts=True)
    points_km = points + 0.5
    subset = estimators.likely_subset_planar(large.centres(), points_km, 1 / math.sqrt(2))
    assert subset.size < large.k / 2
    assert_same_mle(ibu_theory.planar_geometric_columns(large.centres(), points_km, 1.5, 1.0), counts, subset)


def test_krr_likely_subset_gives_the_whole_alphabets_mle():
    rng = rng_for(0, "test", "likely-krr")
    k = 1000
    reports = ibu_theory.sample_krr(rng.integers(0, 20, size=300), k, 6.0, rng)
    values, counts = np.unique(reports, return_counts=True)
    subset = estimators.likely_subset_krr(reports)
    assert subset.size < k / 4
    assert_same_mle(ibu_theory.krr_columns(k, 6.0, values), counts, subset)


def test_embed_cells_merges_and_centres():
    grid, large = Grid(4, 2, 0.5), Grid(10, 10, 1.0)
    cells = grid.index(np.array([0, 3, 1]), np.array([0, 1, 1]))
    assert np.array_equal(ibu_theory.embed_cells(grid, cells, 2, large), [[4, 4], [5, 4], [4, 4]])
    with pytest.raises(ValueError, match="cell_km"):
        ibu_theory.embed_cells(grid, cells, 3, large)


def test_group_of_untruncated_columns_is_accepted_by_gibu():
    G = mechanisms.geometric_untruncated(5, 1.0, -2, 6)
    result = estimators.gibu([Group(G, np.ones(9), np.zeros(9))], delta=1e-12)
    assert np.isclose(result.theta.sum(), 1)
