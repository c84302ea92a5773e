"""Matrix mechanisms ``A[x, z] = P(z | x)``: rows are secrets, columns observables, float64, rows summing to 1.

The mechanisms of the free-will paper (k-RR, truncated linear and planar geometric, Shokri et al.) and of the IBU
paper (untruncated linear geometric, linear and planar Laplace, exponential), as NOTES section 2 fixes them, and the
privacy checks a researcher asks of a matrix: "is it eps-LDP?", "is it eps*d geo-indistinguishable?".

epsilon of the geometric, Laplace and exponential mechanisms is per unit of distance: per step on {0..k-1}, per km on
a planar ``Grid``.

The planar mechanisms draw a point of the plane (a cell centre of the infinite grid for the geometric mechanism, any
point for the Laplace one) and remap it to the nearest cell of the grid, that is they clamp its cell indices. Along one
axis of n cells, the offsets (in cells, from the true cell) that land in cell z form a single offset ``{m}`` for an
inner z, or a half-line for a border z; by the symmetry of the noise, a half-line pointing backwards has the mass of
the mirrored one. So every entry is a combination of the "quadrant masses" ``S[t, u]`` = noise mass at offsets
``i >= t, j >= u`` (for the continuous noise, the region ``[t - 1/2, inf) x [u - 1/2, inf)`` in cell units), with
``{m} = [m, inf) - [m + 1, inf)`` and the whole line ``[0, inf) + [1, inf)``. One small table S and two 0/+-1 matrices
give the whole mechanism in one matrix product.
"""

import math
from collections.abc import Iterator, Sequence

import numpy as np

from privest._checks import (
    check_choice,
    check_distances,
    check_instance,
    check_int,
    check_matrix,
    check_non_negative,
    check_non_negative_array,
    check_positive,
    check_row_stochastic,
    check_sequence,
)
from privest.alphabets import Alphabet, Grid
from privest.rappor import flip_probability
from privest.shokri import shokri

__all__ = [
    "average",
    "by_name",
    "check_row_stochastic",
    "exponential",
    "geo_indistinguishability_level",
    "geometric",
    "geometric_untruncated",
    "is_geo_indistinguishable",
    "is_ldp",
    "krr",
    "laplace",
    "ldp_level",
    "planar_geometric",
    "planar_geometric_remapped",
    "planar_laplace",
    "rappor_flip_probability",
    "remap_to_grid",
    "shokri",
]

PLANAR_RELATIVE_TAIL = 1e-17
"""The planar geometric kernel left out of the window, relative to the smallest quadrant sum that the matrix uses."""

MAX_PLANAR_WINDOW = 20_000
"""The largest window radius, in cells, of the planar geometric mechanism (eps * cell_km down to about 3e-3)."""

_GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(16)
_PANELS = 8
_LAPLACE_TAIL_EXPONENT = 50.0


# --- LDP mechanisms ---------------------------------------------------------------------------------------------------


