"""privest's sketch oracles (CMS, HCMS, FLH, HM, PCS, RAPPOR-Bloom) against pure-LDP's on the same work, as
interleaved ratios (issue 51).

Run from the repository root with the peers installed: ``.venv/bin/python benchmarks/bench_sketches.py [--users N ...]
[--rounds R]``. Every BLAS runs on one thread (set below, before numpy loads). In each round privest and pure-LDP run
in turn (the order alternating round by round: the machine is shared), and each time printed is the median over the
rounds; the ratio is privest's time over pure-LDP's for the same work (below 1, privest is faster).

The work, at eps = 2 on n users whose items are drawn from a Zipf(1.1) law over 1024 items:

- **client**: n reports; privest's vectorised ``sample`` against pure-LDP's ``privatise`` called once a user;
- **server**: the unbiased estimates of all 1024 items from those reports; privest's ``estimate`` against pure-LDP's
  ``aggregate`` once a report then ``estimate`` once an item (its server built before the clock starts; FastLH's
  hash matrix over the 1024 items included in neither).

Parameters: CMS and HCMS 256 hashes of width 1024 (privest's defaults), FLH 256 hashes, HM on d = 1024 with pure-LDP's
optimal t (privest's default), PCS 256 hashes of width 1024 (pure-LDP's server with ``use_median=False``, its
unbiased-up-to-scale mean), RAPPOR-Bloom 2 hashes, 128 bits, 64 cohorts (privest's defaults; pure-LDP's client and
server given privest's f and hash functions). pure-LDP's items are 1..d for FLH, HM and RAPPOR (privest's x is its
x + 1). RAPPOR's server work differs in kind: pure-LDP's ``estimate`` fits its regression over the d items (scikit-
learn's Lasso, d > 1000, then ElasticNet); privest's row "rappor_bloom" times ``estimate`` (per-item unbiased) and
the row "rappor_decode" times ``decode`` on the d items as candidates (LASSO then least squares), both against it.
pure-LDP's RAPPOR client never clears a filter bit (tests/peers/test_pure_ldp_sketches.py): its timing is of that
client. Where pure-LDP's RAPPOR server fails (its Lasso, alpha 0.8 on counts, can select no item, and ElasticNet
then refuses an empty design: seen at n = 2000), its time is nan.
"""

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pure_ldp.core._freq_oracle_server as peer_server_base  # noqa: E402
from pure_ldp.core import generate_hash  # noqa: E402
from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer  # noqa: E402
from pure_ldp.frequency_oracles.hadamard_mechanism import HadamardMechClient, HadamardMechServer  # noqa: E402
from pure_ldp.frequency_oracles.local_hashing import FastLHClient, FastLHServer  # noqa: E402
from pure_ldp.frequency_oracles.priv_count_sketch import PCSClient, PCSServer  # noqa: E402
from pure_ldp.frequency_oracles.rappor import RAPPORClient, RAPPORServer  # noqa: E402

from privest import protocols, rng_for  # noqa: E402

EPS, D, HASHES, WIDTH, FLH_HASHES = 2.0, 1024, 256, 1024, 256


