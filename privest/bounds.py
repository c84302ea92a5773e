"""The expected squared error of INV (IBU paper section 7.6): the two propositions' bounds, the exact value from the
mechanism's inverse, and its simulation.

INV solves v M = q for the empirical distribution q of n reports (the raw vector, before any post-processing). With
m = theta M, n q is Multinomial(n, m): E q = m and Cov q = (diag(m) - m m^T) / n, so v - theta = (q - m) M^{-1} and

    E ||v - theta||^2 = (1/n) tr(M^{-T} (diag(m) - m m^T) M^{-1}).

Every function returns n times the error, the constant C of "C / n" in which the paper states its bounds.
"""

import math
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = [
    "inv_error_exact",
    "inv_errors_simulated",
    "inv_geometric_lower_bound",
    "inv_krr_error",
    "inv_krr_upper_bound",
    "markdown_table",
]


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


def markdown_table(rows: Sequence[Mapping[str, object]], columns: Sequence[str]) -> str:
    """A GitHub markdown table of dict rows in ``columns`` order (the .md beside a paper table's CSV)."""
    def cell(value: object) -> str:
        if isinstance(value, float):
            return f"{value:.6g}"
        return str(value)

    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"
