"""The log-likelihood of the local model and what the IBU paper proves about it (sections 4, 5, 6.4 and 8).

- L(phi) = sum_i log sum_x phi_x G_xi (eq. 2) over a grid of the 2-simplex (Figures 3 and 5), and its flat
  directions: the vectors w with sum_x w_x = 0 and w G = 0 along which L is constant (Lemma 4.1, Theorem 4.1 (iii)).
- RAPPOR (section 4.4): the lower bound of Theorem 4.4 on the probability that L is strictly concave, and the ranks of
  the observation matrix B over R and over the binary field that the bound rests on (Figure 4).
- Identification (Theorem 6.1): IBU's fixed points on the asymptotic q = theta M of a mechanism with fewer than |X|
  independent columns (Figure 6).
- Likely subsets (section 8): samplers of the untruncated linear geometric, planar geometric and k-RR mechanisms on
  large alphabets, their columns at the reported values, and an accelerated IBU (SQUAREM) with a certificate of how
  far from the maximum an estimate is, to compare the MLE on a likely subset with the MLE on the whole alphabet.
- INV's expected squared error (section 7.6): the two propositions' bounds, the exact value from the mechanism's
  inverse, and its simulation. INV solves v M = q for the empirical distribution q of n reports (the raw vector, before
  any post-processing). With m = theta M, n q is Multinomial(n, m): E q = m and Cov q = (diag(m) - m m^T) / n, so
  v - theta = (q - m) M^{-1} and E ||v - theta||^2 = (1/n) tr(M^{-T} (diag(m) - m m^T) M^{-1}). Those functions
  return n times the error, the constant C of "C / n" in which the paper states its bounds.
"""

import math
import time

import numpy as np

from privest import estimators
from privest.alphabets import Grid
from privest.estimators import PLAIN_IBU, Group, IbuResult, gibu
from privest.estimators import log_likelihood as normalised_log_likelihood
from privest.rappor import flip_probability

__all__ = [
    "asymptotic_log_likelihood",
    "duality_gap",
    "embed_cells",
    "flat_directions",
    "inv_error_exact",
    "inv_errors_simulated",
    "inv_geometric_lower_bound",
    "inv_krr_error",
    "inv_krr_upper_bound",
    "is_identifiable",
    "is_strictly_concave",
    "krr_columns",
    "likely_subset_comparison",
    "log_likelihood",
    "planar_geometric_columns",
    "planar_geometric_offsets",
    "rank_f2_prefixes",
    "rank_real",
    "rappor_concavity_bound",
    "rappor_rank_frequencies",
    "sample_geometric_untruncated",
    "sample_krr",
    "segment_in_simplex",
    "simplex_lattice",
    "squarem_ibu",
    "timed",
]

PLANAR_TAIL = 1e-16
"""The mass of the planar geometric kernel left out of the window used to sample it and to normalise it."""


# --- the log-likelihood and its flat directions (section 4.1) --------------------------------------------------------


