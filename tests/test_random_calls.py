"""Random calls of the public API with valid or edge parameters (issue 30, item 5): a guard against the class of bug
where an accepted parameter fails deep inside (OLH at eps >= 23 raised OverflowError from the 32-bit hash).

Each family of calls draws its parameters from its own seeded generator: k from 2 to 64 (the ends often), eps
log-uniform over the accepted range and often exactly at its ends, n users from 0 and 1 to 10^4, distributions with
zeros, and now and then a value just outside a range. Every call must return, or raise ValueError or TypeError whose
message names one of the call's arguments; never another exception (OverflowError, ZeroDivisionError, IndexError,
FloatingPointError: numpy's overflow, divide and invalid warnings are raised as errors here). What it returns must be
finite; a distribution non-negative and summing to 1 within 1e-9; a mechanism matrix row-stochastic, eps-LDP
(``privest.is_ldp``; the metric mechanisms eps*d geo-indistinguishable, hence (eps * diameter)-LDP).

A failure prints the family, the call's seed and the call; ``replay(family, seed)`` runs that one call again:

    PYTHONPATH=$PWD python -c "from tests.test_random_calls import replay; replay('protocol', 1234)"
"""

import math
import re
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import privest
from privest import protocols
from privest.alphabets import Alphabet, Grid

SEED = 20260530
CALLS = {"protocol": 500, "mechanism": 300, "vectors": 1000, "mix": 60}
TOL = 1e-9
MECHANISM_EPS = (1e-12, 700.0)  # the protocols' range; the matrix mechanisms accept any finite positive eps


class RejectedError(Exception):
    """A call raised ValueError or TypeError that names one of its arguments: an accepted outcome."""


