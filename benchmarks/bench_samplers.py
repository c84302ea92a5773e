"""Issue 26, item 3: the bit protocols' samplers before and after, side by side as ratios (old time / new time: above 1,
the new sampler is faster).

Run from the repository root: ``.venv/bin/python benchmarks/bench_samplers.py [--quick] [--users N]``. Every BLAS on
one thread. Each time is the median of ``--rounds`` rounds in which the old and new samplers run in turn (interleaved:
the machine is shared).

Tables:

- **main**: SUE, OUE and SS at k = 1024, eps = 1, n = ``--users`` (10^6): the old sampler (privest 6258bdf, kept
  below: k uniforms a user for SUE and OUE, Floyd's algorithm or k keys for SS, all into the (n, k) bool matrix)
  against the new one with the bool output (``sample``) and the packed output (``sample(..., packed=True)``); and
  the peers' clients (multi-freq-ldpy, pure-LDP, one Python call a user, on ``--peer-users`` users, per user scaled
  to n) where they are installed (the lock's ``peers`` set);
- **grid**: eps 0.5, 1, 4 and k = 16, 100, 1024 on ``--grid-users`` users, the packed output of each of the new
  unary samplers (exact bitwise Bernoulli words; Binomial count + uniform positions) and of SS, beside the old.
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from timing import interleaved, powers, seconds  # noqa: E402

import privest  # noqa: E402
from privest import protocols  # noqa: E402
from privest.protocols import packed as packing  # noqa: E402

_CHUNK_ENTRIES = 1 << 22  # the old samplers' chunk: 4 M bool entries


def _old_bits_by_chunks(secrets: np.ndarray, k: int, draw: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    bits = np.empty((secrets.size, k), dtype=bool)
    rows = max(1, _CHUNK_ENTRIES // k)
    for start in range(0, secrets.size, rows):
        bits[start:start + rows] = draw(secrets[start:start + rows])
    return bits


def old_unary(m: Any, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """SUE's and OUE's sampler before issue 26: k uniforms a user."""

    def draw(chunk: np.ndarray) -> np.ndarray:
        bits = rng.random((chunk.size, m.k)) < m.flip
        bits[np.arange(chunk.size), chunk] = rng.random(chunk.size) < m.one
        return bits

    return _old_bits_by_chunks(secrets, m.k, draw)


def old_ss(m: Any, secrets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """SS's sampler before issue 26: Floyd's algorithm up to omega = max(8, k // 3), else the omega smallest of k
    uniform keys."""
    omega, p_in, others, k = m.omega, m.p_in, m.k - 1, m.k
    if omega > max(8, k // 3):

        def keys(chunk: np.ndarray) -> np.ndarray:
            key = rng.random((chunk.size, k))
            key[np.arange(chunk.size), chunk] = np.where(rng.random(chunk.size) < p_in, -1.0, 2.0)
            bits = np.zeros((chunk.size, k), dtype=bool)
            np.put_along_axis(bits, np.argpartition(key, omega - 1, axis=1)[:, :omega], True, axis=1)
            return bits

        return _old_bits_by_chunks(secrets, k, keys)

    def floyd(chunk: np.ndarray) -> np.ndarray:
        users = np.arange(chunk.size)
        bits = np.zeros((chunk.size, k), dtype=bool)
        inside = rng.random(chunk.size) < p_in
        bits[users[inside], chunk[inside]] = True
        for j in range(others - omega, others):
            t = rng.integers(0, j + 1, size=chunk.size)
            t += t >= chunk
            t = np.where(bits[users, t], j + (j >= chunk), t)
            if j == others - omega:
                bits[users[~inside], t[~inside]] = True
            else:
                bits[users, t] = True
        return bits

    return _old_bits_by_chunks(secrets, k, floyd)


def old_sampler(m: Any) -> Callable[[np.ndarray, np.random.Generator], np.ndarray]:
    return (lambda s, r: old_ss(m, s, r)) if m.name == "SS" else (lambda s, r: old_unary(m, s, r))


def unary_variant(m: Any, positions: bool) -> Callable[[np.ndarray, np.random.Generator], Any]:
    """The new unary sampler forced to one of its two ways (packed output)."""

    def sample(secrets: np.ndarray, rng: np.random.Generator) -> Any:
        saved = packing._POSITIONS_BELOW
        saved_k = packing._POSITIONS_FROM_K
        packing._POSITIONS_BELOW, packing._POSITIONS_FROM_K = (float("inf"), 0) if positions else (-1.0, 0)
        try:
            return m.sample(secrets, rng, packed=True)
        finally:
            packing._POSITIONS_BELOW, packing._POSITIONS_FROM_K = saved, saved_k

    return sample


def peer_clients(name: str, k: int, eps: float) -> dict[str, Callable[[int], Any]]:
    """The peers' one-user clients of protocol ``name``, those installed."""
    clients: dict[str, Callable[[int], Any]] = {}
    try:
        from multi_freq_ldpy.pure_frequency_oracles import SS, UE

        clients["multi-freq-ldpy"] = {"sue": lambda x: UE.UE_Client(x, k, eps, False),
                                      "oue": lambda x: UE.UE_Client(x, k, eps, True),
                                      "ss": lambda x: SS.SS_Client(x, k, eps)}[name]
    except ImportError:
        pass
    try:
        from pure_ldp.frequency_oracles.unary_encoding import UEClient

        if name in ("sue", "oue"):
            client = UEClient(eps, k, use_oue=name == "oue")
            clients["pure-LDP"] = lambda x: client.privatise(x + 1)
    except ImportError:
        pass
    return clients


def main_table(n: int, peer_users: int, rounds: int) -> list[str]:
    k, eps = 1024, 1.0
    secrets = np.random.default_rng(1).integers(0, k, n)
    lines = [f"### k = {k}, eps = {eps:g}, n = {powers(n)} users (median of {rounds} interleaved rounds)", "",
             "| protocol | old (bool) | new, bool | ratio | new, packed | ratio | peers' clients (per user, at n) |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for name in ("sue", "oue", "ss"):
        m = protocols.by_name(name, k, eps)
        old = old_sampler(m)
        rng = privest.rng_for(2026, "bench_samplers", name)
        times = interleaved({"old": lambda old=old, r=rng: old(secrets, r),
                             "bool": lambda m=m, r=rng: m.sample(secrets, r),
                             "packed": lambda m=m, r=rng: m.sample(secrets, r, packed=True)}, rounds)
        peers = []
        for peer, client in peer_clients(name, k, eps).items():
            start = time.perf_counter()
            for x in secrets[:peer_users].tolist():
                client(x)
            per_user = (time.perf_counter() - start) / peer_users
            peers.append(f"{peer} {seconds(per_user * n)} ({times['packed'] / (per_user * n):.3g}x its time)")
        lines.append(f"| {m.name} | {seconds(times['old'])} | {seconds(times['bool'])} | "
                     f"{times['old'] / times['bool']:.3g}x | {seconds(times['packed'])} | "
                     f"{times['old'] / times['packed']:.3g}x | {'; '.join(peers) or 'not installed'} |")
        print(lines[-1], flush=True)
    return lines


def grid_table(n: int, rounds: int) -> list[str]:
    lines = [f"### The grid: packed output, n = {powers(n)} users (median of {rounds} interleaved rounds; "
             "ratio = old / new)", "",
             "| protocol | k | eps | set bits a user | old (bool) | Bernoulli words | ratio | binomial + positions | "
             "ratio | chosen |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name in ("sue", "oue", "ss"):
        for k in (16, 100, 1024):
            for eps in (0.5, 1.0, 4.0):
                m = protocols.by_name(name, k, eps)
                secrets = np.random.default_rng(2).integers(0, k, n)
                rng = privest.rng_for(2026, "bench_samplers grid", name, k, eps)
                old = old_sampler(m)
                functions = {"old": lambda old=old, s=secrets, r=rng: old(s, r)}
                if name == "ss":
                    functions["new"] = lambda m=m, s=secrets, r=rng: m.sample(s, r, packed=True)
                    set_bits, chosen = m.omega, "SS"
                else:
                    functions["words"] = lambda m=m, s=secrets, r=rng: unary_variant(m, False)(s, r)
                    functions["positions"] = lambda m=m, s=secrets, r=rng: unary_variant(m, True)(s, r)
                    set_bits = (k - 1) * m.flip
                    positions = m.flip < packing._POSITIONS_BELOW and k >= packing._POSITIONS_FROM_K
                    chosen = "positions" if positions else "words"
                times = interleaved(functions, rounds)
                cells = [f"{seconds(times[key])} | {times['old'] / times[key]:.3g}x"
                         for key in ("words", "positions") if key in times]
                if name == "ss":
                    cells = [f"{seconds(times['new'])} | {times['old'] / times['new']:.3g}x", "— | —"]
                lines.append(f"| {m.name} | {k} | {eps:g} | {set_bits:.4g} | {seconds(times['old'])} | "
                             f"{' | '.join(cells)} | {chosen} |")
                print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--grid-users", type=int, default=100_000)
    parser.add_argument("--peer-users", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="10^5 users, 10^4 on the grid, 1 round")
    parser.add_argument("--skip-grid", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.users, args.grid_users, args.peer_users, args.rounds = 100_000, 10_000, 2_000, 1
    print(f"{platform.processor() or platform.machine()}, numpy {np.__version__}, one thread", flush=True)
    lines = main_table(args.users, args.peer_users, args.rounds)
    if not args.skip_grid:
        lines += ["", *grid_table(args.grid_users, args.rounds)]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
