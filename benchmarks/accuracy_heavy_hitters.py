"""The heavy-hitter protocols' recall of the top 10 at n = 10^5, eps = 4 on a Zipf domain of 2^32, privest's beside
pure-LDP's on the same data (issue 51, acceptance). One run, recorded: ``docs/accuracy-heavy-hitters.md``.

Run from the repository root (pure-LDP installed: ``make .venv/.installed-peers``):
``.venv/bin/python benchmarks/accuracy_heavy_hitters.py [--seeds S] [--users N]
[--output docs/accuracy-heavy-hitters.md]``.

The setting, fixed before the run: n users' items drawn from a Zipf(1.5) law over 1,000 random items of 0..2^32 - 1
(theta_r proportional to r^-1.5 for the item of rank r); the truth is the 10 items of highest probability. Each
protocol is run with top = 10 and the parameters both libraries share: PEM with start 4 and step 4 (7 groups of 8,
12, ..., 32 bits), TreeHist with step 4 (8 levels), SFP with fragments of 4 bits (8 positions, pure-LDP's 256-value
hash), every frequency oracle Apple's CMS with 64 hashes into 1,024 cells (``protocols.cms``; pure-LDP's
CMSClient/CMSServer: its default, OLH with one seed per user, enumerates the domain on the server, which 2^32 rules
out). pure-LDP gets each item as its 32-bit binary string; its SFP returns every puzzle, of which the 10 of highest
estimate are scored. privest is also run with its default oracle (FLH, 1,024 hashes). Per seed, both libraries see
the same users; recall and NCR (``privest.heavy_hitters``) of each found top 10 against the truth, averaged over the
seeds, and the wall time of privest's run (clients and server) over pure-LDP's, interleaved seed by seed (a ratio,
so that a busy machine slows both).
"""

import argparse
import datetime
import os
import platform
import random
import sys
import time
import warnings

import numpy as np
from bench_sketches import _Numpy  # noqa: F401 (its import lets pure-LDP's servers without a domain size start)
from pure_ldp.frequency_oracles.apple_cms import CMSClient, CMSServer
from pure_ldp.heavy_hitters.apple_sfp import SFPClient, SFPServer
from pure_ldp.heavy_hitters.prefix_extending import PEMClient, PEMServer
from pure_ldp.heavy_hitters.treehistogram import TreeHistClient, TreeHistServer

import privest
from privest import heavy_hitters, rng_for

BITS, STEP, TOP, EPS, HASHES, WIDTH = 32, 4, 10, 4.0, 64, 1024
PROTOCOLS = ("pem", "treehist", "sfp")


def users(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n users' items (Zipf(1.5) over 1,000 random 32-bit items) and the true top 10."""
    rng = rng_for(2026, "heavy hitters domain")
    domain = rng.choice(2**BITS, 1000, replace=False).astype(np.uint64)
    weights = np.arange(1, 1001, dtype=np.float64) ** -1.5
    draw = rng_for(2026, "heavy hitters users", str(seed))
    return domain[draw.choice(1000, n, p=weights / weights.sum())], domain[:TOP]


def ours(name: str, values: np.ndarray, seed: int, oracle: str) -> np.ndarray:
    options = {"hashes": HASHES, "width": WIDTH} if oracle == "cms" else {}
    protocol = getattr(heavy_hitters, name)(2**BITS, EPS, step=STEP, oracle=oracle, **options)
    return protocol.run(values, rng_for(2026, "heavy hitters run", name, oracle, str(seed)), top=TOP).items


def peer(name: str, values: np.ndarray, seed: int) -> np.ndarray:
    """pure-LDP's heavy hitters on the users' binary strings, with CMS; its top 10 as integers."""
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 (pure-LDP draws from the global generators)
    cms_server = CMSServer(EPS, HASHES, WIDTH)
    cms_client = CMSClient(EPS, cms_server.get_hash_funcs(), WIDTH)
    if name == "pem":
        client = PEMClient(EPS, STEP, BITS, STEP, fo_client=cms_client)
        server = PEMServer(EPS, STEP, BITS, STEP, fo_server=cms_server)
    elif name == "treehist":
        client = TreeHistClient(EPS, STEP, BITS, fo_client=cms_client)
        server = TreeHistServer(EPS, BITS, STEP, fo_server=cms_server)
    else:
        client = SFPClient(EPS, STEP, BITS, alphabet={"0", "1"}, fo_client=cms_client)
        server = SFPServer(EPS, STEP, BITS, alphabet={"0", "1"}, fo_server=cms_server)
    for value in values.tolist():  # pure-LDP's clients take one user at a time
        server.aggregate(client.privatise(format(value, f"0{BITS}b")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found, frequencies = server.find_heavy_hitters(k=TOP)
    order = np.argsort(-np.asarray(frequencies, dtype=np.float64), kind="stable")[:TOP]
    return np.array([int(found[i], 2) for i in order], dtype=np.uint64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--output", default=None)
    args = parser.parse_args()
    scores: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for seed in range(args.seeds):
        values, truth = users(args.users, seed)
        for name in PROTOCOLS:
            for library in ("privest (CMS)", "pure-LDP (CMS)", "privest (FLH)"):
                start = time.perf_counter()
                if library == "pure-LDP (CMS)":
                    found = peer(name, values, seed)
                else:
                    found = ours(name, values, seed, "cms" if "CMS" in library else "flh")
                seconds = time.perf_counter() - start
                score = (heavy_hitters.recall(found, truth), heavy_hitters.ncr(found, truth), seconds)
                scores.setdefault((name, library), []).append(score)
                print(seed, name, library, score, flush=True)
    lines = ["# The heavy hitters' recall of the top 10, privest beside pure-LDP",
             "",
             f"Written by `benchmarks/accuracy_heavy_hitters.py` on {datetime.date.today().isoformat()}: "
             f"privest {privest.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]} on "
             f"{platform.machine()}. n = {args.users:,} users, eps = {EPS:g}, Zipf(1.5) over 1,000 random items of "
             f"0..2^32 - 1, top = {TOP}, {args.seeds} seeds (the same users for both libraries in each seed); "
             f"oracle CMS with {HASHES} hashes into {WIDTH} cells on both sides, and privest's default FLH too "
             "(setting in the script's docstring). Recall and NCR of the found top 10, mean over the seeds (each "
             "seed's in brackets); time: privest's mean wall time (clients and server) over pure-LDP's, measured "
             "interleaved on a shared machine.",
             "",
             "| protocol | library | recall of the top 10 | NCR | time (s) | time / pure-LDP's |",
             "|---|---|---|---|---:|---:|"]
    for name in PROTOCOLS:
        peer_time = np.mean([s[2] for s in scores[(name, "pure-LDP (CMS)")]])
        for library in ("privest (CMS)", "pure-LDP (CMS)", "privest (FLH)"):
            rows = np.array(scores[(name, library)])
            each = ", ".join(f"{r:.1f}" for r in rows[:, 0])
            lines.append(f"| {name} | {library} | {rows[:, 0].mean():.2f} ({each}) | {rows[:, 1].mean():.2f} | "
                         f"{rows[:, 2].mean():.2f} | {rows[:, 2].mean() / peer_time:.3f} |")
    text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output + ".tmp", "w") as out:
            out.write(text)
        os.replace(args.output + ".tmp", args.output)
    print(text)


if __name__ == "__main__":
    main()
