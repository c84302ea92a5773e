"""Shared by tests/peers: the setting, privest's reports, the peers' seeded randomness, and two-sample tests with their
power.

The peers draw from global random state (Python's ``random``, numpy's legacy global generator, and numba's own
generator inside their jit-compiled clients); ``peer_seed`` seeds all three and restores the first two afterwards, so
every test is deterministic. privest draws from ``rng_for(SEED, "peers", ...)``.

Each distribution test compares N = 10^5 reports of one fixed secret from privest with N from a peer, at
p < ALPHA = 1e-4. Its power against a named error (computed by ``homogeneity_power`` or ``coordinate_power`` and
asserted in the test, so that shrinking N cannot make the test toothless) is at least 0.97.
"""

import random
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import numba
import numpy as np
import xxhash
from scipy.stats import chi2, chi2_contingency, fisher_exact, ncx2, norm

from privest import protocols, rng_for

SEED = 2026
K = 12  # secrets; HR's output alphabet is then K_HR = 16 (the smallest power of 2 above k)
EPS = 1.0  # pure-LDP's HR is the Hadamard response of Acharya et al. only for eps <= 1
N = 100_000  # reports per side in each distribution test
SECRET = 5  # every user of a distribution test holds this secret
OTHER = 9  # a second value, not the secret, for the local-hashing statistics
ALPHA = 1e-4  # p-value threshold of every distribution test
MIN_POWER = 0.97  # each test's power against its named error must be at least this
NO_STOP = float(np.finfo(np.float64).tiny)  # a stopping tolerance no iteration undercuts: run exactly max_iter


@numba.njit
def _seed_numba(seed: int) -> None:
    np.random.seed(seed)  # noqa: NPY002 (in jit code: numba's generator, which the peers' jit clients use)


@contextmanager
def peer_seed(seed: int) -> Iterator[None]:
    """Seed Python's ``random``, numpy's global generator and numba's generator; restore the first two on exit."""
    python_state, numpy_state = random.getstate(), np.random.get_state()  # noqa: NPY002
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 (the peers draw from the global generator)
    _seed_numba(seed)
    try:
        yield
    finally:
        random.setstate(python_state)
        np.random.set_state(numpy_state)  # noqa: NPY002


@cache
def privest_reports(name: str, hashes: int | None = None):
    """N reports of SECRET from privest's protocol ``name`` (``hashes`` for BLH/OLH), drawn once per session."""
    m = protocol(name, hashes)
    return m.sample(np.full(N, SECRET, dtype=np.int64), rng_for(SEED, "peers", name, str(hashes)))


def protocol(name: str, hashes: int | None = None):
    """privest's protocol ``name`` at (K, EPS)."""
    return protocols.by_name(name, K, EPS, hashes=hashes) if name in ("blh", "olh") else protocols.by_name(name, K, EPS)


def hash_reports(seeds, values) -> "protocols.HashReports":
    """A peer's (value, seed) pairs as privest's HashReports. xxhash takes a seed modulo 2^32 (``test_xxhash_*``), so
    the peers' seeds of up to 2^63 become the uint32 seeds that hash alike."""
    seeds = np.asarray([int(s) % 2**32 for s in seeds], dtype=np.uint32)
    return protocols.HashReports(seeds=seeds, values=np.asarray(values, dtype=np.int64))


def xxh(v: int, seed: int, g: int) -> int:
    """The peers' hash: xxh32 of the decimal string of v with the seed, modulo g."""
    return xxhash.xxh32(str(v), seed=int(seed)).intdigest() % g


def local_hashing_likelihood(name: str, pairs, hashes: int | None = None) -> np.ndarray:
    """P(report | x) for a peer's (value, seed) local-hashing reports, shape (n, K), hashed here by xxhash with the
    peer's own seeds: P(seed) (p if xxh32(str(x), seed) mod g = y else q), P(seed) = 1/hashes (or 2^-32)."""
    g = protocol(name).g
    e = np.exp(EPS)
    ratio = np.array([[e if xxh(x, s, g) == y else 1.0 for x in range(K)] for y, s in pairs])
    return ratio / (e + g - 1) / (hashes or 2**32)


def contains(reports, v: int, g: int) -> np.ndarray:
    """Whether each local-hashing report's set holds v, bool (n,), hashed here with xxhash (not with privest)."""
    return np.array([xxh(v, s, g) == y for s, y in zip(reports.seeds, reports.values, strict=True)])


def pair_counts(reports, g: int) -> np.ndarray:
    """How many local-hashing reports' sets hold (SECRET, OTHER): (yes, yes), (yes, no), (no, yes), (no, no)."""
    a, b = contains(reports, SECRET, g), contains(reports, OTHER, g)
    return np.bincount(2 * (~a) + (~b), minlength=4)


def pair_probabilities(p: float, q: float) -> np.ndarray:
    """The four cells of ``pair_counts`` when SECRET is in S with probability p and OTHER, independently, with q."""
    return np.array([p * q, p * (1 - q), (1 - p) * q, (1 - p) * (1 - q)])


