"""Sampling the users' reports, vectorised over users; every draw comes from an explicit numpy Generator."""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from privest._checks import (
    check_int,
    check_integers,
    check_non_negative_array,
    check_positive,
    check_rng,
    check_row_stochastic,
    check_secrets,
    check_sequence,
)
from privest.rappor import RapporReports, flip_probability

__all__ = [
    "Mechanism",
    "Rappor",
    "Reports",
    "check_secrets",
    "population",
    "rappor",
    "rng_for",
    "sample",
    "sample_counts",
    "split_secrets",
    "split_users",
]


def rng_for(seed: int, *keys: object) -> np.random.Generator:
    """A Generator determined by the config seed and the job's keys (study, experiment, n, run, ...).

    The keys are hashed with SHA-256 (not Python's salted hash), so the stream is the same on every machine.

    Parameters
    ----------
    seed : int
        The base seed.
    *keys : object
        Any values, compared by their ``str``: the same seed and keys give the same stream.

    Returns
    -------
    numpy.random.Generator
        A fresh generator fed with a ``SeedSequence`` of the hash; never the global numpy state.
    """
    text = "\x1f".join([str(check_int(seed, "seed")), *map(str, keys)])
    digest = hashlib.sha256(text.encode()).digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest, "little")))


def sample(A: np.ndarray, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One report per user: z ~ A[secrets[i], :], returned as column indices, shape (n,).

    Inverse-CDF sampling: one uniform per user, one searchsorted per row of A over the users holding that secret.

    Parameters
    ----------
    A : array_like, shape (k, m)
        The mechanism, rows summing to 1 within 1e-9.
    secrets : array_like of int, shape (n,)
        Each user's secret, in 0..k-1.
    rng : numpy.random.Generator
        The source of randomness (e.g. from ``rng_for``).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Each user's report, a column index of A.

    Raises
    ------
    ValueError
        If A is not row-stochastic, or secrets is not a 1-D integer array with values in 0..k-1.
    """
    A = check_row_stochastic(A, "A", atol=1e-9)
    k = A.shape[0]
    secrets = check_secrets(secrets, k)
    rng = check_rng(rng)
    cdf = np.cumsum(A, axis=1)
    cdf[:, -1] = np.inf
    u = rng.random(secrets.size)
    order = np.argsort(secrets, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(secrets, minlength=k))])
    reports = np.empty(secrets.size, dtype=np.int64)
    for x in np.flatnonzero(np.diff(bounds)):
        users = order[bounds[x]:bounds[x + 1]]
        reports[users] = np.searchsorted(cdf[x], u[users], side="right")
    return reports


def sample_counts(A: np.ndarray, secret_counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The counts of reports over the columns of A when secret_counts[x] users hold secret x, shape (m,).

    Equal in distribution to ``bincount(sample(A, secrets))`` and costs O(k m), whatever the number of users: one
    multinomial draw per secret.

    Parameters
    ----------
    A : array_like, shape (k, m)
        The mechanism, rows summing to 1 within 1e-9.
    secret_counts : array_like of int, shape (k,)
        How many users hold each secret.
    rng : numpy.random.Generator
        The source of randomness (e.g. from ``rng_for``).

    Returns
    -------
    numpy.ndarray of int, shape (m,)
        How many users reported each column of A; sums to ``secret_counts.sum()``.

    Raises
    ------
    ValueError
        If A is not row-stochastic, or secret_counts is not non-negative of shape (k,).

    Examples
    --------
    >>> import numpy as np
    >>> import privest
    >>> rng = privest.rng_for(2026, "sample_counts doctest")
    >>> q = privest.sample_counts(privest.krr(3, 1.0), np.array([500, 300, 200]), rng)
    >>> q.shape, int(q.sum())
    ((3,), 1000)
    """
    A = check_row_stochastic(A, "A", atol=1e-9)
    secret_counts = check_integers(secret_counts, "secret_counts", 0, None, shape=(A.shape[0],))
    rng = check_rng(rng)
    P = A / A.sum(axis=1, keepdims=True)
    return rng.multinomial(secret_counts, P).sum(axis=0)


def rappor(secrets: np.ndarray, k: int, eps: float | np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Basic one-time RAPPOR (free-will eq. 12): one-hot bits of each secret, each flipped with 1/(1+e^(eps/2)).

    eps is one value or one per user. Returns a (n, k) uint8 bit matrix.
    """
    k = check_int(k, "k", minimum=2)
    secrets = check_secrets(secrets, k)
    flip = flip_probability(eps)
    if np.ndim(flip) and np.shape(flip) != secrets.shape:
        raise ValueError(f"eps must be one value or one per user {secrets.shape}, got shape {np.shape(flip)}")
    rng = check_rng(rng)
    flip = np.broadcast_to(flip, secrets.shape)[:, None]
    bits = rng.random((secrets.size, k)) < flip
    bits[np.arange(secrets.size), secrets] ^= True
    return bits.astype(np.uint8)


@dataclass(frozen=True)
class Rappor:
    """A RAPPOR mechanism on k secrets, for populations that mix it with matrix mechanisms."""

    k: int
    eps: float

    def __post_init__(self) -> None:
        check_int(self.k, "k", minimum=2)
        check_positive(self.eps, "eps")


Mechanism = np.ndarray | Rappor
Reports = np.ndarray | RapporReports


def population(mechanisms: Sequence[Mechanism], secret_counts: np.ndarray, rng: np.random.Generator) -> list[Reports]:
    """Reports of a population whose users use different mechanisms, in one call.

    The cost is independent of the number of users for matrix mechanisms and linear in it for RAPPOR.

    Parameters
    ----------
    mechanisms : sequence of numpy.ndarray or Rappor
        A matrix mechanism (k, m_A) or a ``privest.sampling.Rappor(k, eps)`` (free-will eq. 12) per group of users.
    secret_counts : array_like of int, shape (len(mechanisms), k)
        The secrets of each mechanism's users (e.g. from ``split_users``).
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    list
        Per mechanism, the counts of reports over its columns, shape (m_A,) (a matrix mechanism), or the grouped bit
        reports as ``RapporReports`` (RAPPOR). Pass them to ``matrix_group`` and ``rappor_group`` for ``gibu``.

    Raises
    ------
    ValueError
        If secret_counts does not have one row per mechanism, or as ``sample_counts``.
    """
    check_sequence(mechanisms, "mechanisms", minimum=1)
    secret_counts = check_integers(secret_counts, "secret_counts", 0, None, ndim=2)
    if secret_counts.shape[0] != len(mechanisms):
        raise ValueError(f"secret_counts needs a row per item of mechanisms ({len(mechanisms)}), got "
                         f"{secret_counts.shape}")
    rng = check_rng(rng)
    for i, mechanism in enumerate(mechanisms):
        k = mechanism.k if isinstance(mechanism, Rappor) else check_row_stochastic(
            mechanism, f"mechanisms[{i}]", atol=1e-9).shape[0]
        if secret_counts.shape[1] != k:
            raise ValueError(f"secret_counts must have k = {k} columns for mechanisms[{i}], got {secret_counts.shape}")
    reports: list[Reports] = []
    for mechanism, counts in zip(mechanisms, secret_counts, strict=True):
        if isinstance(mechanism, Rappor):
            secrets = np.repeat(np.arange(mechanism.k), counts)
            reports.append(RapporReports.from_bits(rappor(secrets, mechanism.k, mechanism.eps, rng), mechanism.eps))
        else:
            reports.append(sample_counts(mechanism, counts, rng))
    return reports


def split_users(n: int, groups: int, theta: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Secret counts of n users drawn i.i.d. from theta and split as equally as possible over ``groups`` mechanisms.

    The first n % groups mechanisms get one user more.

    Parameters
    ----------
    n : int
        The number of users, at least ``groups``.
    groups : int
        The number of mechanisms, at least 1.
    theta : array_like, shape (k,)
        The distribution of the secrets (renormalised to sum 1).
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    numpy.ndarray of int, shape (groups, k)
        Row g: how many of mechanism g's users hold each secret.

    Raises
    ------
    ValueError
        If n < groups or groups < 1, or theta is not non-negative and finite with a positive sum.
    TypeError
        If n or groups is not an integer, or rng not a numpy Generator.
    """
    groups = check_int(groups, "groups", minimum=1)
    n = check_int(n, "n", minimum=1)
    theta = check_non_negative_array(theta, "theta", ndim=1, positive_sum=True)
    rng = check_rng(rng)
    if n < groups:
        raise ValueError(f"n must be at least the number of mechanisms ({groups}), got {n}")
    sizes = np.full(groups, n // groups) + (np.arange(groups) < n % groups)
    return rng.multinomial(sizes, theta / theta.sum())


def split_secrets(secrets: np.ndarray, k: int, groups: int, rng: np.random.Generator) -> np.ndarray:
    """Secret counts of the given users (a dataset) assigned at random, as equally as possible, to ``groups``."""
    secrets = check_secrets(secrets, k)
    groups = check_int(groups, "groups", minimum=1)
    rng = check_rng(rng)
    order = rng.permutation(secrets.size)
    assignment = np.arange(secrets.size) % groups
    return np.stack([np.bincount(secrets[order][assignment == g], minlength=k) for g in range(groups)])
