"""The side-by-side record (issue 31): privest against multi-freq-ldpy (numba) and pure-LDP on the same work, as ratios.

Run from the repository root with the lock's ``peers`` set: ``make bench-peers`` (writes
``docs/performance-peers.md``, which the guide's performance page includes) or
``.venv/bin/python benchmarks/bench_peers.py [--quick] [--output FILE]``. Every BLAS and numba runs on one thread
(set below, before numpy loads). Each time is the median of ``--rounds`` rounds in which privest and the peers run in
turn (interleaved: the machine is shared). A ratio is privest's time over the peer's for the same work (per user
where the peer ran on fewer users): below 1, privest is faster.

Rows, for k = 16, 256, 1024 and eps = 1, 4 (theta = Binomial(k - 1, 1/2), n = ``--users`` users):

- **IBU per iteration** on GRR's k x k matrix (k-RR) and the report counts of n users: privest's ``ibu`` against
  multi-freq-ldpy's numba ``IBU`` kernel, the stopping rules off (``(t(1 + N) - t(1)) / N``, N iterations);
- **IBU one call**: ``privest.ibu(A, counts, max_iter=1)`` (its checks, columns and buffers included) against one
  call of the numba ``IBU(k, A, frequencies, 1, ...)``;
- **IBU to each library's own stop**: privest's |ΔL| < 1e-10 against numba's max |Δθ| < 1e-12 (both capped at 10^4
  iterations): the time, the iterations (numba's found by bisection on nb_iter, at k <= 256) and max |Δθ| between
  the two answers;
- **GIBU from GRR reports**: ``privest.gibu([(grr, reports)])`` end to end (the reports grouped, then GIBU) against
  multi-freq-ldpy's ``GRR_Aggregator_IBU`` (its counting included), for 100 iterations each (the same work) and to
  each library's own stop;
- **a notebook's MLE and bootstrap** (issue 47): OUE at k = 50, eps = 1, n = 10^5, on Dirichlet(1) and binomial
  secrets: ``gibu([(oue, reports)])`` and ``bootstrap`` with every default of privest's (its threads too, in a child
  process), how far below the MLE's log-likelihood it stops, and multi-freq-ldpy's ``UE_Aggregator_IBU`` beside it
  (IBU on the bits' counts, not the same work: no ratio);
- **clients**: privest's vectorised ``sample`` on the n users against each peer's client called once per user on
  ``--peer-users`` users (the peers have no vectorised client);
- **unbiased estimates**: privest's ``estimate`` on the n reports against the peers' aggregators on the same reports
  (on all n where they take O(1) Python steps a report, else on the first ``--peer-aggregate-users``), with the
  largest difference between the estimates;
- **memory** of n unary-encoded (SUE, OUE) and SS reports at k = 1024, each library in a fresh process: the growth
  of the resident set once its client has produced them and holds them;
- **sketches** (issue 51): pure-LDP's sketch oracles (CMS, HCMS, FLH, HM, PCS, RAPPOR with Bloom filters) against
  privest's on the same items, clients and servers (``bench_sketches.one_round``);
- **tutorials** (not in the default sections: the peer takes about a quarter of an hour): multi-freq-ldpy's three
  tutorial grids on one seed, its clients and aggregators as its notebooks call them against privest's vectorised
  sample and estimate, and GIBU (``bench_tutorials``), run with ``--sections tutorials``.
"""

import functools
import os
import sys

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                  "PRIVEST_THREADS"):
    if _variable != "PRIVEST_THREADS" or "--notebook-child" not in sys.argv:  # that child: privest's own default
        os.environ.setdefault(_variable, "1")  # before numpy and numba load: one thread (BLAS, numba, privest)