def call(description: str, names: tuple[str, ...], function: Callable[[], Any]) -> Any:
    """function(), or RejectedError if it raises ValueError/TypeError naming one of ``names``; any other exception (and
    a ValueError/TypeError naming none of them) fails the test with the call described."""
    try:
        with np.errstate(over="raise", divide="raise", invalid="raise", under="ignore"):
            return function()
    except (ValueError, TypeError) as error:
        if not any(re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", str(error)) for name in names):
            raise AssertionError(f"{description} raised {type(error).__name__} naming none of {names}: "
                                 f"{error}") from error
        raise RejectedError(str(error)) from None


def assert_finite(description: str, value: Any) -> None:
    array = np.asarray(value, dtype=np.float64)
    assert np.all(np.isfinite(array)), f"{description} returned a non-finite value: {array}"


def assert_distribution(description: str, theta: Any, k: int | None = None) -> None:
    theta = np.asarray(theta, dtype=np.float64)
    assert_finite(description, theta)
    assert theta.ndim == 1 and (k is None or theta.shape == (k,)), f"{description}: shape {theta.shape}"
    assert theta.min() >= 0, f"{description}: negative entry {theta.min()}"
    assert abs(theta.sum() - 1) <= TOL, f"{description}: sums to {theta.sum()!r}"


# --- random parameters ------------------------------------------------------------------------------------------------


def draw_k(rng: np.random.Generator, low: int = 2, high: int = 64) -> int:
    return int(rng.choice([low, low + 1, high])) if rng.random() < 0.3 else int(rng.integers(low, high + 1))


def draw_eps(rng: np.random.Generator, low: float, high: float) -> float:
    """Log-uniform on [low, high], exactly an end 1 time in 5."""
    u = rng.random()
    if u < 0.1:
        return low
    if u < 0.2:
        return high
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


def draw_n(rng: np.random.Generator) -> int:
    u = rng.random()
    return 0 if u < 0.05 else 1 if u < 0.1 else int(math.exp(rng.uniform(0, math.log(10_000))))


def draw_distribution(rng: np.random.Generator, k: int) -> np.ndarray:
    """Dirichlet weights (concentration from 0.05 to 5), some entries set to 0 (never all), 1 time in 10 a point
    mass."""
    if rng.random() < 0.1:
        return np.eye(k)[rng.integers(k)]
    theta = rng.dirichlet(np.full(k, math.exp(rng.uniform(math.log(0.05), math.log(5.0)))))
    theta[rng.random(k) < rng.uniform(0, 0.6)] = 0.0
    if theta.sum() <= 0:
        theta[rng.integers(k)] = 1.0
    return theta / theta.sum()


def draw_secrets(rng: np.random.Generator, theta: np.ndarray, n: int) -> np.ndarray:
    return rng.choice(theta.size, n, p=theta) if n else np.zeros(0, dtype=np.int64)


# --- the families of calls --------------------------------------------------------------------------------------------


def protocol_calls(rng: np.random.Generator) -> None:
    """A protocol by name (now and then a parameter just out of range), its reports, likelihood, estimates, variance
    and GIBU."""
    name = str(rng.choice(protocols.NAMES))
    k = draw_k(rng)
    top = protocols.OLH_EPS_MAX if name == "olh" else protocols.EPS_MAX
    eps = draw_eps(rng, protocols.EPS_MIN, top)
    options = {}
    if name in ("blh", "olh") and rng.random() < 0.5:
        options["hashes"] = int(rng.choice([1, 2, 2**32, int(rng.integers(1, 1000))]))
    outside = rng.random() < 0.1
    if outside:  # one parameter just outside its range: a ValueError naming it, nothing else
        which = rng.choice(["k", "eps_low", "eps_high", "hashes"] if options else ["k", "eps_low", "eps_high"])
        k = 1 if which == "k" else k
        eps = protocols.EPS_MIN * 0.999 if which == "eps_low" else top * (1 + 1e-9) if which == "eps_high" else eps
        options = {"hashes": int(rng.choice([0, 2**32 + 1]))} if which == "hashes" else options
    what = f"protocols.by_name({name!r}, {k}, {eps!r}, **{options})"
    try:
        m = call(what, ("k", "eps", "hashes"), lambda: protocols.by_name(name, k, eps, **options))
    except RejectedError:
        assert outside, f"{what} refused a parameter in range"
        return
    assert not outside, f"{what} accepted a parameter out of range"
    assert_finite(what + " (high, low, p*, q*)", [m.high, m.low, m.p_star, m.q_star])
    assert m.low > 0 and m.high >= m.low and m.high / m.low <= math.exp(eps) * (1 + 1e-9), what
    if name == "olh":
        assert m.g <= 2**32, what
    n = draw_n(rng)
    theta = draw_distribution(rng, k)
    secrets = draw_secrets(rng, theta, n)
    reports = call(f"{what}.sample(<{n} secrets>)", ("secrets", "rng"), lambda: m.sample(secrets, rng))
    L = call(f"{what}.likelihood", ("reports",), lambda: m.likelihood(reports))
    assert L.shape == (n, k), what
    assert_finite(f"{what}.likelihood", L)
    assert n == 0 or L.min() > 0, f"{what}.likelihood has a zero"
    if name in ("grr", "hr"):  # every report enumerable: each secret's likelihood sums to 1 over them
        every = np.arange(m.k if name == "grr" else m.K)
        np.testing.assert_allclose(m.likelihood(every).sum(axis=0), 1.0, atol=1e-12, err_msg=what)
    variance = call(f"{what}.variance", ("theta", "n"), lambda: m.variance(theta, max(n, 1)))
    assert_finite(f"{what}.variance", variance)
    for post in (None, "projection", "normalization"):
        description = f"{what}.estimate(<{n} reports>, post={post!r})"
        try:
            estimate = call(description, ("reports", "post"), lambda post=post: m.estimate(reports, post))
        except RejectedError:
            assert n == 0 or post == "normalization", f"{description} refused valid reports"
            continue
        assert_finite(description, estimate)
        if post is not None:
            assert_distribution(description, estimate, k)
    description = f"privest.gibu([({what}, <{n} reports>)])"
    try:
        result = call(description, ("reports", "groups"), lambda: privest.gibu([(m, reports)], max_iter=200))
    except RejectedError:
        assert n == 0, f"{description} refused valid reports"
        return
    assert_distribution(description, result.theta, k)
    assert math.isfinite(result.log_likelihood), description


def _mechanism(rng: np.random.Generator) -> tuple[str, Callable[[], np.ndarray], np.ndarray | None, float, int]:
    """A random mechanism call: (description, call, ground distances or None for k-RR, eps, k).

    The planar mechanisms' eps * cell_km starts at 3e-3. The metric mechanisms' eps is drawn so that eps * diameter
    (their LDP level) stays within the protocols' range: beyond 700, entries e^(-eps d) underflow to 0 beside
    positive ones, and no float matrix can show the ratio bound.
    """
    kind = str(rng.choice(["krr", "geometric", "laplace", "exponential"]))
    shape = rng.choice(["function", "linear", "categorical", "planar"], p=[0.4, 0.3, 0.2, 0.1])
    if shape == "function":
        k = draw_k(rng)
        d = privest.linear_distances(k, float(math.exp(rng.uniform(-3, 3))) if kind == "exponential" else 1.0)
        alphabet = None
    elif shape == "planar":
        alphabet = Alphabet.from_dict({"kind": "planar", "columns": int(rng.integers(1, 6)),
                                       "rows": int(rng.integers(1, 6)),
                                       "cell_km": float(math.exp(rng.uniform(-2, 2)))})
        if alphabet.k < 2:
            alphabet = Alphabet(2, Grid(2, 1, alphabet.grid.cell_km))
    elif shape == "categorical":
        k = draw_k(rng)
        alphabet = Alphabet(k, categories=tuple(f"c{i}" for i in range(k)))
    else:
        alphabet = Alphabet(draw_k(rng), spacing=float(math.exp(rng.uniform(-3, 3))))
    if alphabet is not None:
        k, d = alphabet.k, alphabet.distances()
    if kind == "krr":
        d = None
    low, high = MECHANISM_EPS
    if alphabet is not None and alphabet.grid is not None and kind != "krr":
        # planar: planar_geometric refuses eps * cell_km below about 3e-3; planar_laplace accepts it, but its cells
        # lose relative precision there (1e-5 at eps * cell_km = 4e-12, known, not fixed here). planar_geometric
        # from 0.05 only: near 3e-3 its window takes seconds per matrix, which would dominate this test's time
        low = (0.05 if kind == "geometric" else 3e-3) / alphabet.grid.cell_km
    eps = draw_eps(rng, low, high if d is None else high / d.max())
    if alphabet is not None:
        return f"privest.by_name({kind!r}, {alphabet!r}, {eps!r})", lambda: privest.by_name(kind, alphabet, eps), d, \
            eps, k
    if kind == "exponential":
        return f"privest.exponential(<linear distances {k}>, {eps!r})", lambda: privest.exponential(d, eps), d, eps, k
    function = getattr(privest, kind)
    return f"privest.{kind}({k}, {eps!r})", lambda: function(k, eps), d, eps, k


def mechanism_calls(rng: np.random.Generator) -> None:
    """A mechanism matrix (row-stochastic, LDP or geo-indistinguishable at eps), its reports, and INV, IBU and the
    k-RR MLE on them."""
    what, make, d, eps, k = _mechanism(rng)
    try:
        A = call(what, ("kind", "alphabet", "eps", "k", "distances"), make)
    except RejectedError as refused:  # categories have no geometry; a planar window too large for a tiny eps * cell_km
        assert "categories" in str(refused) or "too small" in str(refused), f"{what} refused: {refused}"
        return
    assert A.shape == (k, k), what
    privest.check_row_stochastic(A, atol=1e-9)
    if d is None:
        assert privest.is_ldp(A, eps), f"{what} is not eps-LDP"
    else:
        assert privest.is_geo_indistinguishable(A, d, eps), f"{what} is not eps*d geo-indistinguishable"
        assert privest.is_ldp(A, eps * d.max()), f"{what} is not (eps * diameter)-LDP"
    n = draw_n(rng)
    theta = draw_distribution(rng, k)
    secrets = draw_secrets(rng, theta, n)
    z = call(f"privest.sample({what}, <{n} secrets>)", ("A", "secrets", "rng"), lambda: privest.sample(A, secrets, rng))
    assert z.shape == (n,) and (n == 0 or (z.min() >= 0 and z.max() < k)), what
    q = call(f"privest.sample_counts({what})", ("A", "secret_counts", "rng"),
             lambda: privest.sample_counts(A, np.bincount(secrets, minlength=k), rng))
    assert q.sum() == n and q.min() >= 0, what
    for post in ("projection", "normalization"):
        description = f"privest.inv({what}, <counts of {n}>, post={post!r})"
        try:
            assert_distribution(description, call(description, ("A", "q", "post"),
                                                  lambda post=post: privest.inv(A, q, post=post)), k)
        except RejectedError:
            pass  # a near-singular A (tiny eps), no reports, or nothing positive to normalise
    description = f"privest.ibu({what}, <counts of {n}>)"
    try:
        assert_distribution(description, call(description, ("A", "q"), lambda: privest.ibu(A, q, max_iter=200).theta),
                            k)
    except RejectedError:
        assert n == 0, f"{description} refused valid counts"
    if d is None:
        description = f"privest.krr_mle(<counts of {n}>, {eps!r})"
        try:
            assert_distribution(description, call(description, ("counts", "eps"), lambda: privest.krr_mle(q, eps)), k)
        except RejectedError:
            assert n == 0, f"{description} refused valid counts"


def vector_calls(rng: np.random.Generator) -> None:
    """The simplex projection and normalisation of vectors of any scale, and the distances between distributions."""
    k = draw_k(rng)
    scale = 10 ** rng.uniform(-3, 18)
    v = rng.normal(rng.normal(0, scale), scale, k)
    if rng.random() < 0.2:
        v[rng.random(k) < 0.5] = 0.0
    what = f"<v of {k} entries, scale {scale:.3g}: {v[:4]}...>"
    assert_distribution(f"privest.project_simplex({what})", call(what, ("v",), lambda: privest.project_simplex(v)), k)
    try:
        assert_distribution(f"privest.normalise({what})", call(what, ("v",), lambda: privest.normalise(v)), k)
    except RejectedError:
        assert v.max() <= 0, f"privest.normalise({what}) refused a vector with a positive entry"
    p, q = draw_distribution(rng, k), draw_distribution(rng, k)
    spacing = float(math.exp(rng.uniform(-3, 3)))
    tv = call("privest.total_variation", ("p", "q"), lambda: privest.total_variation(p, q))
    assert 0 <= tv <= 1 + TOL, f"total_variation {tv}"
    one_d = call("privest.emd_1d", ("p", "q", "spacing"), lambda: privest.emd_1d(p, q, spacing))
    assert 0 <= one_d <= spacing * (k - 1) * (1 + TOL), f"emd_1d {one_d}"
    if rng.random() < 0.2:  # the LP (POT): slower, so not every time
        emd = call("privest.emd", ("p", "q", "distances"), lambda: privest.emd(p, q, privest.linear_distances(k,
                                                                                                           spacing)))
        assert emd == pytest.approx(one_d, rel=1e-6, abs=1e-9), f"emd {emd} != emd_1d {one_d} for {p}, {q}"
    categories = Alphabet(k, categories=tuple(str(i) for i in range(k)))
    assert call("Alphabet.emd", ("p", "q"), lambda: categories.emd(p, q)) == pytest.approx(tv, abs=1e-12)


def mix_calls(rng: np.random.Generator) -> None:
    """GIBU over a random mix of protocols and a k-RR matrix on one alphabet."""
    k = draw_k(rng)
    theta = draw_distribution(rng, k)
    groups, parts = [], []
    for _ in range(int(rng.integers(1, 5))):
        name = str(rng.choice(protocols.NAMES))
        eps = draw_eps(rng, protocols.EPS_MIN, protocols.OLH_EPS_MAX if name == "olh" else protocols.EPS_MAX)
        m = protocols.by_name(name, k, eps)
        n = int(rng.integers(1, 2000))
        groups.append((m, m.sample(draw_secrets(rng, theta, n), rng)))
        parts.append(f"{name} eps={eps!r} n={n}")
    eps = draw_eps(rng, *MECHANISM_EPS)
    A = privest.krr(k, eps)
    groups.append((A, privest.sample_counts(A, np.bincount(draw_secrets(rng, theta, 500), minlength=k), rng)))
    parts.append(f"krr eps={eps!r} n=500")
    what = f"privest.gibu(k={k}: {'; '.join(parts)})"
    for accelerate in (None, "squarem"):
        result = call(what, ("groups",), lambda accelerate=accelerate: privest.gibu(groups, max_iter=300,
                                                                                    accelerate=accelerate))
        assert_distribution(f"{what}, accelerate={accelerate!r}", result.theta, k)


FAMILIES: dict[str, Callable[[np.random.Generator], None]] = {
    "protocol": protocol_calls, "mechanism": mechanism_calls, "vectors": vector_calls, "mix": mix_calls}


def replay(family: str, seed: int) -> None:
    """One call of ``family`` with the generator of ``seed``, as a failure reports it."""
    FAMILIES[family](np.random.default_rng(seed))


@pytest.mark.parametrize("family", FAMILIES)
def test_random_public_calls_return_valid_results_or_name_the_argument(family):
    seeds = np.random.default_rng([SEED, list(FAMILIES).index(family)]).integers(0, 2**63, CALLS[family])
    start = time.perf_counter()
    for number, seed in enumerate(seeds):
        try:
            replay(family, int(seed))
        except RejectedError as error:
            pytest.fail(f"{family} call {number}: an unexpected refusal {error}; replay('{family}', {seed})")
        except Exception as error:
            raise AssertionError(f"{family} call {number} (SEED {SEED}) failed; replay('{family}', {seed}): "
                                 f"{type(error).__name__}: {error}") from error
    assert time.perf_counter() - start < 60, f"{family}: {CALLS[family]} calls took over a minute"
