"""The planar mechanisms on a ``Grid`` (free-will and IBU papers, decisions.md, section 2): the planar geometric and
planar Laplace mechanisms, eps per km, and their remapping to a coarser output grid.

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

import numpy as np

from privest._checks import (
    check_instance,
    check_non_negative,
    check_positive,
)
from privest.alphabets import Grid

__all__ = [
    "MAX_PLANAR_WINDOW",
    "PLANAR_RELATIVE_TAIL",
    "planar_geometric",
    "planar_geometric_remapped",
    "planar_laplace",
    "remap_to_grid",
]

PLANAR_RELATIVE_TAIL = 1e-17
"""The planar geometric kernel left out of the window, relative to the smallest quadrant sum that the matrix uses."""


MAX_PLANAR_WINDOW = 20_000
"""The largest window radius, in cells, of the planar geometric mechanism (eps * cell_km down to about 3e-3)."""


_GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(16)


_PANELS = 8


_LAPLACE_TAIL_EXPONENT = 50.0


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
    kernel left out, outside ``max(|i|,|j|) <= W``, is at most sum_{m > W} 8 m e^{-a m} (the ring ``max(|i|,|j|) = m``
    has 8m points, all with r >= m) = 8 q^M (M (1-q) + q) / (1-q)^2 with M = W + 1 and q = e^-a, which decreases in M
    once M > 1/a. W is the first step of 1/a beyond corner + 1/a where it falls below PLANAR_RELATIVE_TAIL e^{-a
    corner}: then each entry has its relative precision, not just an absolute one, and the mass left out of the total
    (at least 1) is far below the 1e-12 of decisions.md, section 2.
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
    ``max(|i|,|j|) <= W``, W chosen so that the kernel left out is below 1e-17 of every quadrant sum used (so every
    entry, however small, keeps its relative precision, and far less than 1e-12 of the total is lost); rows sum to 1 to
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
    """Planar Laplace mechanism on the cells of ``grid``, remapped to the nearest cell (IBU paper 7.3, decisions.md,
    section 2).

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
