"""Bit-packed reports against the paths they replace (issue 26, items 2 and 5), side by side in one run, as ratios.

- **SUE, OUE, SS** at n = 10^6 users, k = 1024, eps = 1: group construction (the ``SetGroup`` that
  ``Protocol.group`` built block by block, against the ``BitGroup`` of ``_BitReports.group``: distinct packed rows by
  hashing), GIBU's setup (``_Likelihood.of``) and GIBU per iteration, ``(t(1 + N) - t(1)) / N`` with the stopping rule
  off, on the sparse products of ``_Sets`` against the byte-sliced pass of ``_Bits``.
- **RAPPOR**, the free-will study's ``rappor_high`` mixture: k = 20, 10 RAPPOR mechanisms of eps 0.1 .. 1.0, n = 10^6
  users split equally: the dense ``Group`` (k x distinct reports, as ``rappor_group`` built it before) against the
  ``BitGroup``.
- **Bytes and bandwidth**: the bytes one iteration of the bit pass must read (the packed rows and their weights; its
  two B x 256 tables stay in the caches), against this machine's memory bandwidth measured in the same run (the best
  of a few ``numpy.sum`` over 512 MB): the achieved fraction of it.
- multi-freq-ldpy's UE IBU per iteration (its numba ``IBU`` kernel on the k x k support problem, as bench_peers.py
  times it) where that library is installed (``make .venv/.installed-peers``).

With ``--passes``, only the compiled pass's two ways of summing the update's terms, side by side in one run: the
histograms over bytes then folded (``bits_pass``, main's pass before the direct sums) against the direct sums over
tables of 8-row subsets (``bits_sums``), GIBU per iteration on the same BitGroups (SUE, OUE, SS at n = 10^6, k = 1024,
eps = 1, and RAPPOR's ``rappor_high`` mixture) in alternating rounds, the pass alone in ns per row, the bytes read per
iteration and the fraction of the bandwidth, the largest |theta difference| after the timed iterations and the ratio
to the recorded SetGroup path of issue 26 (359, 267, 256 ms); then the pass alone at k = 64 .. 1024 (8 .. 128 bytes a
row): where the direct sums start to win (``_bits._SUMS_BYTES``).

Single-thread BLAS, as bench_peers.py. Old and new per iteration are timed in alternating rounds (best of each), so
that a load that comes and goes on a shared machine weighs on both. Run from the repository root:
``python benchmarks/bench_bits.py`` (``make bench-bits``; about 5 minutes on this machine, 7 GB at most).
"""

import functools
import os

