"""Likely subsets (IBU paper section 8): the secrets that can hold the MLE's mass, from the reports alone, on a
linear alphabet, a planar grid and under k-RR.
"""


import numpy as np

from privest._checks import (
    check_finite,
    check_integers,
    check_non_negative,
)

__all__ = [
    "likely_subset_krr",
    "likely_subset_linear",
    "likely_subset_planar",
]

def likely_subset_linear(alphabet: np.ndarray, reports: np.ndarray) -> np.ndarray:
    """IBU paper Prop. 8.2: the indices of [x_min, x_max] ∩ X, where x_min is the largest element of X at or below
    every report and x_max the smallest at or above every report (the ends of X when there is none)."""
    alphabet, reports = check_finite(alphabet, "alphabet"), check_finite(reports, "reports")
    if alphabet.ndim != 1 or alphabet.size == 0 or np.any(np.diff(alphabet) <= 0):
        raise ValueError("alphabet must be a strictly increasing 1-D array")
    if reports.size == 0:
        raise ValueError("reports must not be empty")
    below = alphabet[alphabet <= reports.min()]
    above = alphabet[alphabet >= reports.max()]
    low = below.max() if below.size else alphabet[0]
    high = above.min() if above.size else alphabet[-1]
    return np.flatnonzero((alphabet >= low) & (alphabet <= high))


def _hull(points: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The vertices of the convex hull of distinct planar points, in order, and its half-plane equations (None when
    the points are fewer than three or on one line: the hull is then the segment between the two extreme points)."""
    from scipy.spatial import ConvexHull, QhullError  # here: scipy.spatial costs 0.3 s to import

    if len(points) > 2 and np.linalg.matrix_rank(points - points[0], tol=1e-12) == 2:
        try:
            hull = ConvexHull(points)
            return points[hull.vertices], hull.equations
        except QhullError:
            pass
    order = np.lexsort(points.T[::-1])
    return points[order[[0, -1]]], None


def _distance_to_hull(points: np.ndarray, vertices: np.ndarray, equations: np.ndarray | None) -> np.ndarray:
    """Euclidean distance of each point to the convex polygon (or segment) with the given vertices, 0 inside."""
    a, b = vertices, np.roll(vertices, -1, axis=0)
    ab = b - a
    length2 = np.maximum((ab**2).sum(axis=1), 1e-300)
    t = np.clip(((points[:, None, :] - a[None]) * ab[None]).sum(axis=2) / length2, 0, 1)
    nearest = a[None] + t[..., None] * ab[None]
    distance = np.sqrt(((points[:, None, :] - nearest) ** 2).sum(axis=2)).min(axis=1)
    if equations is None:
        return distance
    inside = np.all(points @ equations[:, :2].T + equations[:, 2] <= 1e-12, axis=1)
    return np.where(inside, 0.0, distance)


def likely_subset_planar(centres: np.ndarray, reports: np.ndarray, delta: float) -> np.ndarray:
    """IBU paper Prop. 8.3: the indices of the cells within delta' of the convex hull of the reported points, with
    delta' = (delta^2 + 2 delta max_ij d(z_i, z_j))^{1/2} (eq. 13) and delta the discretisation error of X."""
    centres, reports = check_finite(centres, "centres"), check_finite(reports, "reports")
    delta = check_non_negative(delta, "delta")
    if centres.ndim != 2 or centres.shape[1] != 2 or reports.ndim != 2 or reports.shape[1] != 2 or not len(reports):
        raise ValueError("centres and reports must be arrays of planar points, shape (., 2), reports not empty")
    if delta < 0:
        raise ValueError(f"delta must be non-negative, got {delta}")
    vertices, equations = _hull(np.unique(reports, axis=0))
    diameter = np.sqrt(((vertices[:, None] - vertices[None]) ** 2).sum(axis=2)).max()
    reach = np.sqrt(delta**2 + 2 * delta * diameter)
    return np.flatnonzero(_distance_to_hull(centres, vertices, equations) <= reach + 1e-12)


def likely_subset_krr(reports: np.ndarray) -> np.ndarray:
    """IBU paper Prop. 8.4: under k-RR the reported values are a likely subset."""
    reports = check_integers(reports, "reports", 0, None, ndim=1)
    if reports.size == 0:
        raise ValueError("reports must not be empty")
    return np.unique(reports)
