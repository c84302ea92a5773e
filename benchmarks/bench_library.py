"""Time privest's sampling, IBU/GIBU and planar mechanism builds, with multi-freq-ldpy's IBU side by side.

Run from the repository root: ``.venv/bin/python benchmarks/bench_library.py [--skip-mfl]``. Prints one table; each
time is the best of several repeats (``--repeats``), measured with ``time.perf_counter``. Nothing is written to disk.

The k-RR setting: k = 100 secrets, theta = Binomial(99, 1/2) on {0..99},
n = 10^6 users, eps = 1. Every random draw comes from ``sampling.rng_for(SEED, "bench_library", ...)``.
"""

import argparse
import functools
import importlib.metadata
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom
from timing import best_time, powers, seconds

from privest import estimators, mechanisms, sampling
from privest.alphabets import Grid

# The papers' IBU and GIBU (the plain iteration, stopped by the change of L): the engine these benchmarks time.
plain_ibu = functools.partial(estimators.ibu, **estimators.PLAIN_IBU)
plain_gibu = functools.partial(estimators.gibu, **estimators.PLAIN_IBU)

SEED = 1
K = 100
N = 1_000_000
EPS = 1.0
FIXED_ITERATIONS = 1_000  # iterations of the per-iteration timings (the stopping rule is switched off)
NO_STOP = float(np.finfo(np.float64).tiny)  # a delta that only an exactly repeated log-likelihood can undercut
GIBU_EPS = tuple(float(e) for e in range(1, 11))
GIBU_USERS = (100_000, 10_000)  # users per mechanism
GRID = Grid(24, 16, 0.5)
PLANAR_EPS = (0.19, 1.0, 3.124)
PLANAR_REPEATS = 3
DEFAULT_MAX_ITER = 10_000  # the default cap of privest's ibu/gibu and of multi-freq-ldpy's IBU
RAISED_MAX_ITER = 100_000  # privest's ibu reaches delta 1e-10 well before it here (about 2 x 10^4 iterations)
MFL_TOL = 1e-12  # multi-freq-ldpy's default tolerance, on max_x |theta^{t+1}_x - theta^t_x|

IbuRuns = tuple[list["Row"], estimators.IbuResult, estimators.IbuResult]


@dataclass(frozen=True)
class Row:
    """One line of the printed table."""

    benchmark: str
    setting: str
    value: str
    note: str = ""


def binomial_theta(k: int = K) -> np.ndarray:
    """theta = Binomial(k - 1, 1/2) on {0..k-1}, shape (k,)."""
    return binom.pmf(np.arange(k), k - 1, 0.5)


def bench_perturbation(A: np.ndarray, repeats: int) -> tuple[list[Row], np.ndarray]:
    """Time ``sample`` (one report per user) and ``sample_counts`` (the report counts) for N users of A.

    Returns the rows and one draw of the reports from its own Generator (the same whatever ``repeats``), shape (N,).
    """
    rng = sampling.rng_for(SEED, "bench_library", "perturbation")
    secret_counts = rng.multinomial(N, binomial_theta(A.shape[0]))
    secrets = np.repeat(np.arange(A.shape[0]), secret_counts)
    setting = f"k={A.shape[0]} n={powers(N)} eps={EPS:g}"
    t_sample, _ = best_time(lambda: sampling.sample(A, secrets, rng), repeats)
    t_counts, _ = best_time(lambda: sampling.sample_counts(A, secret_counts, rng), repeats)
    reports = sampling.sample(A, secrets, sampling.rng_for(SEED, "bench_library", "reports"))
    rows = [
        Row("sampling.sample (per-user reports)", setting, seconds(t_sample), f"{t_sample / N * 1e9:.0f} ns per user"),
        Row("sampling.sample_counts (report counts)", setting, seconds(t_counts), "O(k m), independent of n"),
    ]
    return rows, reports


def bench_ibu(A: np.ndarray, counts: np.ndarray, repeats: int) -> IbuRuns:
    """Time privest's IBU over FIXED_ITERATIONS iterations, and to delta 1e-10 with the default and a raised cap.

    Returns the rows, the fixed-iteration result and the result run to convergence (cap RAISED_MAX_ITER).
    """
    setting = f"k={A.shape[0]} n={powers(N)} eps={EPS:g}"
    t_fixed, fixed = best_time(lambda: plain_ibu(A, counts, delta=NO_STOP, max_iter=FIXED_ITERATIONS), repeats)
    rows = [Row("privest ibu, per iteration", setting, seconds(t_fixed / fixed.iterations),
                f"over {fixed.iterations} iterations")]
    results = {}
    for cap in (DEFAULT_MAX_ITER, RAISED_MAX_ITER):
        t, results[cap] = best_time(lambda c=cap: plain_ibu(A, counts, max_iter=c), repeats)
        stop = f"capped at max_iter={cap}" if results[cap].capped else f"|ΔL| < 1e-10, max_iter={cap}"
        rows.append(Row("privest ibu, delta=1e-10", setting, seconds(t),
                        f"{results[cap].iterations} iterations ({stop})"))
    return rows, fixed, results[RAISED_MAX_ITER]


