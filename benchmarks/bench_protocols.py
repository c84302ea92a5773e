"""Time privest.protocols against the peer libraries multi-freq-ldpy and pure-LDP, side by side in one run.

Run from the repository root: ``.venv/bin/python benchmarks/bench_protocols.py`` (needs the ``peers`` extra). Prints one
markdown table; nothing is written to disk. Each privest time is the best of ``--repeats`` runs (default 2: the first
call of a step on 10^6 reports can take up to 10 times longer, its fresh memory faulting in), each peer time one run
(its Python loop runs for seconds), measured with ``time.perf_counter``.

The setting: k = 1024 secrets, eps = 1, theta = Binomial(1023, 1/2), n = 10^6 users (``--users``). Per protocol:

- client: privest's vectorised ``sample`` on all n users; each peer's client, called once per user as it is meant to
  be, on the first ``--peer-users`` (10^5) users (its numba compile excluded by a warm-up call), with the per-user
  cost ratio peer / privest;
- unbiased estimate: privest's ``estimate`` on the n reports; the peers' aggregators on the same reports in their own
  formats: on all n where they cost O(1) Python steps a report (GRR, UE, HR, FastLH), on the first
  ``--peer-aggregate-users`` (5000) where they hash or loop over every value for every report (LH, SS), with the
  largest difference from privest's estimate on the same reports (INV-N for multi-freq-ldpy, whose MI normalises);
- GIBU: ``privest.gibu([(m, reports)], max_iter=1)`` end to end, ``m.group(reports)`` alone, and on the group the
  cost of setting up plus one iteration and of each further iteration (from 1 and 6 iterations);
  multi-freq-ldpy's ``*_Aggregator_IBU`` with ``nb_iter=1`` end to end (its counting included; on the same n as its
  estimator) and its numba ``IBU`` kernel per iteration (k x k matrix products, compile excluded). pure-LDP has no
  IBU. multi-freq-ldpy's IBU of the set-valued protocols runs on the reports' support counts, not on their
  likelihood (tests/peers), so only its GRR IBU computes what GIBU does.

OLH and BLH run with per-user seeds (hashes=None, as both peers) and OLH also with a family of 1024 hash functions
(hashes=1024, against pure-LDP's FastLH with 1024 hashes). Every random draw comes from
``rng_for(SEED, "bench_protocols", ...)`` or, for the peers, from their global generators seeded with SEED.
"""

import argparse
import functools
import gc
import importlib.metadata
import os
import platform
import random
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import binom
from timing import best_time, powers, seconds

import privest
from privest import protocols, sampling

# The papers' IBU and GIBU (the plain iteration, stopped by the change of L): the engine these benchmarks time.
plain_ibu = functools.partial(privest.ibu, **privest.estimators.PLAIN_IBU)
plain_gibu = functools.partial(privest.gibu, **privest.estimators.PLAIN_IBU)

SEED = 1
K = 1024
EPS = 1.0
USERS = 1_000_000
PEER_USERS = 100_000
PEER_AGGREGATE_USERS = 5_000
HASHES = 1024
FURTHER = 5  # GIBU's cost per iteration: (time of 1 + FURTHER iterations - time of 1) / FURTHER
CASES: tuple[tuple[str, int | None], ...] = (("grr", None), ("sue", None), ("oue", None), ("blh", None),
                                             ("olh", None), ("olh", HASHES), ("ss", None), ("hr", None))
NO_STOP = float(np.finfo(np.float64).tiny)  # a tolerance no iteration undercuts: exactly nb_iter / max_iter


@dataclass(frozen=True)
class Timing:
    """A time in seconds for n users (n = 0: not per user)."""

    seconds: float
    n: int = 0

    def per_user(self) -> float:
        return self.seconds / self.n


@dataclass(frozen=True)
class Row:
    """One line of the table: privest's timing and each peer's (None: the peer has no such step)."""

    protocol: str
    step: str
    privest: Timing
    mfl: Timing | None = None
    pure: Timing | None = None
    note: str = ""


def label(name: str, hashes: int | None) -> str:
    return name.upper() + (f" ({hashes} hashes)" if hashes else "")


def protocol(name: str, hashes: int | None) -> protocols.Protocol:
    return protocols.by_name(name, K, EPS, hashes=hashes) if hashes else protocols.by_name(name, K, EPS)