import argparse  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from bench_library import mfl_iterations  # noqa: E402
from bench_protocols import (  # noqa: E402
    mfl_aggregate,
    mfl_client,
    peer_format,
    pure_client_and_server,
    pure_estimate,
    seed_peers,
    version,
)
from bench_tutorials import EPS as TUTORIAL_EPS  # noqa: E402
from bench_tutorials import bench_grids  # noqa: E402
from scipy.stats import binom  # noqa: E402
from timing import interleaved, powers, seconds  # noqa: E402

import privest  # noqa: E402
from privest import protocols, sampling  # noqa: E402

# The papers' IBU and GIBU (the plain iteration, stopped by the change of L): the engine these benchmarks time.
plain_ibu = functools.partial(privest.ibu, **privest.estimators.PLAIN_IBU)
plain_gibu = functools.partial(privest.gibu, **privest.estimators.PLAIN_IBU)

SEED = 1
KS = (16, 256, 1024)
EPSES = (1.0, 4.0)
USERS = 100_000
PEER_USERS = 10_000
PEER_AGGREGATE_USERS = 2_000
NAMES = ("grr", "sue", "oue", "blh", "olh", "ss", "hr")
SLOW_AGGREGATES = ("blh", "olh", "ss")  # the peers hash or visit every value of every report: O(n k) Python
ITERATIONS = {16: 2000, 256: 400, 1024: 50}  # N of the per-iteration rows
CAP, FIXED = 10_000, 100
NO_STOP = float(np.finfo(np.float64).tiny)  # a tolerance no change undercuts unless it is exactly 0


def secrets_for(k: int, n: int) -> np.ndarray:
    rng = sampling.rng_for(SEED, "bench_peers", "secrets", k, n)
    return rng.permutation(np.repeat(np.arange(k), rng.multinomial(n, binom.pmf(np.arange(k), k - 1, 0.5))))


class Table:
    """Rows of one section: the case, privest's time, each peer's time and ratio, and a note."""

    def __init__(self, title: str, what: str) -> None:
        self.title, self.what, self.rows = title, what, []

    def add(self, case: str, ours: float, mfl: float | None = None, pure: float | None = None, note: str = "",
            ours_n: int = 1, mfl_n: int = 1, pure_n: int = 1, unit: Callable[[float], str] = seconds) -> None:
        """Times in seconds for ``*_n`` users each (the ratios compare per-user costs)."""
        def ratio(peer: float | None, peer_n: int) -> float | None:
            return None if peer is None or peer <= 0 else (ours / ours_n) / (peer / peer_n)

        self.rows.append((case, unit(ours), None if mfl is None else unit(mfl), ratio(mfl, mfl_n),
                          None if pure is None else unit(pure), ratio(pure, pure_n), note))

    def markdown(self) -> str:
        lines = [f"## {self.title}", "", self.what, "",
                 "| case | privest | multi-freq-ldpy | privest / mfl | pure-LDP | privest / pure | note |",
                 "|---|---:|---:|---:|---:|---:|---|"]
        for case, ours, mfl, r_mfl, pure, r_pure, note in self.rows:
            lines.append(f"| {case} | {ours} | {mfl or '—'} | {'' if r_mfl is None else f'{r_mfl:.2f}'} | "
                         f"{pure or '—'} | {'' if r_pure is None else f'{r_pure:.2f}'} | {note} |")
        ratios = [r for row in self.rows for r in (row[3], row[5]) if r is not None]
        if ratios:
            above = sum(r > 1.0 for r in ratios)
            lines += ["", f"Largest ratio {max(ratios):.2f}; {above} of {len(ratios)} ratios above 1.00."]
        return "\n".join(lines)


# --- IBU on a matrix ----------------------------------------------------------------------------------------------