for _variable in ("OPENBLAS_NUM_THREADS", "PRIVEST_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy loads: one thread (BLAS, privest; --threads for GIBU)

import argparse  # noqa: E402
import contextlib  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from timing import best_time, powers, seconds  # noqa: E402

import privest  # noqa: E402
from privest import protocols  # noqa: E402
from privest.estimators import _bits, _iteration  # noqa: E402
from privest.groups import BitGroup, Group, SetGroup  # noqa: E402
from privest.protocols import base  # noqa: E402
from privest.protocols.base import Protocol  # noqa: E402
from privest.rappor import RapporReports, log_probability  # noqa: E402

# The papers' IBU and GIBU (the plain iteration, stopped by the change of L): the engine these benchmarks time.
plain_ibu = functools.partial(privest.ibu, **privest.estimators.PLAIN_IBU)
plain_gibu = functools.partial(privest.gibu, **privest.estimators.PLAIN_IBU)

NO_STOP = 1e-300


def bandwidth(repeats: int = 5) -> float:
    """Bytes per second of the best ``numpy.sum`` over a 512 MB float64 array (read once, from memory)."""
    data = np.ones(1 << 26)
    t, _ = best_time(lambda: data.sum(), repeats)
    return data.nbytes / t


def per_iteration(old: list, new: list, old_extra: int, new_extra: int, rounds: int = 2) -> tuple[float, float]:
    """Each further iteration of ``gibu`` on the old and the new groups, the stopping rule off:
    ``(t(1 + N) - t(1)) / N``, each t the best of ``rounds`` alternating rounds."""
    best = {}
    for _ in range(rounds):
        for label, groups, extra in (("old", old, old_extra), ("new", new, new_extra)):
            for iterations in (1, 1 + extra):
                t, result = best_time(lambda g=groups, i=iterations: plain_gibu(g, delta=NO_STOP, max_iter=i))
                assert result.iterations == iterations
                best[label, iterations] = min(best.get((label, iterations), float("inf")), t)
    return ((best["old", 1 + old_extra] - best["old", 1]) / old_extra,
            (best["new", 1 + new_extra] - best["new", 1]) / new_extra)


def setup_time(groups: list) -> float:
    t, _ = best_time(lambda: _iteration._Likelihood.of(groups, dense_sets=True), 2)
    return t


def bit_bytes(groups: list) -> int:
    """The bytes one iteration of the bit pass reads: each group's packed rows and their float64 weights."""
    return sum(g.bits.nbytes + 8 * g.counts.size for g in groups)


def row(case: str, old: float, new: float, note: str = "") -> str:
    return f"| {case} | {seconds(old)} | {seconds(new)} | {old / new:.1f}x | {note} |"


@contextlib.contextmanager
def sets_unpacked():
    """``Protocol.group`` builds the CSR ``SetGroup`` whatever the set sizes (as it did before ``PACKED_SETS``)."""
    saved, base.PACKED_SETS = base.PACKED_SETS, float("inf")
    try:
        yield
    finally:
        base.PACKED_SETS = saved


@contextlib.contextmanager
def threads(count: int):
    """The compiled direct sums on ``count`` threads (PRIVEST_THREADS)."""
    saved = os.environ.get("PRIVEST_THREADS")
    os.environ["PRIVEST_THREADS"] = str(count)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["PRIVEST_THREADS"]
        else:
            os.environ["PRIVEST_THREADS"] = saved


def bench_protocol(name: str, k: int, n: int, eps: float, rate: float, rng: np.random.Generator,
                   thread_counts: list[int]) -> list[str]:
    protocol = protocols.by_name(name, k, eps)
    reports = protocol.sample(rng.integers(0, k, n), rng)
    with sets_unpacked():
        t_old, sparse = best_time(lambda: Protocol.group(protocol, reports))
    t_new, packed = best_time(lambda: protocol.group(reports), 2)
    assert isinstance(sparse, SetGroup) and isinstance(packed, BitGroup)
    assert np.array_equal(np.sort(sparse.counts), np.sort(packed.counts))
    case = f"{name.upper()}, k = {k}, n = {powers(n)}, eps = {eps:g}"
    rows = [row(f"{case}: group construction", t_old, t_new, f"{packed.counts.size:,} distinct reports")]
    rows.append(row(f"{case}: GIBU setup", setup_time([sparse]), setup_time([packed])))
    touched = bit_bytes([packed])
    for count in thread_counts:
        with threads(count):
            old_iteration, new_iteration = per_iteration([sparse], [packed], 3, 20)
        on = "" if count == 1 else f" (BitGroup on {count} threads)"
        rows.append(row(f"{case}: GIBU per iteration{on}", old_iteration, new_iteration,
                        f"{touched / 1e6:.0f} MB read: {touched / new_iteration / 1e9:.1f} GB/s, "
                        f"{touched / new_iteration / rate:.0%} of the bandwidth"))
    return rows


def bench_rappor(n: int, rate: float, rng: np.random.Generator) -> list[str]:
    k, levels = 20, np.arange(1, 11) / 10
    secrets = rng.binomial(k - 1, 0.5, size=n)
    reports = [RapporReports.from_bits(privest.sampling.rappor(secrets[j::levels.size], k, eps, rng), eps)
               for j, eps in enumerate(levels)]

    def dense() -> list[Group]:  # rappor_group before BitGroup: G = exp(log P - its column maximum)
        groups = []
        for r in reports:
            log_p = log_probability(r.bits, r.eps)
            groups.append(Group(np.exp(log_p - log_p.max(axis=0)), r.counts.astype(np.float64), log_p.max(axis=0)))
        return groups

    t_old, old = best_time(dense, 2)
    t_new, new = best_time(lambda: [privest.rappor_group(r) for r in reports], 2)
    distinct = sum(g.counts.size for g in new)
    case = f"RAPPOR rappor_high, k = {k}, 10 eps 0.1..1, n = {powers(n)}"
    rows = [row(f"{case}: group construction", t_old, t_new, f"{distinct:,} distinct reports")]
    rows.append(row(f"{case}: GIBU setup", setup_time(old), setup_time(new)))
    old_iteration, new_iteration = per_iteration(old, new, 50, 50, rounds=3)
    touched = bit_bytes(new)
    rows.append(row(f"{case}: GIBU per iteration", old_iteration, new_iteration,
                    f"{touched / 1e6:.0f} MB read: {touched / new_iteration / 1e9:.1f} GB/s, "
                    f"{touched / new_iteration / rate:.0%} of the bandwidth; dense G {8 * k * distinct / 1e6:.0f} MB"))
    return rows


def bench_mfl(k: int, eps: float) -> list[str]:
    """multi-freq-ldpy's numba IBU per iteration on UE's k x k support problem, as bench_peers.py times it."""
    try:
        from multi_freq_ldpy.estimators.Histogram_estimator import IBU
    except ImportError:
        return [f"| multi-freq-ldpy UE IBU per iteration, k = {k} | not installed here (bench_peers.py's record: "
                "1.85 µs SUE, 113 µs OUE) | | | |"]
    rows = []
    for name in ("sue", "oue"):
        protocol = protocols.by_name(name, k, eps)
        A = np.full((k, k), protocol.q_star)
        np.fill_diagonal(A, protocol.p_star)
        A /= A.sum(axis=1, keepdims=True)
        q = np.full(k, 1 / k)
        IBU(k, A, q, 2, NO_STOP, "max_abs")  # numba compiles on the first call

        def run(iterations: int, A: np.ndarray = A, q: np.ndarray = q) -> Callable[[], object]:
            return lambda: IBU(k, A, q, iterations, NO_STOP, "max_abs")

        one, _ = best_time(run(1), 5)
        more, _ = best_time(run(101), 5)
        rows.append(f"| multi-freq-ldpy {name.upper()} IBU per iteration (k x k support problem) | — | "
                    f"{seconds((more - one) / 100)} | | not the MLE of the reports: k support counts |")
    return rows


# GIBU per iteration on the SetGroup path of before, at n = 10^6, k = 1024, eps = 1 (bench_peers.py's record, issue 26)
RECORDED_SETGROUP = {"sue": 0.359, "oue": 0.267, "ss": 0.256}
HISTOGRAMS, SUMS = 10**9, 1  # _bits._SUMS_BYTES that sends every BitGroup to bits_pass, or to bits_sums


@contextlib.contextmanager
def sums_from(nbytes: int):
    """_Bits sums the update's terms directly (bits_sums) from ``nbytes`` bytes a row, by histograms below."""
    saved, _bits._SUMS_BYTES = _bits._SUMS_BYTES, nbytes
    try:
        yield
    finally:
        _bits._SUMS_BYTES = saved


def compare_passes(groups: list, extra: int, rounds: int) -> dict:
    """GIBU per iteration ``(t(1 + extra) - t(1)) / extra`` and the pass alone (``_Bits.forward`` at theta uniform) on
    the histograms and on the direct sums, in alternating rounds (best of each); and the largest |theta difference|
    after 1 + extra iterations."""
    best, theta = {}, {}
    n = sum(float(g.counts.sum()) for g in groups)
    bits = _bits._Bits(groups, n)
    uniform = np.full(groups[0].k, 1 / groups[0].k)
    for _ in range(rounds):
        for label, nbytes in (("histograms", HISTOGRAMS), ("sums", SUMS)):
            with sums_from(nbytes):
                t, _ = best_time(lambda: bits.forward(uniform))
                best[label, "pass"] = min(best.get((label, "pass"), float("inf")), t)
                for iterations in (1, 1 + extra):
                    t, result = best_time(lambda i=iterations: plain_gibu(groups, delta=NO_STOP, max_iter=i))
                    assert result.iterations == iterations
                    best[label, iterations] = min(best.get((label, iterations), float("inf")), t)
                theta[label] = result.theta
    out = {label: (best[label, 1 + extra] - best[label, 1]) / extra for label in ("histograms", "sums")}
    out.update({f"{label} pass": best[label, "pass"] for label in ("histograms", "sums")})
    out["theta"] = float(np.max(np.abs(theta["histograms"] - theta["sums"])))
    return out


def pass_rows(case: str, groups: list, rate: float, extra: int, rounds: int, recorded: float | None) -> str:
    times = compare_passes(groups, extra, rounds)
    rows, touched = sum(g.counts.size for g in groups), bit_bytes(groups)
    old, new = times["histograms"], times["sums"]
    today = f"{seconds(recorded)}: {recorded / new:.1f}x" if recorded else "—"
    return (f"| {case} | {seconds(old)} | {seconds(new)} | {old / new:.2f}x | {today} | "
            f"{times['histograms pass'] / rows * 1e9:.0f} → {times['sums pass'] / rows * 1e9:.0f} | "
            f"{touched / 1e6:.0f} MB: {touched / new / 1e9:.2f} GB/s, {touched / new / rate:.0%} | "
            f"{times['theta']:.1e} |")


def rappor_groups(n: int, rng: np.random.Generator) -> list:
    """The free-will study's rappor_high mixture: k = 20, 10 RAPPOR mechanisms of eps 0.1 .. 1.0, n users split."""
    k, levels = 20, np.arange(1, 11) / 10
    secrets = rng.binomial(k - 1, 0.5, size=n)
    return [privest.rappor_group(RapporReports.from_bits(privest.sampling.rappor(secrets[j::levels.size], k, eps, rng),
                                                         eps)) for j, eps in enumerate(levels)]


def bench_passes(args: argparse.Namespace, rate: float, rng: np.random.Generator) -> None:
    print("| case | histograms (main's pass) | direct sums | histograms / sums | recorded SetGroup path: its / sums "
          "| pass alone, ns a row (histograms → sums) | read an iteration (sums): rate, of the bandwidth "
          "| max abs theta diff |\n|---|---|---|---|---|---|---|---|", flush=True)
    print(pass_rows(f"RAPPOR rappor_high, k = 20, 10 eps 0.1..1, n = {powers(args.n)} (B = 3: histograms used)",
                    rappor_groups(args.n, rng), rate, 50, 3, None), flush=True)
    for name in args.protocols.split(","):
        protocol = protocols.by_name(name, args.k, 1.0)
        group = protocol.group(protocol.sample(rng.integers(0, args.k, args.n), rng))
        case = f"{name.upper()}, k = {args.k}, n = {powers(args.n)}, eps = 1 ({group.counts.size:,} distinct)"
        print(pass_rows(case, [group], rate, 10, 3, RECORDED_SETGROUP.get(name) if args.k == 1024 else None),
              flush=True)
    print("\nThe pass alone (OUE, eps = 1, 2 10^5 users), ns a row, by bytes a row B:\n\n"
          "| k | B | histograms | direct sums | histograms / sums |\n|---|---|---|---|---|")
    for k in (64, 128, 256, 384, 512, 1024):
        protocol = protocols.by_name("oue", k, 1.0)
        group = protocol.group(protocol.sample(rng.integers(0, k, 200_000), rng))
        times = compare_passes([group], 2, 3)
        rows = group.counts.size
        print(f"| {k} | {group.bits.shape[1]} | {times['histograms pass'] / rows * 1e9:.1f} | "
              f"{times['sums pass'] / rows * 1e9:.1f} | {times['histograms pass'] / times['sums pass']:.2f}x |",
              flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10**6)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--protocols", default="sue,oue,ss")
    parser.add_argument("--threads", default=f"1,{_bits.available_cores()}",
                        help="PRIVEST_THREADS values for GIBU per iteration on the BitGroup, comma-separated "
                             "(default: 1 and the cores this process may use; the old path on one thread)")
    parser.add_argument("--passes", action="store_true",
                        help="only the compiled pass: histograms (main's) against direct sums, side by side")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2026)
    rate = bandwidth()
    kernel = "compiled" if _bits._kernel is not None else "numpy"
    print(f"memory bandwidth (numpy.sum over 512 MB, best of 5): {rate / 1e9:.1f} GB/s; bit pass: {kernel}\n")
    if args.passes:
        if _bits._kernel is None:
            raise SystemExit("--passes: privest._kernel is not built")
        start = time.perf_counter()
        bench_passes(args, rate, rng)
        print(f"\n({time.perf_counter() - start:.0f} s)")
        return
    print("| case | old path | BitGroup | old / new | note |\n|---|---|---|---|---|")
    start = time.perf_counter()
    for line in bench_rappor(args.n, rate, rng):
        print(line, flush=True)
    for name in args.protocols.split(","):
        for line in bench_protocol(name, args.k, args.n, 1.0, rate, rng, [int(t) for t in args.threads.split(",")]):
            print(line, flush=True)
    for line in bench_mfl(args.k, 1.0):
        print(line)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