def mfl_iterations(mfl_ibu: Callable[..., np.ndarray], A: np.ndarray, q: np.ndarray, tol: float,
                   nb_iter: int) -> int:
    """The iteration at which multi-freq-ldpy's IBU stops, which it does not return.

    Its result after t iterations equals its final result exactly when t reaches the stopping iteration (the update is
    deterministic), so a bisection on nb_iter finds it from its own output.
    """
    final = mfl_ibu(A.shape[0], A, q, nb_iter, tol, "max_abs")
    low, high = 1, nb_iter
    while low < high:
        middle = (low + high) // 2
        if np.array_equal(mfl_ibu(A.shape[0], A, q, middle, tol, "max_abs"), final):
            high = middle
        else:
            low = middle + 1
    return low


def bench_mfl(A: np.ndarray, reports: np.ndarray, counts: np.ndarray, fixed: estimators.IbuResult,
              converged: estimators.IbuResult, repeats: int) -> list[Row]:
    """Time multi-freq-ldpy's IBU on the same reports and compare its estimates with privest's.

    Its numba-compiled ``IBU(k, A, obs_freq, nb_iter, tol, err_func)`` is called directly (after a warm-up call that
    compiles it) for the like-for-like timings; ``GRR_Aggregator_IBU(reports, k, eps)`` once, end to end. Its
    update theta * A @ (q / (A @ theta)) uses A untransposed in both products, which is IBU only for a symmetric A,
    as k-RR is. It stops on max_x |Δtheta_x| < tol; privest stops on |ΔL| < delta.
    """
    from multi_freq_ldpy.estimators import Histogram_estimator
    from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Aggregator_IBU

    mfl_ibu = Histogram_estimator.IBU

    k = A.shape[0]
    q = counts / counts.sum()
    setting = f"k={k} n={powers(N)} eps={EPS:g}"
    start = time.perf_counter()
    mfl_ibu(k, A, q, 1, MFL_TOL, "max_abs")
    t_compile = time.perf_counter() - start

    # tol = 0 never stops early: max |change| < 0 is impossible
    t_fixed, theta_fixed = best_time(lambda: mfl_ibu(k, A, q, FIXED_ITERATIONS, 0.0, "max_abs"), repeats)
    rows = [
        Row("multi-freq-ldpy IBU, numba compile", setting, seconds(t_compile), "first call, excluded below"),
        Row("multi-freq-ldpy IBU, per iteration", setting, seconds(t_fixed / FIXED_ITERATIONS),
            f"over {FIXED_ITERATIONS} iterations (tol=0)"),
    ]
    theta: dict[int, np.ndarray] = {}
    iterations: dict[int, int] = {}
    for cap in (DEFAULT_MAX_ITER, RAISED_MAX_ITER):
        t, theta[cap] = best_time(lambda c=cap: mfl_ibu(k, A, q, c, MFL_TOL, "max_abs"), repeats)
        iterations[cap] = mfl_iterations(mfl_ibu, A, q, MFL_TOL, cap)
        stop = f"capped at nb_iter={cap}" if iterations[cap] == cap else f"max|Δθ| < {MFL_TOL:g}, nb_iter={cap}"
        rows.append(Row(f"multi-freq-ldpy IBU, tol={MFL_TOL:g}", setting, seconds(t),
                        f"{iterations[cap]} iterations ({stop})"))
    likelihood_mfl = estimators.log_likelihood(theta[RAISED_MAX_ITER], [estimators.matrix_group(A, counts)])
    gain = likelihood_mfl - converged.log_likelihood
    start = time.perf_counter()
    theta_e2e = GRR_Aggregator_IBU(reports, k, EPS)
    t_e2e = time.perf_counter() - start
    return [
        *rows,
        Row("multi-freq-ldpy GRR_Aggregator_IBU", setting, seconds(t_e2e),
            f"once, defaults, end to end: its Python loop counts the {powers(N)} reports"),
        Row("max |θ_mfl aggregator − θ_mfl direct|", setting,
            f"{np.abs(theta_e2e - theta[DEFAULT_MAX_ITER]).max():.2e}",
            "aggregator: its own k-RR matrix and counting; direct: privest's"),
        Row("max |θ_privest − θ_mfl|, same iterations", setting, f"{np.abs(fixed.theta - theta_fixed).max():.2e}",
            f"both after {FIXED_ITERATIONS} iterations from uniform"),
        Row("max |θ_privest − θ_mfl|, own stops", setting,
            f"{np.abs(converged.theta - theta[RAISED_MAX_ITER]).max():.2e}",
            f"privest |ΔL| < 1e-10 ({converged.iterations} it.) vs mfl max|Δθ| < {MFL_TOL:g} or cap "
            f"({iterations[RAISED_MAX_ITER]} it.); L_mfl − L_privest = {gain:.1e}"),
    ]


