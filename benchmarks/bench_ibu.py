"""Time privest's IBU kernels against multi-freq-ldpy's numba IBU, side by side in one run, as ratios.

Run from the repository root: ``.venv/bin/python benchmarks/bench_ibu.py [--repeats 5] [--ks 10 100]``. Prints two
markdown tables (nothing is written to disk):

- **per iteration**, at k = 10, 100 and 1000, for k-RR and the geometric mechanism at eps = 1 on the same report counts
  (n = 10^6 users from theta = Binomial(k - 1, 1/2)): ``ibu`` as installed (the compiled update loop where it is
  built and applies, else numpy's block kernel), numpy's block kernel (the compiled loop switched off), the plain loop
  (both switched off), ``ibu_runs`` with one run and with RUNS runs (per run and iteration), and
  multi-freq-ldpy's numba ``IBU`` warm (after a call that compiles it). privest's iterations are timed under its real
  stopping rule (delta = 1e-10), over at most FIXED_ITERATIONS iterations and never past the iteration where it stops;
  numba's over as many with tol = 0.
- **to the stop**: ``ibu`` to delta = 1e-10 (cap 10^5, 10^4 at k = 1000) against numba's IBU to its default
  max |Δθ| < 1e-12 (its iteration count found by bisection, as in bench_library.py), and SQUAREM
  (``ibu(accelerate="squarem")``) to the same delta: updates and time.

Each time is the best of ``--repeats`` rounds; in each round every method runs once, in turn (the machine is shared).
Without multi-freq-ldpy (the ``benchmark`` extra) the peer columns are skipped with a message.
"""

import argparse
import functools
import importlib.metadata
import platform
from collections.abc import Callable

import numpy as np
from bench_library import mfl_iterations
from scipy.stats import binom
from timing import best_time, seconds

from privest import estimators, mechanisms, sampling
from privest.estimators import _iteration

# The papers' IBU and GIBU (the plain iteration, stopped by the change of L): the engine these benchmarks time.
plain_ibu = functools.partial(estimators.ibu, **estimators.PLAIN_IBU)
plain_gibu = functools.partial(estimators.gibu, **estimators.PLAIN_IBU)

SEED = 1
KS = (10, 100, 1000)
EPS = 1.0
N = 1_000_000
RUNS = 20
DELTA = 1e-10
MAX_ITER = {10: 100_000, 100: 100_000, 1000: 10_000}  # the stop's cap (10^4 at k = 1000: 0.1-0.3 ms an iteration)
FIXED_ITERATIONS = {10: 2000, 100: 2000, 1000: 200}
MFL_TOL = 1e-12  # multi-freq-ldpy's default tolerance on max_x |theta^{t+1}_x - theta^t_x|