def bench_ibu(tables: dict[str, Table], k: int, eps: float, n: int, rounds: int, every_row: bool = True) -> None:
    """The IBU rows of one case: per iteration, and (``every_row``) one call and each library's own stop."""
    from multi_freq_ldpy.estimators.Histogram_estimator import IBU

    A = privest.krr(k, eps)
    rng = sampling.rng_for(SEED, "bench_peers", "ibu", k, eps)
    counts = np.bincount(privest.sample(A, secrets_for(k, n), rng), minlength=k).astype(np.float64)
    frequencies = counts / counts.sum()
    IBU(k, A, frequencies, 1, NO_STOP, "max_abs")  # numba compiles here
    N = ITERATIONS[k]
    case = f"k = {k}, eps = {eps:g}"
    calls = max(1, 2000 // (k * k // 256 + 1))  # calls a round of the one-iteration runs: about 2000 at k = 16
    one = interleaved({"ours": lambda: plain_ibu(A, counts, max_iter=1, delta=NO_STOP),
                       "mfl": lambda: IBU(k, A, frequencies, 1, NO_STOP, "max_abs")}, rounds, calls)
    more = interleaved({"ours": lambda: plain_ibu(A, counts, max_iter=1 + N, delta=NO_STOP),
                        "mfl": lambda: IBU(k, A, frequencies, 1 + N, NO_STOP, "max_abs")}, rounds)
    # each stops early only where the change is exactly 0 (privest's L, numba's theta): their iterations run
    ours_ran = plain_ibu(A, counts, max_iter=1 + N, delta=NO_STOP).iterations
    theirs_ran = mfl_iterations(IBU, A, frequencies, NO_STOP, 1 + N)
    tables["iteration"].add(case, (more["ours"] - one["ours"]) / (ours_ran - 1),
                            (more["mfl"] - one["mfl"]) / (theirs_ran - 1),
                            note=f"iterations {ours_ran - 1:,} / {theirs_ran - 1:,} after the first")
    if not every_row:
        return
    tables["call"].add(case, one["ours"], one["mfl"], note=f"{calls:,} calls a round")
    stop_rounds = rounds if k < 1024 else 1
    t = interleaved({"ours": lambda: plain_ibu(A, counts, max_iter=CAP),
                     "mfl": lambda: IBU(k, A, frequencies, CAP, 1e-12, "max_abs")}, stop_rounds)
    ours, theirs = plain_ibu(A, counts, max_iter=CAP), IBU(k, A, frequencies, CAP, 1e-12, "max_abs")
    theirs_iterations = f"{mfl_iterations(IBU, A, frequencies, 1e-12, CAP):,}" if k <= 256 else "not counted"
    tables["stop"].add(case, t["ours"], t["mfl"],
                       note=f"iterations {ours.iterations:,}{' (cap)' if ours.capped else ''} / {theirs_iterations}; "
                            f"max abs diff {np.abs(ours.theta - theirs).max():.1e}")


def bench_gibu(tables: dict[str, Table], k: int, eps: float, n: int, rounds: int) -> None:
    grr = protocols.grr(k, eps)
    reports = grr.sample(secrets_for(k, n), sampling.rng_for(SEED, "bench_peers", "gibu", k, eps))
    case = f"k = {k}, eps = {eps:g}"
    t = interleaved({"ours fixed": lambda: plain_gibu([(grr, reports)], max_iter=FIXED, delta=NO_STOP),
                     "mfl fixed": lambda: mfl_aggregate("grr", reports, "IBU", k, eps, nb_iter=FIXED, tol=NO_STOP),
                     "ours": lambda: plain_gibu([(grr, reports)]),
                     "mfl": lambda: mfl_aggregate("grr", reports, "IBU", k, eps)}, rounds)
    ours = plain_gibu([(grr, reports)], max_iter=FIXED, delta=NO_STOP).theta
    theirs = mfl_aggregate("grr", reports, "IBU", k, eps, nb_iter=FIXED, tol=NO_STOP)
    tables["gibu"].add(f"{case}, {FIXED} iterations", t["ours fixed"], t["mfl fixed"],
                       note=f"max abs diff {np.abs(ours - theirs).max():.1e}")
    result = plain_gibu([(grr, reports)])
    tables["gibu"].add(f"{case}, each to its stop", t["ours"], t["mfl"],
                       note=f"privest {result.iterations:,} iterations")


# --- clients and unbiased estimates --------------------------------------------------------------------------------


def per_user(client: Callable[[int], Any], items: list[int]) -> Callable[[], None]:
    def run() -> None:
        for x in items:
            client(x)
    return run


def bench_protocol(tables: dict[str, Table], name: str, k: int, eps: float, n: int, args: argparse.Namespace) -> None:
    m = protocols.by_name(name, k, eps)
    secrets = secrets_for(k, n)
    rng = sampling.rng_for(SEED, "bench_peers", name, k, eps)
    case = f"{name.upper()}, k = {k}, eps = {eps:g}"
    peer_secrets = secrets[: args.peer_users]
    mfl, pure = mfl_client(name, k, eps), pure_client_and_server(name, None, k, eps)
    seed_peers()
    functions: dict[str, Callable[[], Any]] = {"ours": lambda: m.sample(secrets, rng)}
    if mfl:
        mfl(int(secrets[0]))  # numba compiles multi-freq-ldpy's clients on the first call
        functions["mfl"] = per_user(mfl, peer_secrets.tolist())
    if pure:
        functions["pure"] = per_user(pure[0].privatise, (peer_secrets + 1).tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pure-LDP's HR client passes a float to random.randint (deprecated)
        t = interleaved(functions, args.rounds)
    peers_n = peer_secrets.size
    tables["client"].add(case, t["ours"], t.get("mfl"), t.get("pure"), ours_n=n, mfl_n=peers_n, pure_n=peers_n,
                         note=f"peers on {powers(peers_n)} users, privest on {powers(n)}")

    reports = m.sample(secrets, rng)
    peer_n = min(args.peer_aggregate_users, n) if name in SLOW_AGGREGATES else n
    peer_reports = peer_format(name, reports[:peer_n])
    functions = {"ours": lambda: m.estimate(reports)}
    if mfl:
        functions["mfl"] = lambda: mfl_aggregate(name, peer_reports, "MI", k, eps)
    if pure:
        functions["pure"] = lambda: pure_estimate(name, None, peer_reports, k, eps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = interleaved(functions, args.rounds)
        differences = []
        if mfl:  # multi-freq-ldpy's MI normalises: against privest's INV-N
            mine = m.estimate(reports[:peer_n], post="normalization")
            differences.append(f"mfl {np.abs(mfl_aggregate(name, peer_reports, 'MI', k, eps) - mine).max():.0e}")
        if pure:
            mine = m.estimate(reports[:peer_n])
            differences.append(f"pure {np.abs(pure_estimate(name, None, peer_reports, k, eps) - mine).max():.0e}")
    tables["estimate"].add(case, t["ours"], t.get("mfl"), t.get("pure"), ours_n=n, mfl_n=peer_n, pure_n=peer_n,
                           note=(f"peers on {powers(peer_n)} reports; " if peer_n < n else "")
                           + "max abs diff " + ", ".join(differences))


# --- memory -------------------------------------------------------------------------------------------------------


def resident() -> int:
    """This process's resident set now, in bytes (Linux: /proc/self/statm)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def memory_child(library: str, name: str, k: int, eps: float, n: int) -> int:
    """In a fresh process: the growth in bytes of the resident set once ``library``'s client has produced n reports
    of ``name`` and holds them (numba's arrays included, which tracemalloc does not see)."""
    secrets = secrets_for(k, n)
    if library == "mfl":
        client = mfl_client(name, k, eps)
        client(0)  # numba's compile, before the baseline
    elif library == "pure":
        client = pure_client_and_server(name, None, k, eps)[0].privatise
    baseline = resident()
    if library == "privest":
        held = protocols.by_name(name, k, eps).sample(secrets, sampling.rng_for(SEED, "bench_peers", "memory"))
    else:
        offset = 1 if library == "pure" else 0
        held = [client(x + offset) for x in secrets.tolist()]
    grown = resident() - baseline
    del held
    return grown


def bench_memory(tables: dict[str, Table], n: int) -> None:
    def child(library: str, name: str) -> float:
        command = [sys.executable, __file__, "--memory-child", library, name, "1024", "1", str(n)]
        out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=os.path.dirname(__file__))
        return float(out.stdout.split()[-1])

    for name in ("sue", "oue", "ss"):
        ours = child("privest", name)
        mfl = child("mfl", name)
        pure = child("pure", name) if name != "ss" else None
        tables["memory"].add(f"{name.upper()}, k = 1024, eps = 1, n = {powers(n)}", ours, mfl, pure,
                             unit=lambda b: f"{b / 2**20:,.0f} MiB")


# issue 47's notebook case: OUE at k = 50, eps = 1 on n = 10^5 users, privest's estimator and bootstrap as a notebook
# calls them (every default, its threads included: a child process without PRIVEST_THREADS), on two data sets: every
# value present (theta from Dirichlet(1), as bench_squarem.py) and this record's binomial secrets (tails near 0, where
# the MLE has zeros, which EM approaches slowly)
NOTEBOOK = {"k": 50, "eps": 1.0, "users": 100_000}


def notebook_child(rounds: int) -> dict[str, dict[str, float]]:
    """In a fresh process with privest's default threads, for each data set: ``gibu([(oue, reports)])`` and
    multi-freq-ldpy's ``UE_Aggregator_IBU`` with its defaults on the same reports (interleaved), how far each stops
    below the MLE's log-likelihood (the MLE by the certified gap rule at delta = 1e-14), and one ``bootstrap`` with its
    defaults."""
    k, eps, n = NOTEBOOK["k"], NOTEBOOK["eps"], NOTEBOOK["users"]
    oue = protocols.oue(k, eps)
    rng = sampling.rng_for(SEED, "bench_peers", "notebook")
    data = {"every value present (theta ~ Dirichlet(1))": rng.choice(k, n, p=rng.dirichlet(np.ones(k))),
            "binomial secrets (tails near 0)": secrets_for(k, n)}
    mfl_aggregate("oue", oue.sample(np.arange(k), rng), "IBU", k, eps)  # numba compiles here
    got = {}
    for name, secrets in data.items():
        reports = oue.sample(secrets, rng)
        t = interleaved({"ours": lambda r=reports: privest.gibu([(oue, r)]),
                         "mfl": lambda r=reports: mfl_aggregate("oue", r, "IBU", k, eps)}, rounds)
        ours, mle = privest.gibu([(oue, reports)]), privest.gibu([(oue, reports)], delta=1e-14)
        theirs = np.asarray(mfl_aggregate("oue", reports, "IBU", k, eps), dtype=float)
        start = time.perf_counter()
        privest.bootstrap([(oue, reports)], sampling.rng_for(SEED, "bench_peers", "notebook bootstrap", name))
        got[name] = {**t, "bootstrap": time.perf_counter() - start, "updates": ours.iterations,
                     "below ours": mle.log_likelihood - ours.log_likelihood,
                     "below mfl": mle.log_likelihood - privest.estimators.log_likelihood(theirs, [(oue, reports)]),
                     "threads": privest.estimators._bits.threads_from_environment()}
    return got


def bench_notebook(tables: dict[str, Table], rounds: int) -> None:
    import json

    environment = {key: value for key, value in os.environ.items() if key != "PRIVEST_THREADS"}
    command = [sys.executable, __file__, "--notebook-child", str(rounds)]
    out = subprocess.run(command, capture_output=True, text=True, check=True, cwd=os.path.dirname(__file__),
                         env=environment)
    case = f"OUE, k = {NOTEBOOK['k']}, eps = {NOTEBOOK['eps']:g}, n = {powers(NOTEBOOK['users'])}"
    for data, got in json.loads(out.stdout.splitlines()[-1]).items():
        tables["notebook"].add(f"{case}, {data}: `gibu([(oue, reports)])`", got["ours"],
                               note=f"{got['updates']:,} updates; L(MLE) - L {got['below ours']:.1e}; "
                                    f"multi-freq-ldpy's `UE_Aggregator_IBU` {seconds(got['mfl'])}, L(MLE) - L "
                                    f"{got['below mfl']:.1e} (IBU on the bits' counts: not the reports' MLE, so no "
                                    "ratio)")
        tables["notebook"].add(f"{case}, {data}: `bootstrap([(oue, reports)], rng)`, 200 replicates",
                               got["bootstrap"], note=f"one run; {got['threads']} threads (privest's default here); "
                                                      "no peer has one")


SKETCHES = ("cms", "hcms", "flh", "hm", "pcs", "rappor_bloom", "rappor_decode")


def bench_sketches(tables: dict[str, Table], n: int, rounds: int) -> None:
    """The sketch oracles' rows (issue 51): ``bench_sketches.one_round`` for each, privest's client and server against
    pure-LDP's on the same items (Zipf(1.1) over 1024 items, eps = 2; its module docstring gives the parameters), the
    order of the two alternating round by round."""
    import bench_sketches

    weights = 1 / np.arange(1, bench_sketches.D + 1) ** 1.1
    items = sampling.rng_for(SEED, "bench_peers", "sketches", n).choice(bench_sketches.D, n, p=weights / weights.sum())
    for name in SKETCHES:
        runs = [bench_sketches.one_round(name, items, r, peer_first=r % 2 == 1) for r in range(rounds)]
        median = {key: float(np.median([run[key] for run in runs])) for key in runs[0]}
        label = {"rappor_bloom": "RAPPOR-Bloom estimate", "rappor_decode": "RAPPOR-Bloom LASSO + least squares"}
        case = f"{label.get(name, name.upper())}, d = {bench_sketches.D}, eps = {bench_sketches.EPS:g}"
        tables["sketches"].add(f"{case}: client", median["privest client"], pure=median["peer client"],
                               note=f"{powers(n)} users, pure-LDP's `privatise` once a user")
        server_note = ("pure-LDP's regression over the d items (scikit-learn)" if name.startswith("rappor")
                       else "all d items queried")
        tables["sketches"].add(f"{case}: server", median["privest server"],
                               pure=None if np.isnan(median["peer server"]) else median["peer server"],
                               note=server_note + ("" if not np.isnan(median["peer server"]) else
                                                   "; pure-LDP's server failed (its Lasso selected no item)"))


TUTORIAL_GRIDS = {"single": "single attribute (notebook 1): 8 protocols × {eps} eps, Adult ages, n = {users:,}",
                  "longitudinal": "longitudinal (notebook 3): 6 protocols × {eps} eps_perm, Adult ages, n = {users:,}",
                  "multidim": "multidimensional (notebook 2): SPL, SMP, RS+FD with ADP × {eps} eps, d = 6, "
                              "n = {users:,}"}


def bench_tutorial_grids(tables: dict[str, Table], args: argparse.Namespace) -> None:
    """The tutorials rows: each grid's summed time on one seed, privest's sample + estimate and with GIBU added,
    against the peer's clients and aggregators on the same grid (``bench_tutorials``)."""
    from pathlib import Path

    totals = bench_grids(SEED, Path(args.adult), args.tutorial_users, tuple(args.tutorial_eps),
                         progress=lambda line: print(line, file=sys.stderr, flush=True))
    for grid, total in totals.items():
        case = TUTORIAL_GRIDS[grid].format(eps=len(args.tutorial_eps), users=int(total["users"]))
        tables["tutorials"].add(f"{case}: sample + unbiased estimate", total["ours"], total["peer"],
                                note=f"{total['cells']} cells; {fraction(total['ours'], total['peer'])}")
        with_gibu = total["ours"] + total["gibu"]
        tables["tutorials"].add(f"{case}: sample + unbiased estimate + GIBU", with_gibu, total["peer"],
                                note=f"GIBU alone {seconds(total['gibu'])}; {fraction(with_gibu, total['peer'])}")
    every = {key: sum(total[key] for total in totals.values()) for key in ("peer", "ours", "gibu")}
    tables["tutorials"].add("the three grids: sample + unbiased estimate", every["ours"], every["peer"],
                            note=fraction(every["ours"], every["peer"]))
    tables["tutorials"].add("the three grids: sample + unbiased estimate + GIBU", every["ours"] + every["gibu"],
                            every["peer"], note=fraction(every["ours"] + every["gibu"], every["peer"]))


def fraction(ours: float, peer: float) -> str:
    """privest's time as a fraction of the peer's, 'privest = 1/850 of the peer's' (the ratio column rounds to 0.00)."""
    return f"privest = 1/{peer / ours:,.0f} of the peer's" if ours > 0 else ""


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=USERS, help=f"privest's users (default {USERS:,})")
    parser.add_argument("--peer-users", type=int, default=PEER_USERS, help="users of the peers' per-user clients")
    parser.add_argument("--peer-aggregate-users", type=int, default=PEER_AGGREGATE_USERS,
                        help="reports of the peers' O(n k) aggregators (LH, SS)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; each time is their median")
    parser.add_argument("--ks", type=int, nargs="*", default=list(KS))
    parser.add_argument("--sections", nargs="*", default=["ibu", "gibu", "notebook", "client", "memory", "sketches"],
                        help="ibu, gibu, notebook (OUE's estimate and bootstrap with privest's defaults), client "
                             "(clients and unbiased estimates), memory, sketches (pure-LDP's sketch oracles); or "
                             "iteration: only IBU's per-iteration rows; tutorials: multi-freq-ldpy's tutorial grids "
                             "(not by default)")
    parser.add_argument("--adult", default="../shared/datasets",
                        help="the directory of adult.data and adult.test (tutorials; default the config's mirror)")
    parser.add_argument("--tutorial-users", type=int, help="the tutorials on the first this many users (default all)")
    parser.add_argument("--tutorial-eps", type=float, nargs="*", default=list(TUTORIAL_EPS),
                        help="the tutorials' eps (default the notebooks' 0.5..5.0)")
    parser.add_argument("--protocols", nargs="*", default=list(NAMES), help="the clients' and estimates' protocols")
    parser.add_argument("--output", help="also write the record (markdown) to this file")
    parser.add_argument("--memory-child", nargs=5, help=argparse.SUPPRESS)
    parser.add_argument("--notebook-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        library, name, k, eps, n = args.memory_child
        print(memory_child(library, name, int(k), float(eps), int(n)))
        return
    if args.notebook_child:
        import json

        print(json.dumps(notebook_child(args.notebook_child)))
        return
    missing = [p for p in ("multi-freq-ldpy", "pure-ldp", "numba") if version(p) == "not installed"]
    if missing:
        parser.error(f"{', '.join(missing)} not installed: make .venv/.installed-peers")
    tables = {key: Table(title, what) for key, title, what in (
        ("iteration", "IBU per iteration", "k-RR's k x k matrix, the stopping rules off: privest's `ibu` (compiled "
                                           "loop) and multi-freq-ldpy's numba `IBU`."),
        ("call", "IBU, one call of one iteration", "`privest.ibu(A, counts, max_iter=1)` (argument checks, columns, "
                                                   "buffers) against numba's `IBU(k, A, frequencies, 1, ...)`."),
        ("stop", "IBU to each library's own stop", "privest |ΔL| < 1e-10, numba max |Δθ| < 1e-12, both capped at "
                                                  "10^4 iterations; iterations privest / numba."),
        ("gibu", "GIBU from GRR reports, end to end", "`privest.gibu([(grr, reports)])` against multi-freq-ldpy's "
                                                      "`GRR_Aggregator_IBU` (its counting included)."),
        ("notebook", "A notebook's MLE and bootstrap, privest's defaults", "OUE's reports of two data sets: "
                     "privest's `gibu` and `bootstrap` with every default (gibu: SQUAREM, then Newton; bootstrap: "
                     "SQUAREM; their stopping rules, its threads) "
                     "beside multi-freq-ldpy's `UE_Aggregator_IBU` with its defaults (max |Δθ| < 1e-12, 10^4 "
                     "iterations), in a process of its own; L(MLE) from the certified gap rule at delta = 1e-14."),
        ("client", "Clients (perturbing users)", "per user: privest's vectorised `sample` against the peers' "
                                                 "clients called once per user."),
        ("estimate", "Unbiased estimates on the same reports", "per report: privest's `estimate` against "
                     "multi-freq-ldpy's `*_Aggregator_MI` (vs privest INV-N) and pure-LDP's server (vs the raw "
                     "estimate)."),
        ("memory", "Memory of the reports", "growth of the resident set once each client has produced the reports "
                                            "and holds them (a fresh process each)."),
        ("sketches", "Sketch oracles (domains too large to enumerate)", "privest's sketch oracles against "
                     "pure-LDP's on the same items (Zipf(1.1) over d = 1024, eps = 2; `benchmarks/bench_sketches.py`'s "
                     "parameters): the clients on every user, the servers' estimates of all d items from those reports "
                     "(RAPPOR-Bloom: privest's per-item unbiased estimate, and its LASSO + least-squares decoding, "
                     "against pure-LDP's regression)."),
        ("tutorials", "multi-freq-ldpy's tutorial grids, one seed", "each grid's time summed over its (protocol, "
                      "eps) cells, run in turn: the peer's clients on every user and its `*_Aggregator_MI`, as its "
                      "notebooks call them, against privest's vectorised `sample` and `estimate(post="
                      "\"normalization\")` (the peer's MI), and with GIBU on privest's reports added (SQUAREM, "
                      "ΔL < 1e-8 or 2,000 updates; per attribute for the multidimensional solutions). One run: the "
                      "peer's grid takes minutes."))}
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for k in args.ks:
        for eps in EPSES:
            if "ibu" in args.sections or "iteration" in args.sections:
                bench_ibu(tables, k, eps, args.users, args.rounds, every_row="ibu" in args.sections)
            if "gibu" in args.sections:
                bench_gibu(tables, k, eps, args.users, args.rounds)
            if "client" in args.sections:
                for name in args.protocols:
                    bench_protocol(tables, name, k, eps, args.users, args)
    if "notebook" in args.sections:
        bench_notebook(tables, args.rounds)
    if "memory" in args.sections:
        bench_memory(tables, args.users)
    if "sketches" in args.sections:
        bench_sketches(tables, args.users, args.rounds)
    if "tutorials" in args.sections:
        bench_tutorial_grids(tables, args)
    header = (f"Run {started} (`benchmarks/bench_peers.py`, {args.rounds} interleaved rounds, medians; "
              f"n = {powers(args.users)}): privest {version('privest')} (compiled loop "
              f"{'built' if privest.estimators.COMPILED_KERNEL else 'not built'}), numpy {np.__version__}, "
              f"multi-freq-ldpy {version('multi-freq-ldpy')}, numba {version('numba')}, pure-ldp "
              f"{version('pure-ldp')}; Python {platform.python_version()} on {platform.machine()}, "
              f"{os.cpu_count()} CPUs, single-thread BLAS and numba; load average {load[0]:.1f} at the start, "
              f"{os.getloadavg()[0]:.1f} at the end (a shared machine). A ratio is privest's time over the peer's "
              "for the same work: below 1.00, privest is faster.")
    record = "\n\n".join([header] + [t.markdown() for t in tables.values() if t.rows]) + "\n"
    print(record)
    if args.output:
        temporary = f"{args.output}.tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(record)
        os.replace(temporary, args.output)


if __name__ == "__main__":
    main()