def seed_peers() -> None:
    """Seed the peers' global generators: Python's random, numpy's, and numba's (from jit code)."""
    import numba

    @numba.njit
    def seed_numba(seed: int) -> None:
        np.random.seed(seed)  # noqa: NPY002 (in jit code: numba's generator, which the peers' jit clients use)

    random.seed(SEED)
    np.random.seed(SEED)  # noqa: NPY002 (the peers draw from the global generator)
    seed_numba(SEED)


# --- the peers, in their own report formats --------------------------------------------------------------------------


def mfl_client(name: str, k: int = K, eps: float = EPS) -> Callable[[int], Any] | None:
    """multi-freq-ldpy's client of privest's protocol ``name``, one secret in, one report out."""
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE

    return {"grr": lambda x: GRR.GRR_Client(x, k, eps), "sue": lambda x: UE.UE_Client(x, k, eps, False),
            "oue": lambda x: UE.UE_Client(x, k, eps, True), "blh": lambda x: LH.LH_Client(x, k, eps, False),
            "olh": lambda x: LH.LH_Client(x, k, eps, True), "ss": lambda x: SS.SS_Client(x, k, eps)}.get(name)


def pure_client_and_server(name: str, hashes: int | None, k: int = K, eps: float = EPS) -> tuple[Any, Any] | None:
    """pure-LDP's client and a fresh server of privest's protocol ``name`` (its items are 1..k)."""
    from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
    from pure_ldp.frequency_oracles.hadamard_response import HadamardResponseClient, HadamardResponseServer
    from pure_ldp.frequency_oracles.local_hashing import FastLHClient, FastLHServer, LHClient, LHServer
    from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

    olh = name == "olh"
    if name == "grr":
        return DEClient(eps, k), DEServer(eps, k)
    if name in ("sue", "oue"):
        return UEClient(eps, k, use_oue=name == "oue"), UEServer(eps, k, use_oue=name == "oue")
    if name in ("blh", "olh") and hashes:
        return FastLHClient(eps, k, hashes, use_olh=olh), FastLHServer(eps, k, hashes, use_olh=olh)
    if name in ("blh", "olh"):
        return LHClient(eps, k, use_olh=olh), LHServer(eps, k, use_olh=olh)
    if name == "hr":
        server = HadamardResponseServer(eps, k)
        return HadamardResponseClient(eps, k, server.get_hash_funcs()), server
    return None


def peer_format(name: str, reports: Any) -> Any:
    """privest's reports as both peers take them: ints, bit rows, (value, seed) pairs or SS's index rows."""
    if name in ("blh", "olh"):
        return list(zip(reports.values.tolist(), reports.seeds.tolist(), strict=True))
    if name == "ss":
        return np.nonzero(reports)[1].reshape(len(reports), -1)
    return reports


def mfl_aggregate(name: str, reports: Any, estimator: str, k: int = K, eps: float = EPS, **options: Any) -> np.ndarray:
    """multi-freq-ldpy's MI or IBU aggregator of ``name`` on reports in its format."""
    from multi_freq_ldpy.pure_frequency_oracles import GRR, LH, SS, UE

    optimal = name in ("oue", "olh")
    if name == "grr":
        return getattr(GRR, f"GRR_Aggregator_{estimator}")(reports, k, eps, **options)
    if name in ("sue", "oue"):
        if estimator == "MI":
            return UE.UE_Aggregator_MI(reports, eps, optimal)
        return UE.UE_Aggregator_IBU(reports, k, eps, optimal, **options)
    if name in ("blh", "olh"):
        return getattr(LH, f"LH_Aggregator_{estimator}")(reports, k, eps, optimal, **options)
    return getattr(SS, f"SS_Aggregator_{estimator}")(reports, k, eps, **options)


def pure_estimate(name: str, hashes: int | None, reports: Any, k: int = K, eps: float = EPS) -> np.ndarray:
    """pure-LDP's server (built here: FastLH's hash matrix is part of its cost) on reports in its format, as
    frequencies."""
    _, server = pure_client_and_server(name, hashes, k, eps)
    server.aggregate_all(reports)
    return np.asarray(server.estimate_all(range(1, k + 1), suppress_warnings=True)) / len(reports)


# --- one protocol --------------------------------------------------------------------------------------------------


def time_client(client: Callable[[int], Any], secrets: np.ndarray, offset: int) -> Timing:
    """One call per user (results dropped: pure-LDP's UE rows alone would take 8 GB at 10^6 users)."""
    client(int(secrets[0]) + offset)  # warm-up: numba compiles multi-freq-ldpy's clients on first call
    items = (secrets + offset).tolist()
    start = time.perf_counter()
    for x in items:
        client(x)
    return Timing(time.perf_counter() - start, len(items))