def homogeneity(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of Pearson's chi-square test that two samples' category counts come from one distribution."""
    table = np.stack([np.asarray(a), np.asarray(b)])
    table = table[:, table.sum(axis=0) > 0]
    return float(chi2_contingency(table, correction=False).pvalue)


def homogeneity_power(p: np.ndarray, p_alt: np.ndarray, n: int = N, alpha: float = ALPHA) -> float:
    """Power of ``homogeneity`` at level alpha, n reports a side, when one side draws from p and the other from
    p_alt: the statistic is then non-central chi-square with non-centrality n sum (p - p_alt)^2 / (p + p_alt)."""
    cells = (p + p_alt) > 0
    df = int(cells.sum()) - 1
    nc = n * float(((p - p_alt)[cells] ** 2 / (p + p_alt)[cells]).sum())
    return float(ncx2.sf(chi2.isf(alpha, df), df, nc))


def coordinates(a_ones: np.ndarray, b_ones: np.ndarray, n: int = N) -> float:
    """Bonferroni p-value of per-coordinate exact tests (Fisher's, two-sided) that coordinate j is 1 with the same
    probability on both sides, from how many of n reports a side have it: valid however coordinates depend."""
    pvalues = [fisher_exact([[x, n - x], [y, n - y]]).pvalue for x, y in zip(a_ones, b_ones, strict=True)]
    return min(1.0, len(pvalues) * min(pvalues))


def coordinate_power(p: np.ndarray, p_alt: np.ndarray, n: int = N, alpha: float = ALPHA) -> float:
    """A lower bound on the power of ``coordinates`` (normal approximation): that of its most different coordinate
    alone, at the Bonferroni level alpha / len(p)."""
    z = norm.isf(alpha / (2 * len(p)))
    sd = np.sqrt((p * (1 - p) + p_alt * (1 - p_alt)) / n)
    return float(norm.sf(z - np.abs(p - p_alt) / sd).max())


def scaled(p: np.ndarray, index: int | np.ndarray, factor: float) -> np.ndarray:
    """The distribution p with p[index] multiplied by factor and the other entries rescaled to keep the sum."""
    alt = p.copy()
    alt[index] *= factor
    rest = np.ones(p.size, dtype=bool)
    rest[index] = False
    alt[rest] *= (1 - alt[~rest].sum()) / p[rest].sum()
    return alt


# --- (a) the report distributions, against either peer's sampler: peer_sample(name) -> (raw reports, privest form) --


def check_direct_encoding_histogram(peer_sample) -> None:
    """GRR: the report histogram of one secret, privest's against the peer's."""
    m = protocol("grr")
    ours, theirs = np.bincount(privest_reports("grr"), minlength=K), np.bincount(peer_sample("grr")[1], minlength=K)
    expected = np.full(K, m.q_star)
    expected[SECRET] = m.p_star
    # power 0.989 against P(report = secret) 7% off, e.g. e^eps/(e^eps + k) in place of e^eps/(e^eps + k - 1)
    assert homogeneity_power(expected, scaled(expected, SECRET, 1.07)) >= MIN_POWER
    assert homogeneity(ours, theirs) > 1e-4


def check_unary_encoding_bit_frequencies(name: str, peer_sample) -> None:
    """SUE, OUE: how often each bit is set, privest's against the peer's."""
    m = protocol(name)
    expected = np.full(K, m.q_star)
    expected[SECRET] = m.p_star
    alternatives = [expected * np.where(np.arange(K) == SECRET, 1.05, 1.0),  # p* 5% off: power 1.000 (SUE, OUE)
                    expected * np.where(np.arange(K) == SECRET, 1.0, 1.05)]  # q* 5% off: 1.000 (SUE), 0.988 (OUE)
    assert min(coordinate_power(expected, alt) for alt in alternatives) >= MIN_POWER
    ours, theirs = privest_reports(name).sum(axis=0), peer_sample(name)[1].sum(axis=0)
    assert coordinates(ours, theirs) > 1e-4


def check_local_hashing_set_membership(name: str, peer_sample) -> None:
    """BLH, OLH: ``check_hashed_set_membership`` of privest's and the peer's reports of SECRET."""
    check_hashed_set_membership(protocol(name), privest_reports(name), peer_sample(name)[1])


def check_hashed_set_membership(m, ours, theirs) -> None:
    """Local hashing's reports (privest's and a peer's) of protocol m: the joint frequency of (secret in S, another
    value in S), and the seeds' top 4 bits (modulo 2^32, as xxhash uses them: uniform for privest and both peers;
    pure-LDP draws its seeds from 0..2^63 - 1)."""
    expected = pair_probabilities(m.p_star, m.q_star)
    # power 1.000 (BLH, OLH) against p* 5% off; against q* 5% off 1.000 (BLH), 0.977 (OLH)
    alternatives = [pair_probabilities(1.05 * m.p_star, m.q_star), pair_probabilities(m.p_star, 1.05 * m.q_star)]
    assert min(homogeneity_power(expected, alt) for alt in alternatives) >= MIN_POWER
    assert homogeneity(pair_counts(ours, m.g), pair_counts(theirs, m.g)) > 1e-4
    top = [np.bincount(r.seeds >> np.uint32(28), minlength=16) for r in (ours, theirs)]
    assert homogeneity(*top) > 1e-4