class _Numpy:
    """numpy, but ``zeros(None)`` is an empty array: pure-LDP's servers without a domain size call it (numpy 2
    refuses it; tests/peers/test_pure_ldp_sketches.py does the same)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def zeros(shape, *args, **kwargs):
        return np.zeros(0 if shape is None else shape, *args, **kwargs)


peer_server_base.np = _Numpy()


def ours(name: str):
    options = {"cms": {"hashes": HASHES, "width": WIDTH}, "hcms": {"hashes": HASHES, "width": WIDTH},
               "flh": {"hashes": FLH_HASHES}, "hm": {}, "pcs": {"hashes": HASHES, "width": WIDTH},
               "rappor_bloom": {}, "rappor_decode": {}}[name]
    return protocols.by_name(name.replace("rappor_decode", "rappor_bloom"), D, EPS, **options)


def peer(name: str):
    """pure-LDP's client, server and the offset of its items (1 where it maps x to x - 1)."""
    if name in ("cms", "hcms"):
        server = CMSServer(EPS, HASHES, WIDTH, is_hadamard=name == "hcms")
        return CMSClient(EPS, server.get_hash_funcs(), WIDTH, is_hadamard=name == "hcms"), server, 0
    if name == "flh":
        server = FastLHServer(EPS, D, FLH_HASHES, use_olh=True)
        return FastLHClient(EPS, D, FLH_HASHES, use_olh=True), server, 1
    if name == "pcs":
        server = PCSServer(EPS, HASHES, WIDTH, use_median=False)
        return PCSClient(EPS, HASHES, WIDTH, server.get_hash_funcs()), server, 0
    if name in ("rappor_bloom", "rappor_decode"):
        sketch = ours(name)
        server = RAPPORServer(sketch.f, sketch.bits, sketch.hashes, D, sketch.cohorts)
        server.hash_family = [[generate_hash(sketch.bits, int(seed)) for seed in row] for row in sketch.seeds]
        return RAPPORClient(sketch.f, sketch.bits, server.hash_family, sketch.cohorts), server, 1
    t = ours("hm").t
    return HadamardMechClient(EPS, D, t), HadamardMechServer(EPS, D, t), 1


def timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def one_round(name: str, items: np.ndarray, seed: int, peer_first: bool) -> dict[str, float]:
    sketch, queried = ours(name), np.arange(D)
    client, server, offset = peer(name)
    hm = name == "hm"

    def privest_side():
        t_client, reports = timed(lambda: sketch.sample(items, rng_for(2026, "bench sketches", name, str(seed))))
        if name == "rappor_decode":
            t_server, estimate = timed(lambda: sketch.decode(reports, queried).theta)
        else:
            t_server, estimate = timed(lambda: sketch.estimate(reports, queried))
        return t_client, t_server, estimate

    def peer_side():
        values = (items + offset).tolist()
        t_client, raw = timed(lambda: [list(client.privatise(x)) if hm else client.privatise(x) for x in values])

        def aggregate_and_estimate():
            for report in raw:
                server.aggregate(report)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.array([server.estimate(int(x) + offset, suppress_warnings=True) for x in queried])
        try:
            t_server, estimate = timed(aggregate_and_estimate)
        except ValueError as error:  # pure-LDP's RAPPOR: its Lasso may select no item, then ElasticNet refuses
            print(f"pure-LDP's {name} server failed: {error}", flush=True)
            return t_client, float("nan"), None
        return t_client, t_server, estimate / items.size

    sides = [("peer", peer_side), ("privest", privest_side)] if peer_first else [("privest", privest_side),
                                                                                ("peer", peer_side)]
    got = {side: run() for side, run in sides}
    return {"privest client": got["privest"][0], "peer client": got["peer"][0], "privest server": got["privest"][1],
            "peer server": got["peer"][1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--names", nargs="+",
                        default=["cms", "hcms", "flh", "hm", "pcs", "rappor_bloom", "rappor_decode"])
    args = parser.parse_args()
    print("| sketch | n | privest client s | pure-LDP client s | ratio | privest server s | pure-LDP server s "
          "| ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.users:
        weights = 1 / np.arange(1, D + 1) ** 1.1
        items = rng_for(2026, "bench sketches items", str(n)).choice(D, n, p=weights / weights.sum())
        for name in args.names:
            rounds = [one_round(name, items, r, peer_first=r % 2 == 1) for r in range(args.rounds)]
            m = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
            ratio_client = statistics.median(r["privest client"] / r["peer client"] for r in rounds)
            ratio_server = statistics.median(r["privest server"] / r["peer server"] for r in rounds)
            print(f"| {name} | {n:,} | {m['privest client']:.3f} | {m['peer client']:.2f} | {ratio_client:.4f} | "
                  f"{m['privest server']:.3f} | {m['peer server']:.2f} | {ratio_server:.4f} |", flush=True)


if __name__ == "__main__":
    main()