def bench_protocol(name: str, hashes: int | None, secrets: np.ndarray, args: argparse.Namespace,
                   checks: list[str]) -> list[Row]:
    """The rows of one protocol; the largest differences of the peers' estimates from privest's go to checks."""
    m = protocol(name, hashes)
    title = label(name, hashes)
    n = secrets.size
    rng = sampling.rng_for(SEED, "bench_protocols", name, str(hashes))
    t_sample, reports = best_time(lambda: m.sample(secrets, rng), args.repeats)
    peer_secrets = secrets[: args.peer_users]
    mfl = None if hashes else mfl_client(name)
    pure = pure_client_and_server(name, hashes)
    seed_peers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pure-LDP's HR client passes a float to random.randint (deprecated in 3.11)
        rows = [Row(title, "client", Timing(t_sample, n),
                    time_client(mfl, peer_secrets, 0) if mfl else None,
                    time_client(pure[0].privatise, peer_secrets, 1) if pure else None)]

    # the unbiased estimate: privest on all n, the peers on all n or on the first few thousand (O(n k) Python)
    t_estimate, ours = best_time(lambda: m.estimate(reports), args.repeats)
    slow = name == "ss" or (name in ("blh", "olh") and hashes is None)
    peer_n = min(args.peer_aggregate_users, n) if slow else n
    peer_reports = peer_format(name, reports[:peer_n])
    ours_peer_n = ours if peer_n == n else m.estimate(reports[:peer_n])
    mfl_estimate = mfl_ibu = None
    if mfl:
        t, theirs = best_time(lambda: mfl_aggregate(name, peer_reports, "MI"))
        normalised = m.estimate(reports[:peer_n], post="normalization")
        checks.append(f"{title}: multi-freq-ldpy MI vs privest INV-N on the same {powers(peer_n)} reports: "
                      f"max |Δ| = {np.abs(theirs - normalised).max():.1e}")
        mfl_estimate = Timing(t, peer_n)
        t, theirs = best_time(lambda: mfl_aggregate(name, peer_reports, "IBU", nb_iter=1, tol=NO_STOP))
        mfl_ibu = Timing(t, peer_n)
        if name == "grr":
            one = plain_gibu([(m, reports)], delta=NO_STOP, max_iter=1).theta
            checks.append(f"{title}: multi-freq-ldpy IBU vs privest GIBU after 1 iteration, same {powers(n)} reports: "
                          f"max |Δ| = {np.abs(theirs - one).max():.1e}")
    pure_timing = None
    if pure:
        t, theirs = best_time(lambda: pure_estimate(name, hashes, peer_reports))
        checks.append(f"{title}: pure-LDP vs privest raw estimate on the same {powers(peer_n)} reports: "
                      f"max |Δ| = {np.abs(theirs - ours_peer_n).max():.1e}")
        pure_timing = Timing(t, peer_n)
    rows.append(Row(title, "unbiased estimate", Timing(t_estimate, n), mfl_estimate, pure_timing))

    # GIBU: end to end, the group alone, then on the group one iteration (with the setup) and each further one
    t_gibu, _ = best_time(lambda: plain_gibu([(m, reports)], delta=NO_STOP, max_iter=1), args.repeats)
    t_group, group = best_time(lambda: m.group(reports), args.repeats)
    reports = peer_reports = None  # free them (GIBU's sparse matrices need the room)
    gc.collect()
    t_one, _ = best_time(lambda: plain_gibu([group], delta=NO_STOP, max_iter=1), args.repeats)
    t_more, _ = best_time(lambda: plain_gibu([group], delta=NO_STOP, max_iter=1 + FURTHER), args.repeats)
    distinct = group.counts.size
    group = None
    gc.collect()
    kernel = None
    if mfl:
        from multi_freq_ldpy.estimators.Histogram_estimator import IBU

        A = np.where(np.eye(K, dtype=bool), m.p_star, m.q_star)
        q = np.full(K, 1 / K)
        IBU(K, A, q, 1, NO_STOP, "max_abs")  # compile
        t, _ = best_time(lambda: IBU(K, A, q, 100, NO_STOP, "max_abs"))
        kernel = Timing(t / 100)
    rows += [
        Row(title, "GIBU, max_iter=1, end to end", Timing(t_gibu, n), mfl_ibu, None,
            "multi-freq-ldpy: `*_Aggregator_IBU`, nb_iter=1, its counting included"),
        Row(title, "group construction", Timing(t_group, n), None, None, f"{distinct:,} distinct reports"),
        Row(title, "GIBU on the group: setup + 1 iteration", Timing(t_one)),
        Row(title, "GIBU on the group: each further iteration", Timing((t_more - t_one) / FURTHER), kernel, None,
            "multi-freq-ldpy: its numba `IBU` kernel per iteration, on the k support frequencies (k x k)"),
    ]
    return rows