def interleaved(functions: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The best time of each function over ``repeats`` rounds, every function once per round, in turn."""
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(repeats):
        for name, fn in functions.items():
            best[name] = min(best[name], best_time(fn)[0])
    return best


def with_kernels(**settings: int) -> Callable[..., estimators.IbuResult]:
    """``ibu`` with some of the kernel settings of ``privest.estimators._iteration`` changed while it runs:
    ``_KERNEL_WORK=0`` switches the compiled loop off (numpy's block kernel runs), ``_BLOCK_WORK=0`` the block kernel
    too (the plain loop)."""

    def run(A: np.ndarray, q: np.ndarray, **stopping) -> estimators.IbuResult:
        saved = {name: getattr(_iteration, name) for name in settings}
        for name, value in settings.items():
            setattr(_iteration, name, value)
        try:
            return plain_ibu(A, q, **stopping)
        finally:
            for name, value in saved.items():
                setattr(_iteration, name, value)

    return run


numpy_ibu = with_kernels(_KERNEL_WORK=0)
plain_ibu = with_kernels(_KERNEL_WORK=0, _BLOCK_WORK=0)


def problem(name: str, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mechanism, one run's report counts (m,) and RUNS runs' counts (RUNS, m)."""
    A = mechanisms.krr(k, EPS) if name == "k-RR" else mechanisms.geometric(k, EPS)
    theta = binom.pmf(np.arange(k), k - 1, 0.5)
    rng = sampling.rng_for(SEED, "bench_ibu", name, k)
    runs = np.array([sampling.sample_counts(A, rng.multinomial(N, theta), rng) for _ in range(RUNS)])
    return A, runs[0].astype(np.float64), runs.astype(np.float64)


def ratio(a: float, b: float | None) -> str:
    return f"{a / b:.2f}" if b else "—"


def bench(name: str, k: int, mfl_ibu: Callable[..., np.ndarray] | None, repeats: int) -> tuple[str, str]:
    """The per-iteration row and the to-the-stop row of one mechanism at one k."""
    A, q, runs = problem(name, k)
    frequencies = q / q.sum()
    stop = plain_ibu(A, q, delta=DELTA, max_iter=MAX_ITER[k])
    iterations = min(FIXED_ITERATIONS[k], stop.iterations)
    fixed = {"delta": DELTA, "max_iter": iterations}
    functions = {
        "ibu": lambda: plain_ibu(A, q, **fixed),
        "numpy": lambda: numpy_ibu(A, q, **fixed),
        "plain": lambda: plain_ibu(A, q, **fixed),
        "runs1": lambda: estimators.ibu_runs(A, q[None, :], **fixed),
        "runsR": lambda: estimators.ibu_runs(A, runs, **fixed),
        "to stop": lambda: plain_ibu(A, q, delta=DELTA, max_iter=MAX_ITER[k]),
        "squarem": lambda: estimators.ibu(A, q, delta=DELTA, max_iter=MAX_ITER[k], accelerate="squarem"),
    }
    if mfl_ibu is not None:
        mfl_ibu(k, A, frequencies, 1, MFL_TOL, "max_abs")  # numba's compile, excluded
        functions["numba"] = lambda: mfl_ibu(k, A, frequencies, iterations, 0.0, "max_abs")
        functions["numba to stop"] = lambda: mfl_ibu(k, A, frequencies, MAX_ITER[k], MFL_TOL, "max_abs")
    t = interleaved(functions, repeats)
    numba = t["numba"] / iterations if mfl_ibu is not None else None
    ibu, numpy_kernel, plain = (t[name] / iterations for name in ("ibu", "numpy", "plain"))
    runs1, runs_all = t["runs1"] / iterations, t["runsR"] / (iterations * RUNS)
    per_iteration = (f"| {name} | {k} | {seconds(ibu)} | {seconds(numpy_kernel)} | {seconds(plain)} | "
                     f"{seconds(numba) if numba else '—'} | "
                     f"{ratio(ibu, numba)} | {seconds(runs1)} | {ratio(runs1, numba)} | {seconds(runs_all)} | "
                     f"{ratio(runs_all, numba)} | {iterations:,} |")
    squarem = estimators.ibu(A, q, delta=DELTA, max_iter=MAX_ITER[k], accelerate="squarem")
    if mfl_ibu is not None:
        mfl_stop = mfl_iterations(mfl_ibu, A, frequencies, MFL_TOL, MAX_ITER[k])
        peer = f"{mfl_stop:,} | {seconds(t['numba to stop'])} | {ratio(t['to stop'], t['numba to stop'])}"
    else:
        peer = "— | — | —"
    to_stop = (f"| {name} | {k} | {stop.iterations:,}{' (capped)' if stop.capped else ''} | {seconds(t['to stop'])} | "
               f"{peer} | {squarem.iterations:,} | {seconds(t['squarem'])} | {ratio(t['to stop'], t['squarem'])} | "
               f"{squarem.log_likelihood - stop.log_likelihood:+.1e} |")
    return per_iteration, to_stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ks", type=int, nargs="+", default=list(KS), choices=KS, help="the alphabet sizes to run")
    args = parser.parse_args()
    try:
        from multi_freq_ldpy.estimators import Histogram_estimator
    except ImportError:
        mfl_ibu = None
        print("multi-freq-ldpy is not installed (make .venv/.installed-peers): the peer columns are skipped\n")
    else:
        mfl_ibu = Histogram_estimator.IBU
    packages = ("numpy", "multi-freq-ldpy", "numba") if mfl_ibu is not None else ("numpy",)
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in packages)
    print(f"Python {platform.python_version()}, {versions}; best of {args.repeats} rounds, methods interleaved\n")
    rows = [bench(name, k, mfl_ibu, args.repeats) for k in args.ks for name in ("k-RR", "geometric")]
    print(f"Per iteration (ratios: privest / multi-freq-ldpy's numba IBU, below 1: privest is faster; "
          f"ibu_runs x{RUNS}: per run and iteration)\n")
    kernel = (f"compiled loop, {_iteration._kernel.vector_width()}-bit vectors, up to "
              f"{_iteration._KERNEL_WORK:,} entries" if estimators.COMPILED_KERNEL else "not built: numpy's")
    print(f"ibu: privest's default (its kernel: {kernel}); numpy block kernel: the compiled loop off; plain loop: "
          "both off\n")
    print("| mechanism | k | ibu | numpy block kernel | plain loop | numba IBU | ibu / numba | ibu_runs x1 | / numba | "
          f"ibu_runs x{RUNS} | / numba | iterations timed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(row for row, _ in rows))
    print(f"\nTo the stop (privest: |ΔL| < {DELTA:g}; numba: max |Δθ| < {MFL_TOL:g}; caps 10^5, at k = 1000 10^4)\n")
    print("| mechanism | k | ibu iterations | ibu time | numba iterations | numba time | ibu / numba | "
          "SQUAREM updates | SQUAREM time | ibu / SQUAREM | L(SQUAREM) - L(ibu) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(row for _, row in rows))


if __name__ == "__main__":
    main()