def krr(k: int, eps: float) -> np.ndarray:
    """k-ary randomised response (free-will eq. 1): P(z|x) = e^eps / (k-1+e^eps) if z = x, else 1 / (k-1+e^eps).

    Parameters
    ----------
    k : int
        The number of secrets, |X| = |Z| = k >= 2.
    eps : float
        The privacy level, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z] = P(z | x)``; it is eps-LDP (``ldp_level(krr(k, eps)) == eps``).

    Raises
    ------
    ValueError
        If k is not an integer >= 2 or eps is not finite and positive.

    Examples
    --------
    >>> import math
    >>> import privest
    >>> print(privest.krr(3, math.log(2)).round(3))   # e^eps = 2: keep 2/4, each other value 1/4
    [[0.5  0.25 0.25]
     [0.25 0.5  0.25]
     [0.25 0.25 0.5 ]]
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    other = 1.0 / (math.exp(eps) + (k - 1)) if eps < 700 else math.exp(-eps) / (1.0 + (k - 1) * math.exp(-eps))
    keep = 1.0 / (1.0 + (k - 1) * math.exp(-eps))
    A = np.full((k, k), other)
    np.fill_diagonal(A, keep)
    return A


def rappor_flip_probability(eps: float) -> float:
    """The probability 1 / (1 + e^(eps/2)) that basic one-time RAPPOR flips each bit (free-will eq. 12)."""
    return float(flip_probability(check_positive(eps, "eps")))


# --- linear geo-indistinguishable mechanisms --------------------------------------------------------------------------


def geometric(k: int, eps: float) -> np.ndarray:
    """Truncated linear geometric mechanism on X = Z = {0..k-1} (free-will eqs. 2-3).

    P(z|x) = c_z e^{-eps|z-x|} with c_z = 1/(1+e^-eps) at the borders z in {0, k-1} and (1-e^-eps)/(1+e^-eps) inside:
    the untruncated mechanism with every report beyond a border moved onto it.

    Parameters
    ----------
    k : int
        The number of secrets, k >= 2.
    eps : float
        The privacy level per step of the alphabet, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z]``; eps*|x-x'| geo-indistinguishable.

    Raises
    ------
    ValueError
        If k is not an integer >= 2 or eps is not finite and positive.
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    x = np.arange(k)
    c = np.full(k, math.tanh(eps / 2))  # (1 - e^-eps) / (1 + e^-eps)
    c[[0, -1]] = 1.0 / (1.0 + math.exp(-eps))
    return np.exp(-eps * np.abs(x[:, None] - x[None, :])) * c[None, :]