def gibu_groups(users_per_mechanism: int) -> list[estimators.Group]:
    """k-RR with eps 1..10, ``users_per_mechanism`` users each drawn from theta, their reports as GIBU groups."""
    rng = sampling.rng_for(SEED, "bench_library", "gibu", users_per_mechanism)
    krr = [mechanisms.krr(K, eps) for eps in GIBU_EPS]
    secret_counts = sampling.split_users(users_per_mechanism * len(krr), len(krr), binomial_theta(), rng)
    counts = sampling.population(krr, secret_counts, rng)
    return [estimators.matrix_group(A, c) for A, c in zip(krr, counts, strict=True)]


def bench_gibu(repeats: int) -> list[Row]:
    """Time GIBU per iteration and to the default stop for 10 k-RR mechanisms at two population sizes."""
    rows = []
    for users in GIBU_USERS:
        groups = gibu_groups(users)
        columns = sum(g.G.shape[1] for g in groups)
        setting = f"10 k-RR x {powers(users)} (n={powers(users * len(groups))})"
        t_fixed, fixed = best_time(lambda g=groups: plain_gibu(g, delta=NO_STOP, max_iter=FIXED_ITERATIONS),
                                   repeats)
        t_default, default = best_time(lambda g=groups: plain_gibu(g), repeats)
        stop = f"capped at max_iter={DEFAULT_MAX_ITER}" if default.capped else "|ΔL| < 1e-10"
        rows += [
            Row("privest gibu, per iteration", setting, seconds(t_fixed / fixed.iterations),
                f"over {fixed.iterations} iterations; {columns} reported columns of {K * len(groups)}"),
            Row("privest gibu, delta=1e-10", setting, seconds(t_default), f"{default.iterations} iterations ({stop})"),
        ]
    return rows


def bench_planar() -> list[Row]:
    """Time the builds of the planar geometric, planar Laplace and exponential mechanisms on the 24 x 16 grid."""
    t_distances, distances = best_time(GRID.distances, PLANAR_REPEATS)
    builders: Sequence[tuple[str, Callable[[float], np.ndarray], str]] = (
        ("mechanisms.planar_geometric", lambda eps: mechanisms.planar_geometric(GRID, eps), ""),
        ("mechanisms.planar_laplace", lambda eps: mechanisms.planar_laplace(GRID, eps), ""),
        ("mechanisms.exponential", lambda eps: mechanisms.exponential(distances, eps),
         f"distances given ({seconds(t_distances)} to compute)"),
    )
    grid = f"{GRID.columns}x{GRID.rows}x{GRID.cell_km:g} km"
    rows = []
    for name, build, note in builders:
        for eps in PLANAR_EPS:
            t, A = best_time(lambda b=build, e=eps: b(e), PLANAR_REPEATS)
            rows.append(Row(name, f"{grid} eps={eps:g}/km", seconds(t), note or f"shape {A.shape[0]}x{A.shape[1]}"))
    return rows


def version(package: str) -> str:
    """The installed version of a distribution, or 'not installed'."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def print_table(rows: Sequence[Row]) -> None:
    """Print the rows as aligned columns under a header."""
    header = Row("benchmark", "setting", "value", "note")
    widths = [max(len(getattr(r, f)) for r in [header, *rows]) for f in ("benchmark", "setting", "value")]
    for r in [header, *rows]:
        print(f"{r.benchmark:<{widths[0]}}  {r.setting:<{widths[1]}}  {r.value:>{widths[2]}}  {r.note}".rstrip())


def main(argv: Sequence[str] | None = None) -> None:
    """Run every benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-mfl", action="store_true", help="leave out multi-freq-ldpy (the 'benchmark' extra)")
    parser.add_argument("--repeats", type=int, default=5, help="repeats of each timing, the best is kept (default 5)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if not args.skip_mfl and version("multi-freq-ldpy") == "not installed":
        parser.error("multi-freq-ldpy is not installed: pip install -e '.[benchmark]', or pass --skip-mfl")

    print(f"privest {version('privest')}, numpy {np.__version__}, multi-freq-ldpy {version('multi-freq-ldpy')}, "
          f"numba {version('numba')}; Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs; best of {args.repeats} (planar builds: best of {PLANAR_REPEATS})")
    A = mechanisms.krr(K, EPS)
    rows, reports = bench_perturbation(A, args.repeats)
    counts = np.bincount(reports, minlength=K)
    ibu_rows, fixed, converged = bench_ibu(A, counts, args.repeats)
    rows += ibu_rows
    if not args.skip_mfl:
        rows += bench_mfl(A, reports, counts, fixed, converged, args.repeats)
    rows += bench_gibu(args.repeats)
    rows += bench_planar()
    print_table(rows)


if __name__ == "__main__":
    main()