def log_likelihood(theta: np.ndarray, A: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """L(theta) = sum_z counts_z log sum_x theta_x A_xz (IBU paper eq. 2 with the observations grouped by value).

    theta: (..., k) distributions (any leading shape, e.g. a grid of the simplex); A: (k, m) the mechanism's columns;
    counts: (m,) how often each column was observed. Returns shape theta.shape[:-1]; -inf where an observed value has
    probability 0.
    """
    theta, A = np.asarray(theta, dtype=np.float64), np.asarray(A, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    if A.ndim != 2 or theta.shape[-1] != A.shape[0] or counts.shape != (A.shape[1],):
        raise ValueError(f"theta (..., k), A (k, m) and counts (m,) must agree, got {theta.shape}, {A.shape}, "
                         f"{counts.shape}")
    seen = counts > 0
    with np.errstate(divide="ignore"):
        return np.log(theta @ A[:, seen]) @ counts[seen]


def simplex_lattice(resolution: int) -> np.ndarray:
    """The points (i/r, 1 - i/r - j/r, j/r), i + j <= r = resolution, of the 2-simplex: shape (P, 3), as the paper
    draws it, theta_1 and theta_3 free and theta_2 = 1 - theta_1 - theta_3."""
    if resolution < 1:
        raise ValueError(f"resolution must be a positive integer, got {resolution}")
    i, j = np.meshgrid(np.arange(resolution + 1), np.arange(resolution + 1), indexing="ij")
    keep = i + j <= resolution
    t1, t3 = i[keep] / resolution, j[keep] / resolution
    return np.column_stack([t1, np.clip(1 - t1 - t3, 0, 1), t3])


def flat_directions(G: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    """An orthonormal basis (d, k) of the directions along which L is constant: {w : sum_x w_x = 0, w G = 0}.

    By Lemma 4.1, L(gamma theta + (1-gamma) phi) = gamma L(theta) + (1-gamma) L(phi) iff (theta - phi) G = 0, so L is
    strictly concave iff this space is {0} (Theorem 4.1 (iii)). G: (k, m), the observations' probabilities G_xi (or
    the mechanism's columns at the observed values: repeating a column changes nothing). The left null space of
    [G | 1], columns scaled to unit length, by SVD; singular values below rtol times the largest count as zero.
    """
    G = np.asarray(G, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] < 1:
        raise ValueError(f"G must be a (k, m) matrix, got shape {G.shape}")
    k = G.shape[0]
    norms = np.linalg.norm(G, axis=0)
    H = np.column_stack([G[:, norms > 0] / norms[norms > 0], np.ones(k) / math.sqrt(k)])
    U, s, _ = np.linalg.svd(H, full_matrices=True)
    rank = int((s > rtol * s.max()).sum())
    return U[:, rank:].T


def is_strictly_concave(G: np.ndarray, rtol: float = 1e-10) -> bool:
    """Theorem 4.1: L is strictly concave on the simplex iff no non-zero w with sum 0 has w G = 0."""
    return flat_directions(G, rtol).shape[0] == 0


# --- RAPPOR (section 4.4, Figure 4) ----------------------------------------------------------------------------------


def rappor_concavity_bound(k: int, n: int | np.ndarray, eps: float) -> np.ndarray:
    """Theorem 4.4: P(L strictly concave) >= prod_{j=1}^{k} max{0, 1 - p^n 2^{j-1}}, p = e^{eps/2}/(1+e^{eps/2}),
    for n >= k users of basic RAPPOR on k secrets (the probability that B has full rank over the binary field).
    Each factor is 0 for n < k, since p >= 1/2. Computed in log space; n any shape."""
    if k < 1:
        raise ValueError(f"k must be a positive integer, got {k}")
    n = np.asarray(n, dtype=np.float64)
    log_p = math.log1p(-float(flip_probability(eps)))
    exponents = n[..., None] * log_p + np.arange(k) * math.log(2.0)
    return np.prod(np.where(exponents < 0, -np.expm1(np.minimum(exponents, 0.0)), 0.0), axis=-1)


def rank_real(B: np.ndarray) -> np.ndarray:
    """The rank over R of each matrix of a stack (..., k, n) (numpy's SVD rank; exact for small 0/1 matrices)."""
    return np.linalg.matrix_rank(np.asarray(B, dtype=np.float64))


def rank_f2_prefixes(bits: np.ndarray) -> np.ndarray:
    """Ranks over the binary field of the first 1, 2, ..., n columns of B, for a stack of runs.

    bits: (R, n, k) 0/1, bits[r, i] the i-th report (column i of B = the bit vector of user i); k <= 63. Returns
    (R, n) integers. Each report is packed into an integer and inserted into a xor basis indexed by leading bit
    (Gaussian elimination over F2), vectorised over runs: n k steps whatever R.
    """
    bits = np.asarray(bits)
    if bits.ndim != 3 or bits.shape[2] > 63:
        raise ValueError(f"bits must have shape (runs, n, k) with k <= 63, got {bits.shape}")
    R, n, k = bits.shape
    vectors = (bits.astype(np.uint64) << np.arange(k, dtype=np.uint64)).sum(axis=2, dtype=np.uint64)
    basis = np.zeros((R, k), dtype=np.uint64)
    rank = np.zeros(R, dtype=np.int64)
    ranks = np.empty((R, n), dtype=np.int64)
    for i in range(n):
        v = vectors[:, i].copy()
        for b in range(k - 1, -1, -1):
            has = ((v >> np.uint64(b)) & np.uint64(1)).astype(bool)
            pivot = basis[:, b]
            reduce = has & (pivot != 0)
            v[reduce] ^= pivot[reduce]
            insert = has & (pivot == 0)
            basis[insert, b] = v[insert]
            v[insert] = 0
            rank += insert
        ranks[:, i] = rank
    return ranks


def rappor_rank_frequencies(bits: np.ndarray, n_values: np.ndarray) -> dict[str, np.ndarray]:
    """For RAPPOR reports bits (R, n_max, k) of R runs, the fraction of runs whose first n reports give
    - ``full_rank_f2``: B (k, n) of full rank k over the binary field (the event Theorem 4.4 bounds);
    - ``full_rank_real``: B of full rank over R (implied by the former: Lemma 4.3);
    - ``strictly_concave``: L strictly concave, i.e. [B | 1] of rank k (exact: G = (1 1^T + (e^eps - 1) B) D with D
      diagonal positive, so w G = 0 with sum w = 0 iff w B = 0, Theorem 4.1 (iii)),
    one entry per n of n_values (each at most n_max)."""
    bits = np.asarray(bits)
    R, n_max, k = bits.shape
    n_values = np.asarray(n_values, dtype=np.int64)
    if n_values.min() < 1 or n_values.max() > n_max:
        raise ValueError(f"n_values must lie in 1..{n_max}, got {n_values.min()}..{n_values.max()}")
    f2 = rank_f2_prefixes(bits)[:, n_values - 1]
    B = np.swapaxes(bits, 1, 2).astype(np.float64)  # (R, k, n_max)
    real = np.stack([rank_real(B[:, :, :n]) for n in n_values], axis=1)
    ones = np.ones((R, k, 1))
    concave = np.stack([rank_real(np.concatenate([B[:, :, :n], ones], axis=2)) for n in n_values], axis=1)
    return {"full_rank_f2": (f2 == k).mean(axis=0), "full_rank_real": (real == k).mean(axis=0),
            "strictly_concave": (concave == k).mean(axis=0)}


# --- accelerated IBU and its certificate (sections 6.4 and 8) -------------------------------------------------------


def duality_gap(group: Group, theta: np.ndarray) -> float:
    """max_x g_x - 1 with g_x = sum_z (q_z/n) G_xz / (theta G)_z, the gradient of the normalised log-likelihood.

    An upper bound on L* - L(theta) (normalised): by concavity L(phi) <= L(theta) + g.(phi - theta) and g.theta = 1,
    so L(phi) - L(theta) <= max_x g_x - 1 for every distribution phi. It is 0 exactly at an MLE (KKT conditions).
    """
    w = group.counts / group.n
    g = group.G @ (w / (theta @ group.G))
    return float(g.max() - 1.0)


def squarem_ibu(group: Group, tol: float = 1e-12, max_steps: int = 10_000, theta0: np.ndarray | None = None
                ) -> IbuResult:
    """IBU accelerated by SQUAREM (``privest.estimators.squarem``): stops when an update moves no entry of theta by
    tol or more (capped=False), or after max_steps steps of three IBU updates (capped=True). ``iterations`` counts
    IBU updates."""
    return estimators.squarem([group], delta=None, max_iter=3 * max_steps, tol=tol, theta0=theta0)


# --- mechanisms on large alphabets, sampled and restricted to the reported values (section 8) ----------------------


def sample_geometric_untruncated(secrets: np.ndarray, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Reports of the untruncated linear geometric mechanism (IBU eq. 6): x + D, P(D = d) = c e^{-eps |d|}.

    D is the difference of two independent geometric variables of success probability 1 - e^-eps, whose law is
    exactly (1-a)/(1+a) a^|d|, a = e^-eps. Integer reports, any integer possible.
    """
    if not eps > 0:
        raise ValueError(f"eps must be positive, got {eps}")
    secrets = np.asarray(secrets, dtype=np.int64)
    success = -math.expm1(-eps)
    return secrets + rng.geometric(success, secrets.size) - rng.geometric(success, secrets.size)


def _planar_window(a: float) -> int:
    """The radius W (cells) beyond which the kernel e^{-a r} on Z^2 has mass below PLANAR_TAIL (the total is >= 1):
    the ring max(|i|,|j|) = m holds 8m points, all with r >= m, so the mass beyond W is at most
    sum_{m > W} 8 m e^{-a m} = 8 q^M (M (1-q) + q) / (1-q)^2, M = W + 1, q = e^-a."""
    q, one_minus_q = math.exp(-a), -math.expm1(-a)
    M = math.ceil(1 / a) + 1
    while 8 * q**M * (M * one_minus_q + q) / one_minus_q**2 >= PLANAR_TAIL:
        M += max(1, math.ceil(1 / a))
    return M - 1


def _planar_kernel(a: float) -> tuple[np.ndarray, np.ndarray]:
    W = _planar_window(a)
    offsets = np.arange(-W, W + 1)
    return offsets, np.exp(-a * np.hypot(offsets[:, None], offsets[None, :]))


def planar_geometric_offsets(n: int, eps: float, cell_km: float, rng: np.random.Generator) -> np.ndarray:
    """n offsets (columns, rows) of the planar geometric mechanism on the infinite grid of cell centres:
    P(i, j) = lambda e^{-eps cell_km sqrt(i^2 + j^2)}, sampled exactly within a window whose outside mass is below
    PLANAR_TAIL (1e-16). Shape (n, 2), integers."""
    if not (eps > 0 and cell_km > 0):
        raise ValueError(f"eps and cell_km must be positive, got {eps}, {cell_km}")
    offsets, kernel = _planar_kernel(eps * cell_km)
    index = rng.choice(kernel.size, size=n, p=(kernel / kernel.sum()).ravel())
    return np.column_stack([offsets[index // offsets.size], offsets[index % offsets.size]])


def planar_geometric_columns(centres: np.ndarray, points: np.ndarray, eps: float, cell_km: float) -> np.ndarray:
    """The columns of the (untruncated) planar geometric mechanism at the reported points: P(z | x) = lambda
    e^{-eps d(x, z)}, lambda = 1 / sum_{Z^2} e^{-eps cell_km r}, for secrets at ``centres`` (k, 2) and reported grid
    points ``points`` (m, 2), both in km. Shape (k, m); the mechanism has infinitely many columns, so rows sum to
    less than 1."""
    centres, points = np.asarray(centres, dtype=np.float64), np.asarray(points, dtype=np.float64)
    if centres.ndim != 2 or centres.shape[1] != 2 or points.ndim != 2 or points.shape[1] != 2:
        raise ValueError(f"centres and points must have shape (., 2), got {centres.shape} and {points.shape}")
    _, kernel = _planar_kernel(eps * cell_km)
    distance = np.sqrt(((centres[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    return np.exp(-eps * distance) / kernel.sum()


def sample_krr(secrets: np.ndarray, k: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Reports of k-RR (IBU eq. 5) on {0..k-1} without its k x k matrix: the secret with probability
    e^eps / (k - 1 + e^eps), else one of the k - 1 other values uniformly."""
    secrets = np.asarray(secrets, dtype=np.int64)
    keep = 1.0 / (1.0 + (k - 1) * math.exp(-eps))
    other = rng.integers(0, k - 1, size=secrets.size)
    other += other >= secrets
    return np.where(rng.random(secrets.size) < keep, secrets, other)


def krr_columns(k: int, eps: float, observed: np.ndarray) -> np.ndarray:
    """The columns of k-RR on {0..k-1} at the observed values: shape (k, m), e^eps / (k-1+e^eps) where x = z, else
    1 / (k-1+e^eps)."""
    observed = np.asarray(observed, dtype=np.int64)
    other = math.exp(-eps) / (1.0 + (k - 1) * math.exp(-eps))
    A = np.full((k, observed.size), other)
    A[observed, np.arange(observed.size)] = 1.0 / (1.0 + (k - 1) * math.exp(-eps))
    return A


# --- identification (section 6.4, Figure 6) --------------------------------------------------------------------------


def is_identifiable(M: np.ndarray) -> bool:
    """Theorem 6.1 (iii): theta -> theta M is one-to-one on distributions iff M has |X| independent columns."""
    M = np.asarray(M, dtype=np.float64)
    return int(np.linalg.matrix_rank(M)) == M.shape[0]


def asymptotic_log_likelihood(q: np.ndarray) -> float:
    """sum_z q_z log q_z: the largest normalised log-likelihood any phi can reach on the frequencies q (Gibbs'
    inequality), reached exactly by the phi with phi M = q; for the asymptotic q = theta M, theta is one of them."""
    q = np.asarray(q, dtype=np.float64)
    q = q[q > 0] / q.sum()
    return float(q @ np.log(q))


def segment_in_simplex(point: np.ndarray, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ends of {point + s direction} within the simplex, for a distribution ``point`` and a direction summing to
    0 (e.g. a flat direction through an MLE: the set of MLEs when the flat space is one-dimensional). Entries of
    ``direction`` below 1e-12 in size count as 0."""
    point, direction = np.asarray(point, dtype=np.float64), np.asarray(direction, dtype=np.float64)
    if abs(direction.sum()) > 1e-9:
        raise ValueError("direction must sum to 0 to stay on the simplex")
    moving = np.abs(direction) > 1e-12
    if not moving.any():
        return point.copy(), point.copy()
    limits = -point[moving] / direction[moving]  # s at which an entry reaches 0
    low = limits[direction[moving] > 0].max(initial=-np.inf)
    high = limits[direction[moving] < 0].min(initial=np.inf)
    low, high = min(low, 0.0), max(high, 0.0)
    return np.maximum(point + low * direction, 0.0), np.maximum(point + high * direction, 0.0)


# --- section 8: the MLE on a likely subset against the MLE on the whole alphabet ------------------------------------


def embed_cells(grid: Grid, cells: np.ndarray, factor: int, large: Grid) -> np.ndarray:
    """The (column, row) in ``large`` of cells of ``grid`` once merged ``factor`` x ``factor`` into cells of
    factor * grid.cell_km km (= large.cell_km), the merged region centred in ``large``. Shape (n, 2)."""
    if factor < 1 or not math.isclose(factor * grid.cell_km, large.cell_km, rel_tol=1e-9):
        raise ValueError(f"large.cell_km ({large.cell_km}) must be factor ({factor}) x grid.cell_km ({grid.cell_km})")
    columns, rows = -(-grid.columns // factor), -(-grid.rows // factor)
    if columns > large.columns or rows > large.rows:
        raise ValueError(f"the merged region ({columns} x {rows}) does not fit in {large.columns} x {large.rows}")
    column, row = grid.column_row(np.asarray(cells))
    shift = ((large.columns - columns) // 2, (large.rows - rows) // 2)
    return np.column_stack([column // factor + shift[0], row // factor + shift[1]])


def timed(fn, *args, **kwargs) -> tuple[object, float, float]:
    """fn(*args, **kwargs), its wall-clock seconds and the CPU seconds of this process (all threads) it took: on a
    shared machine the CPU seconds are the steadier measure."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def likely_subset_comparison(G: np.ndarray, counts: np.ndarray, subset: np.ndarray, delta: float, max_iter: int,
                             tol: float, max_steps: int) -> list[dict]:
    """IBU on the whole alphabet against IBU on a likely subset (Theorem 8.1: the MLEs agree, 0 outside the subset),
    with plain IBU (``gibu``, stopping at delta or max_iter) and with SQUAREM-accelerated IBU (tol, max_steps).

    G: (k, m) the mechanism's columns at the m reported values; counts: (m,) how often each was reported; subset:
    indices into the k secrets. One row per algorithm: CPU and wall seconds and iterations of each run (see
    ``timed``), whether the cap stopped
    it, the largest difference between the two estimates over the whole alphabet (the subset's padded with zeros),
    the whole-alphabet estimate's mass outside the subset, both log-likelihoods, and the duality gaps (upper bounds
    on L* - L, on the whole alphabet for both estimates, so that the subset's gap certifies it as a whole-alphabet
    MLE up to the gap).
    """
    G, counts, subset = np.asarray(G, dtype=np.float64), np.asarray(counts, dtype=np.float64), np.asarray(subset)
    full = Group(G, counts, np.zeros(G.shape[1]))
    likely = Group(G[subset], counts, np.zeros(G.shape[1]))
    runs = {"IBU": lambda group: gibu([group], delta=delta, max_iter=max_iter, **PLAIN_IBU),
            "SQUAREM-IBU": lambda group: squarem_ibu(group, tol=tol, max_steps=max_steps)}
    rows = []
    for algorithm, run in runs.items():
        on_full, full_wall, full_cpu = timed(run, full)
        on_likely, likely_wall, likely_cpu = timed(run, likely)
        padded = np.zeros(G.shape[0])
        padded[subset] = on_likely.theta
        outside = np.ones(G.shape[0], dtype=bool)
        outside[subset] = False
        rows.append({"algorithm": algorithm, "full_cpu_seconds": full_cpu, "likely_cpu_seconds": likely_cpu,
                     "full_wall_seconds": full_wall, "likely_wall_seconds": likely_wall,
                     "full_iterations": on_full.iterations, "likely_iterations": on_likely.iterations,
                     "full_capped": on_full.capped, "likely_capped": on_likely.capped,
                     "max_abs_difference": float(np.abs(on_full.theta - padded).max()),
                     "full_mass_outside": float(on_full.theta[outside].sum()),
                     "full_log_likelihood": normalised_log_likelihood(on_full.theta, [full]),
                     "likely_log_likelihood": normalised_log_likelihood(on_likely.theta, [likely]),
                     "full_gap": duality_gap(full, on_full.theta), "likely_gap": duality_gap(full, padded)})
    return rows


# --- INV's expected squared error (section 7.6) ----------------------------------------------------------------------


def _check_square(M: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    M, theta = np.asarray(M, dtype=np.float64), np.asarray(theta, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or theta.shape != (M.shape[0],):
        raise ValueError(f"M must be square (k, k) and theta of shape (k,), got {M.shape} and {theta.shape}")
    if np.any(theta < 0) or abs(theta.sum() - 1) > 1e-9:
        raise ValueError("theta must be a probability distribution")
    return M, theta


def inv_krr_upper_bound(k: int, eps: float) -> float:
    """Proposition 7.6 (INV with k-RR): n E||v - theta||^2 <= ((e^eps + k - 1) / (e^eps - 1))^2, for every theta."""
    if k < 2 or not eps > 0:
        raise ValueError(f"k must be at least 2 and eps positive, got k={k}, eps={eps}")
    return ((math.exp(eps) + k - 1) / math.expm1(eps)) ** 2


def inv_geometric_lower_bound(eps: float) -> float:
    """Proposition 7.6 (INV with the truncated linear geometric mechanism): n E||v - theta||^2 >= beta^3 -
    2 alpha beta^2 - 2, alpha = e^-eps, beta = 1 / (1 - e^-eps), for every theta and k, provided alpha > 1/2."""
    alpha = math.exp(-eps)
    if not 0.5 < alpha < 1:
        raise ValueError(f"the bound needs alpha = e^-eps in (1/2, 1), i.e. 0 < eps < ln 2, got eps={eps}")
    beta = 1.0 / -math.expm1(-eps)
    return beta**3 - 2 * alpha * beta**2 - 2


def inv_error_exact(M: np.ndarray, theta: np.ndarray) -> float:
    """n E||v - theta||^2 = tr(M^{-T} (diag(m) - m m^T) M^{-1}), m = theta M: the exact error of INV's raw vector
    from n reports of mechanism M (k, k) when the secrets follow theta. Two solves, no explicit inverse."""
    M, theta = _check_square(M, theta)
    m = theta @ M
    covariance = np.diag(m) - np.outer(m, m)
    left = np.linalg.solve(M.T, covariance)  # M^{-T} C
    return float(np.trace(np.linalg.solve(M.T, left.T)))  # tr(M^{-T} (M^{-T} C)^T) = tr(M^{-T} C M^{-1})


def inv_krr_error(k: int, eps: float, theta: np.ndarray) -> float:
    """The closed form of ``inv_error_exact`` for k-RR: M = a I + b 1 1^T with a = (e^eps - 1)/(e^eps + k - 1), and
    (q - m) sums to 0, so v - theta = (q - m) / a and n E||v - theta||^2 = (1 - ||m||^2) / a^2 (<= the bound 1/a^2)."""
    theta = np.asarray(theta, dtype=np.float64)
    a = math.expm1(eps) / (math.exp(eps) + k - 1)
    m = a * theta + (1 - a) / k
    return float((1 - m @ m) / a**2)


def inv_errors_simulated(M: np.ndarray, theta: np.ndarray, n: int, runs: int, rng: np.random.Generator) -> np.ndarray:
    """n ||v - theta||^2 for ``runs`` independent draws of n reports (counts Multinomial(n, theta M)), v solving
    v M = q: shape (runs,). All runs in one multinomial draw and one solve."""
    M, theta = _check_square(M, theta)
    if n < 1 or runs < 1:
        raise ValueError(f"n and runs must be positive, got n={n}, runs={runs}")
    m = theta @ M
    q = rng.multinomial(n, m / m.sum(), size=runs) / n
    v = np.linalg.solve(M.T, q.T).T
    return n * ((v - theta) ** 2).sum(axis=1)