# --- the table -----------------------------------------------------------------------------------------------------


def cell(ours: Timing, peer: Timing | None) -> tuple[str, str]:
    """A peer's time (with its n when it ran on fewer users than privest) and its cost ratio to privest's."""
    if peer is None:
        return "—", ""
    if not ours.n:  # not the same computation (the peer's IBU kernel): no ratio
        return seconds(peer.seconds), ""
    at = "" if peer.n == ours.n else f" at n = {powers(peer.n)}"
    return f"{seconds(peer.seconds)}{at}", f"{peer.per_user() / ours.per_user():.3g}×"


def markdown(rows: Sequence[Row], n: int) -> str:
    """The rows as a markdown table: times, and per-user cost ratios peer / privest."""
    lines = [f"| protocol | step | privest (n = {powers(n)}) | multi-freq-ldpy | ratio | pure-LDP | ratio | note |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        mfl, mfl_ratio = cell(r.privest, r.mfl)
        pure, pure_ratio = cell(r.privest, r.pure)
        lines.append(f"| {r.protocol} | {r.step} | {seconds(r.privest.seconds)} | {mfl} | {mfl_ratio} | {pure} | "
                     f"{pure_ratio} | {r.note} |")
    return "\n".join(lines)


def version(package: str) -> str:
    """The installed version of a distribution, or 'not installed'."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def main(argv: Sequence[str] | None = None) -> None:
    """Run every protocol and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=USERS, help=f"privest's users (default {USERS:,})")
    parser.add_argument("--peer-users", type=int, default=PEER_USERS,
                        help=f"users of the peers' per-user clients (default {PEER_USERS:,})")
    parser.add_argument("--peer-aggregate-users", type=int, default=PEER_AGGREGATE_USERS,
                        help=f"reports of the peers' O(n k) aggregators, LH and SS (default {PEER_AGGREGATE_USERS:,})")
    parser.add_argument("--repeats", type=int, default=2,
                        help="repeats of each privest timing, the best is kept (default 2: a first call on 10^6 "
                             "reports can take several times longer, its fresh memory faulting in)")
    parser.add_argument("--protocols", nargs="*", default=None, help="names of protocols to run (default: all)")
    args = parser.parse_args(argv)
    if min(args.users, args.peer_users, args.peer_aggregate_users, args.repeats) < 1:
        parser.error("--users, --peer-users, --peer-aggregate-users and --repeats must be at least 1")
    missing = [p for p in ("multi-freq-ldpy", "pure-ldp") if version(p) == "not installed"]
    if missing:
        parser.error(f"{', '.join(missing)} not installed: pip install -e '.[peers]'")

    from scipy import sparse  # noqa: F401 (imported once here, not inside the first timed GIBU)

    print(f"privest {version('privest')}, numpy {np.__version__}, multi-freq-ldpy {version('multi-freq-ldpy')}, "
          f"pure-ldp {version('pure-ldp')}, xxhash {version('xxhash')}, numba {version('numba')}; Python "
          f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; k = {K}, eps = {EPS:g}; "
          f"privest best of {args.repeats}, peers one run\n")
    rng = sampling.rng_for(SEED, "bench_protocols", "secrets")
    secrets = np.repeat(np.arange(K), rng.multinomial(args.users, binom.pmf(np.arange(K), K - 1, 0.5)))
    secrets = rng.permutation(secrets)
    rows: list[Row] = []
    checks: list[str] = []
    for name, hashes in CASES:
        if args.protocols is None or name in args.protocols:
            rows += bench_protocol(name, hashes, secrets, args, checks)
            gc.collect()
    print(markdown(rows, args.users))
    print("\nThe same reports through privest and the peers:\n")
    print("\n".join(f"- {c}" for c in checks))


if __name__ == "__main__":
    main()