def geometric_untruncated(k: int, eps: float, z_min: int, z_max: int) -> np.ndarray:
    """The columns z_min..z_max of the untruncated linear geometric mechanism on secrets {0..k-1} (IBU eq. 6).

    P(z|x) = c e^{-eps|z-x|} for every integer z, c = (1-e^-eps)/(1+e^-eps). Column j of the result is the observable
    z = z_min + j; shape (k, z_max - z_min + 1). This is a sub-matrix of a mechanism with infinitely many columns, so
    its rows sum to less than 1: a secret x with z_min <= x <= z_max loses the mass
    (e^{-eps(x - z_min + 1)} + e^{-eps(z_max - x + 1)}) / (1 + e^-eps) of the reports outside the range. It is meant
    for likelihoods over the reported integers (likely subsets, IBU section 8), not for sampling.
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    z_min = check_int(z_min, "z_min")
    z_max = check_int(z_max, "z_max")
    if z_max < z_min:
        raise ValueError(f"z_max must be at least z_min, got z_min={z_min}, z_max={z_max}")
    x = np.arange(k)
    z = np.arange(z_min, z_max + 1)
    return math.tanh(eps / 2) * np.exp(-eps * np.abs(z[None, :] - x[:, None]).astype(np.float64))


def laplace(k: int, eps: float) -> np.ndarray:
    """Linear Laplace mechanism on X = Z = {0..k-1} (IBU paper section 7.3, NOTES section 2).

    Continuous noise of density (eps/2) e^{-eps|t|} is added to x and the result is remapped to the nearest integer of
    {0..k-1}: P(z|x) is the noise mass of the cell [z - 1/2, z + 1/2] - x, the border cells extending to -inf and +inf.
    Closed form from the Laplace CDF, each entry computed on the side of x it lies on so that tiny entries keep their
    relative precision.

    Parameters
    ----------
    k : int
        The number of secrets, k >= 2.
    eps : float
        The privacy level per step of the alphabet, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z]``; eps*|x-x'| geo-indistinguishable (post-processing of the continuous
        mechanism).

    Raises
    ------
    ValueError
        If k is not an integer >= 2 or eps is not finite and positive.
    """
    k = check_int(k, "k", minimum=2)
    eps = check_positive(eps, "eps")
    x = np.arange(k, dtype=np.float64)
    lower = np.concatenate([[-np.inf], x[1:] - 0.5])[None, :] - x[:, None]
    upper = np.concatenate([x[:-1] + 0.5, [np.inf]])[None, :] - x[:, None]
    width = upper - lower
    with np.errstate(over="ignore", invalid="ignore"):
        above = 0.5 * np.exp(-eps * lower) * -np.expm1(-eps * width)  # cells with lower >= 0
        below = 0.5 * np.exp(eps * upper) * -np.expm1(-eps * width)  # cells with upper <= 0
        # the cell of x: 1 - e^(eps lower)/2 - e^(-eps upper)/2 with expm1, not cancelling to ~1e-16 at a tiny eps
        around = -0.5 * np.expm1(eps * lower) - 0.5 * np.expm1(-eps * upper)
    return np.where(lower >= 0, above, np.where(upper <= 0, below, around))


def exponential(distances: np.ndarray, eps: float) -> np.ndarray:
    """Exponential mechanism in its geo-indistinguishable form (IBU paper section 7.3, NOTES section 2).

    P(z|x) = e^{-eps d(x,z)/2} / sum_z' e^{-eps d(x,z')/2} over Z = X.
    For a metric d it is eps*d geo-indistinguishable: the kernel ratio is at most e^{eps d(x,x')/2} by the triangle
    inequality, and so is the ratio of the normalisers; the bound eps*d (not eps*d/2) is what it guarantees.

    Parameters
    ----------
    distances : array_like, shape (k, k)
        d(x, z) between the elements of the alphabet (e.g. ``linear_distances(k)`` or ``Grid.distances()``), k >= 2.
    eps : float
        The privacy level per unit of distance, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The row-stochastic matrix ``A[x, z]``.

    Raises
    ------
    ValueError
        If distances is not a finite non-negative square matrix of size at least 2, or eps is not finite and positive.
    """
    d = check_distances(distances, "distances")
    eps = check_positive(eps, "eps")
    if d.shape[0] < 2:
        raise ValueError(f"distances must be at least 2 x 2, got shape {d.shape}")
    A = np.exp(-eps * (d - d.min(axis=1, keepdims=True)) / 2)
    return A / A.sum(axis=1, keepdims=True)


# --- planar mechanisms ------------------------------------------------------------------------------------------------


def _axis_coefficients(n: int, size: int) -> np.ndarray:
    """(n, n, size): the cell offsets that clamp from true cell c to reported cell z, in the half-line basis.

    Row [c, z] holds the coefficients of the half-lines [t, inf), t = 0..size-1, that add up (after mirroring the
    backward half-lines) to the offsets landing in z: e_m - e_{m+1} for an inner z at distance m, e_t for a border.
    """
    B = np.zeros((n, n, size))
    if n == 1:
        B[0, 0, [0, 1]] = 1.0  # the whole line: [0, inf) plus the mirror of [1, inf)
        return B
    c = np.arange(n)
    if n > 2:
        inner_c, inner_z = np.meshgrid(c, c[1:-1], indexing="ij")
        m = np.abs(inner_z - inner_c)
        B[inner_c, inner_z, m] += 1.0
        B[inner_c, inner_z, m + 1] -= 1.0
    B[c, 0, c] = 1.0  # offsets <= -c, mirrored to >= c
    B[c, n - 1, n - 1 - c] = 1.0  # offsets >= n-1-c
    return B


def _remapped_planar(grid: Grid, quadrant: np.ndarray) -> np.ndarray:
    """The (k, k) matrix of planar noise remapped to the nearest cell, from its quadrant-mass table.

    quadrant[t, u] is the noise mass of the offsets (i >= t, j >= u), shape (size, size) with size = max(columns,
    rows, 2). Entries are normalised by the total mass of the table's plane, so every row sums to 1 to rounding.
    """
    size = quadrant.shape[0]
    columns, rows = grid.columns, grid.rows
    Bx = _axis_coefficients(columns, size).reshape(columns * columns, size)
    By = _axis_coefficients(rows, size).reshape(rows * rows, size)
    T = (Bx @ quadrant @ By.T).reshape(columns, columns, rows, rows)  # [cx, zc, cy, zr]
    A = T.transpose(2, 0, 3, 1).reshape(grid.k, grid.k)  # [(cy, cx), (zr, zc)]
    whole = np.zeros(size)
    whole[[0, 1]] = 1.0
    return A / (whole @ quadrant @ whole)


def _planar_geometric_window(a: float, corner: float) -> int:
    """A window radius W for the kernel e^{-a r} on Z^2 such that every quadrant sum it feeds is exact to 1e-17.

    The quadrant sums used have their corner within ``corner`` of the origin, so each is at least e^{-a corner}. The
    kernel left out, outside max(|i|,|j|) <= W, is at most sum_{m > W} 8 m e^{-a m} (the ring max(|i|,|j|) = m has 8m
    points, all with r >= m) = 8 q^M (M (1-q) + q) / (1-q)^2 with M = W + 1 and q = e^-a, which decreases in M once
    M > 1/a. W is the first step of 1/a beyond corner + 1/a where it falls below PLANAR_RELATIVE_TAIL e^{-a corner}:
    then each entry has its relative precision, not just an absolute one, and the mass left out of the total (at least
    1) is far below the 1e-12 of NOTES section 2.
    """
    one_minus_q = -math.expm1(-a)
    log_target = math.log(PLANAR_RELATIVE_TAIL) - a * corner
    step = math.ceil(1 / a)
    M = math.ceil(corner + 1 / a)
    while math.log(8.0) - a * M + math.log(M * one_minus_q + 1 - one_minus_q) - 2 * math.log(one_minus_q) >= log_target:
        M += step
        if M > MAX_PLANAR_WINDOW:
            raise ValueError(f"eps * cell_km = {a:g} is too small: the planar geometric window exceeds "
                             f"{MAX_PLANAR_WINDOW} cells")
    return M - 1


def planar_geometric(grid: Grid, eps: float) -> np.ndarray:
    """Planar geometric mechanism on the cells of ``grid``, reports remapped to the nearest cell (free-will 2.3).

    P(z|x) = lambda e^{-eps d(x,z)} over the centres z of the infinite grid of cells (d in km, eps per km), lambda =
    1 / sum_{(i,j) in Z^2} e^{-eps s sqrt(i^2+j^2)}, s = cell_km; a report outside the grid moves to the nearest cell
    (its cell indices are clamped). Computed from the reverse 2-D cumulative sums of one kernel over the offsets
    max(|i|,|j|) <= W, W chosen so that the kernel left out is below 1e-17 of every quadrant sum used (so every entry,
    however small, keeps its relative precision, and far less than 1e-12 of the total is lost); rows sum to 1 to
    rounding.

    Parameters
    ----------
    grid : Grid
        The planar alphabet X = Z: ``grid.k`` cells, index ``row * columns + column``.
    eps : float
        The privacy level per km, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (grid.k, grid.k)
        The row-stochastic matrix ``A[x, z]``; eps*d geo-indistinguishable.

    Raises
    ------
    ValueError
        If grid is not a ``Grid``, eps is not finite and positive, or ``eps * grid.cell_km`` is so small (below about
        3e-3) that the kernel window would exceed ``MAX_PLANAR_WINDOW`` cells.
    """
    grid = check_instance(grid, "grid", Grid, "a privest.alphabets.Grid")
    eps = check_positive(eps, "eps")
    a = eps * grid.cell_km
    size = max(grid.columns, grid.rows, 2)
    window = _planar_geometric_window(a, math.sqrt(2) * (size - 1))
    j = np.arange(window + 1, dtype=np.float64)
    block = max(1, 4_000_000 // (window + 1))
    row_tails = np.empty((window + 1, size))  # row_tails[i, u] = sum_{j >= u} K(i, j)
    for start in range(0, window + 1, block):
        i = j[start:start + block]
        kernel = np.exp(-a * np.hypot(i[:, None], j[None, :]))
        row_tails[start:start + block] = np.cumsum(kernel[:, ::-1], axis=1)[:, ::-1][:, :size]
    quadrant = np.cumsum(row_tails[::-1], axis=0)[::-1][:size]
    return _remapped_planar(grid, quadrant)


def _planar_laplace_edge(c: np.ndarray, s0: np.ndarray, b: float) -> np.ndarray:
    """J(c, s0) = int_{s0}^inf G(sqrt(c^2+s^2)) c / (c^2+s^2) ds for c > 0, s0 >= 0; G(r) = (1 + b r) e^{-b r}.

    2 pi J is the planar Laplace mass (rate b) beyond the edge {u = c, v >= s0}, seen from the origin: G is the mass
    beyond radius r and c ds / (c^2 + s^2) the angle. With s = c sinh(w) it is the smooth, fast-decaying
    int_{w0}^inf G(c cosh w) / cosh w dw, w0 = asinh(s0/c); factoring out e^{-b r0}, r0 = hypot(c, s0), keeps the
    relative precision of tiny masses. Gauss-Legendre on 8 equal panels up to where the integrand has fallen by e^-50.
    """
    w0 = np.arcsinh(s0 / c)
    r0 = np.hypot(c, s0)
    w1 = np.arccosh((r0 + _LAPLACE_TAIL_EXPONENT / b) / c)
    nodes, weights = _GAUSS_LEGENDRE
    t = ((np.arange(_PANELS)[:, None] + (nodes[None, :] + 1) / 2) / _PANELS).ravel()
    wt = np.tile(weights / 2 / _PANELS, _PANELS)
    w = w0[:, None] + (w1 - w0)[:, None] * t[None, :]
    bc = (b * c)[:, None]
    cosh_w = np.cosh(w)
    rise = 2 * np.sinh((w + w0[:, None]) / 2) * np.sinh((w - w0[:, None]) / 2)  # cosh w - cosh w0, accurately
    f = (1 + bc * cosh_w) * np.exp(-bc * rise) / cosh_w
    return np.exp(-b * r0) * (w1 - w0) * (f @ wt)


def _planar_laplace_quadrants(size: int, b: float) -> np.ndarray:
    """S[t, u] = planar Laplace mass (rate b per cell) of [t - 1/2, inf) x [u - 1/2, inf), t, u = 0..size-1.

    From Q(p, q) = P(X >= p, Y >= q) for p, q >= 0, which is (J(p, q) + J(q, p)) / 2pi (the quadrant is seen through
    its two edges); the half-line [-1/2, inf) is the half-plane minus the mirror of [1/2, inf).
    """
    p = np.concatenate([[0.0], np.arange(1, size) - 0.5])
    P, R = np.meshgrid(p, p, indexing="ij")
    Q = np.zeros((size, size))
    Q[0, 0] = 0.25
    for c, s in ((P, R), (R, P)):  # through the edge {u = p, v >= q}, then through {v = q, u >= p}
        edge = c > 0
        Q[edge] += _planar_laplace_edge(c[edge], s[edge], b) / (2 * math.pi)
    half = 2 * Q[0]  # P(Y >= q)
    S = Q.copy()
    S[0, 1:] = half[1:] - Q[1, 1:]
    S[1:, 0] = S[0, 1:]
    S[0, 0] = 1.0 - 2 * half[1] + Q[1, 1]
    return S


def planar_laplace(grid: Grid, eps: float) -> np.ndarray:
    """Planar Laplace mechanism on the cells of ``grid``, remapped to the nearest cell (IBU paper 7.3, NOTES 2).

    Continuous noise of density (eps^2 / 2pi) e^{-eps r} (r in km, eps per km) around the true cell's centre; the
    noisy point is reported as the cell containing it, border cells extending to infinity. P(z|x) is the noise mass
    of z's region, from quadrant masses computed by a 1-D Gauss-Legendre quadrature of the radial survival function
    (1 + eps r) e^{-eps r} over the angle of each quadrant's edges (relative precision about 1e-13).

    Parameters
    ----------
    grid : Grid
        The planar alphabet X = Z: ``grid.k`` cells, index ``row * columns + column``.
    eps : float
        The privacy level per km, finite and positive.

    Returns
    -------
    numpy.ndarray, shape (grid.k, grid.k)
        The row-stochastic matrix ``A[x, z]``; eps*d geo-indistinguishable (post-processing of the continuous
        mechanism).

    Raises
    ------
    ValueError
        If grid is not a ``Grid`` or eps is not finite and positive.
    """
    grid = check_instance(grid, "grid", Grid, "a privest.alphabets.Grid")
    eps = check_positive(eps, "eps")
    size = max(grid.columns, grid.rows, 2)
    return _remapped_planar(grid, _planar_laplace_quadrants(size, eps * grid.cell_km))


def _axis_remap(cells: int, cell_km: float, out_cells: int, out_km: float, atol: float) -> np.ndarray:
    """(cells, out_cells): each centre (c + 1/2) cell_km goes to the nearest centre (j + 1/2) out_km, equally split
    between the nearest ones when several are within ``atol`` km of the minimum distance."""
    distance = np.abs((np.arange(cells)[:, None] + 0.5) * cell_km - (np.arange(out_cells)[None, :] + 0.5) * out_km)
    nearest = distance <= distance.min(axis=1, keepdims=True) + atol
    return nearest / nearest.sum(axis=1, keepdims=True)


def remap_to_grid(grid: Grid, output_grid: Grid, atol: float = 1e-9) -> np.ndarray:
    """The remap matrix R[x, z] (k, k_out): the centre of cell x of ``grid`` goes to the nearest centre z of
    ``output_grid``, both grids laid from the same south-west corner; a centre equidistant (within ``atol`` km) from
    several output centres goes to each with equal probability. Nearest in the plane is nearest along each axis, so R
    is the product of two per-axis remaps (a centre on the line between two output columns splits 1/2-1/2, one on the
    crossing of two such lines 1/4 four ways). Row-stochastic, 0/1 where there is no tie.
    """
    grid = check_instance(grid, "grid", Grid, "a privest.alphabets.Grid")
    output_grid = check_instance(output_grid, "output_grid", Grid, "a privest.alphabets.Grid")
    atol = check_non_negative(atol, "atol")
    columns = _axis_remap(grid.columns, grid.cell_km, output_grid.columns, output_grid.cell_km, atol)
    rows = _axis_remap(grid.rows, grid.cell_km, output_grid.rows, output_grid.cell_km, atol)
    return np.einsum("rs,cd->rcsd", rows, columns).reshape(grid.k, output_grid.k)


def planar_geometric_remapped(grid: Grid, output_grid: Grid, eps: float) -> np.ndarray:
    """IBU paper 6.4: the planar geometric mechanism on the cells of ``grid`` (a draw of the infinite grid of cell
    centres, P = lambda e^{-eps d}), each draw remapped to the nearest cell centre of ``output_grid`` (ties split
    equally, see ``remap_to_grid``). Shape (k, k_out); a non-identifiable mechanism when k_out < k (Theorem 6.1).

    Computed as ``planar_geometric(grid, eps) @ remap_to_grid(grid, output_grid)``. That composition first clamps a
    draw beyond the border of ``grid`` to the border cell, then remaps it; it equals remapping the draw directly
    because both grids cover the same rectangle: a draw beyond a border has the outermost output cell of that side
    as its nearest, and so has the border cell (checked: the remap sends each border cell of ``grid`` wholly to the
    border cell of ``output_grid`` on its side).
    """
    grid = check_instance(grid, "grid", Grid, "a privest.alphabets.Grid")
    output_grid = check_instance(output_grid, "output_grid", Grid, "a privest.alphabets.Grid")
    eps = check_positive(eps, "eps")
    for axis, n_in, n_out in (("columns", grid.columns, output_grid.columns), ("rows", grid.rows, output_grid.rows)):
        if not math.isclose(n_in * grid.cell_km, n_out * output_grid.cell_km, rel_tol=0, abs_tol=1e-9):
            raise ValueError(f"output_grid must cover the same extent as grid along its {axis}: "
                             f"{n_in} x {grid.cell_km} km against {n_out} x {output_grid.cell_km} km")
        remap = _axis_remap(n_in, grid.cell_km, n_out, output_grid.cell_km, 1e-9)
        if remap[0, 0] != 1.0 or remap[-1, -1] != 1.0:
            raise ValueError(f"the border cells of grid along its {axis} must go wholly to the border output cells")
    return planar_geometric(grid, eps) @ remap_to_grid(grid, output_grid)


# --- combining and checking -------------------------------------------------------------------------------------------


def average(mechanisms: Sequence[np.ndarray], weights: Sequence[float] | np.ndarray | None = None) -> np.ndarray:
    """The average mechanism sum_A w_A A with the weights normalised to sum 1 (free-will eq. 7, A[n] with n^A/n).

    Parameters
    ----------
    mechanisms : sequence of array_like, each of shape (k, m)
        Row-stochastic matrices of one shape (one alphabet of observables), rows summing to 1 within 1e-9.
    weights : array_like, shape (len(mechanisms),), optional
        Non-negative, positive sum, e.g. the numbers of users n^A (default: equal weights).

    Returns
    -------
    numpy.ndarray, shape (k, m)
        The row-stochastic average mechanism.

    Raises
    ------
    ValueError
        If mechanisms is empty, a matrix is not row-stochastic, the shapes differ, or the weights have the wrong shape,
        a negative or non-finite entry, or a zero sum.
    """
    check_sequence(mechanisms, "mechanisms", minimum=1)
    matrices = [check_row_stochastic(A, f"mechanisms[{i}]", atol=1e-9) for i, A in enumerate(mechanisms)]
    for i, A in enumerate(matrices):
        if A.shape != matrices[0].shape:
            raise ValueError(f"mechanisms[{i}] has shape {A.shape} but mechanisms[0] has {matrices[0].shape}")
    w = np.ones(len(matrices)) if weights is None else check_non_negative_array(
        weights, "weights", shape=(len(matrices),), positive_sum=True)
    return np.tensordot(w / w.sum(), np.stack(matrices), axes=1)


def _column_blocks(A: np.ndarray) -> Iterator[np.ndarray]:
    """log A[x, z] - log A[x', z] as (k, k, b) blocks of columns (nan where both entries are 0)."""
    k, m = A.shape
    block = max(1, 2**22 // (k * k))
    with np.errstate(divide="ignore"):
        log_A = np.log(A)
    for start in range(0, m, block):
        L = log_A[:, start:start + block]
        with np.errstate(invalid="ignore"):
            yield L[:, None, :] - L[None, :, :]


def ldp_level(A: np.ndarray) -> float:
    """The smallest eps for which A is eps-LDP: max over columns of log(max_x A[x,z] / min_x A[x,z]) (inf if none).

    Parameters
    ----------
    A : array_like, shape (k, m)
        A mechanism (non-negative; rows need not sum to 1). All-zero columns are ignored.

    Returns
    -------
    float
        The LDP level, 0 for a mechanism whose columns are constant, inf if a column mixes zero and positive entries.

    Raises
    ------
    ValueError
        If A is not a non-empty 2-D matrix of finite non-negative entries.
    """
    A = check_matrix(A, "A")
    high, low = A.max(axis=0), A.min(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        level = np.log(high) - np.log(low)
    level = level[high > 0]
    return float(max(level.max(initial=0.0), 0.0))


def is_ldp(A: np.ndarray, eps: float, rtol: float = 1e-9) -> bool:
    """Whether A is eps-LDP: A[x,z] <= e^eps A[x',z] (1 + rtol) for all secrets x, x' and observables z.

    Parameters
    ----------
    A : array_like, shape (k, m)
        A mechanism (non-negative; rows need not sum to 1).
    eps : float
        The privacy level to check, finite and positive.
    rtol : float
        Relative tolerance on the ratio, for round-off.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If A is not a non-empty 2-D matrix of finite non-negative entries, or eps is not finite and positive.
    """
    A = check_matrix(A, "A")
    eps = check_positive(eps, "eps")
    rtol = check_non_negative(rtol, "rtol")
    return ldp_level(A) <= eps + math.log1p(rtol)


def geo_indistinguishability_level(A: np.ndarray, distances: np.ndarray) -> float:
    """The smallest eps for which A is eps*d geo-indistinguishable: max log(A[x,z] / A[x',z]) / d(x, x').

    Over all z and x != x'; inf if a pair at distance 0, or a zero entry facing a positive one, forbids every eps.
    """
    A = check_matrix(A, "A")
    d = check_distances(distances, "distances", A.shape[0])
    off_diagonal = ~np.eye(A.shape[0], dtype=bool)
    x, x_other = np.nonzero(off_diagonal & (d == 0))
    if np.any(A[x] != A[x_other]):
        return math.inf
    with np.errstate(divide="ignore"):
        inverse = np.where(off_diagonal & (d > 0), 1.0 / d, 0.0)[:, :, None]
    level = 0.0
    for diff in _column_blocks(A):
        with np.errstate(invalid="ignore"):
            level = max(level, float(np.fmax.reduce(diff * inverse, axis=None)))  # fmax skips the nan of 0 vs 0
    return level


def is_geo_indistinguishable(A: np.ndarray, distances: np.ndarray, eps: float, rtol: float = 1e-9) -> bool:
    """Whether A is eps*d geo-indistinguishable: A[x,z] <= e^{eps d(x,x')} A[x',z] (1 + rtol) for all x, x', z.

    Parameters
    ----------
    A : array_like, shape (k, m)
        A mechanism (non-negative; rows need not sum to 1).
    distances : array_like, shape (k, k)
        d(x, x') between the secrets, in the unit eps is given per (steps, km).
    eps : float
        The privacy level per unit of distance, finite and positive.
    rtol : float
        Relative tolerance on the ratio, for round-off.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If A is not a non-empty 2-D matrix of finite non-negative entries, distances is not a finite non-negative
        (k, k) matrix, or eps is not finite and positive.
    """
    A = check_matrix(A, "A")
    d = check_distances(distances, "distances", A.shape[0])
    eps = check_positive(eps, "eps")
    rtol = check_non_negative(rtol, "rtol")
    bound = (eps * d + math.log1p(rtol))[:, :, None]
    return not any(np.any(diff > bound) for diff in _column_blocks(A))


def by_name(kind: str, alphabet: Alphabet, eps: float) -> np.ndarray:
    """The matrix of the mechanism named ``kind`` on ``alphabet``, as a config names it.

    Parameters
    ----------
    kind : {"krr", "geometric", "laplace", "exponential"}
        geometric and laplace are the linear mechanisms (eqs. 2-3) on a linear alphabet and the planar ones (NOTES 2)
        on a grid (categories have no geometry: refused); krr and exponential work on every alphabet.
    alphabet : Alphabet
        The secrets (and, for these mechanisms, the observables).
    eps : float
        The privacy parameter (per unit of distance for the metric mechanisms: per index step, per km on a grid,
        per unit of the data on a linear alphabet with ``spacing``).

    Returns
    -------
    numpy.ndarray, shape (alphabet.k, alphabet.k)
        The row-stochastic matrix ``A[x, z]``.

    Raises
    ------
    ValueError
        If kind is not one of the names above, is geometric or laplace on categories, or the mechanism rejects eps
        (see ``krr``, ``geometric``, ...).
    """
    check_choice(kind, "kind", ("krr", "exponential", "geometric", "laplace"))
    check_instance(alphabet, "alphabet", Alphabet, "a privest.alphabets.Alphabet")
    if kind == "krr":
        return krr(alphabet.k, eps)
    if kind == "exponential":
        return exponential(alphabet.distances(), eps)
    if alphabet.categories is not None:
        raise ValueError(f"the {kind} mechanism needs a geometry (a linear or planar alphabet); categories have none:"
                         " use krr, exponential, rappor or a standard protocol")
    if alphabet.grid is not None:
        return {"geometric": planar_geometric, "laplace": planar_laplace}[kind](alphabet.grid, eps)
    # eps is per unit of distance: spacing units between neighbours make eps * spacing per index step
    return {"geometric": geometric, "laplace": laplace}[kind](alphabet.k, eps * alphabet.spacing)
