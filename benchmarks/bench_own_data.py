"""Time ``privest_studies.own_data.load`` and ``check_header`` on large researcher files (not a timed test).

Writes ``age,sex`` CSV files of 10^6, 10^7 and 4*10^7 records (two-digit ages, 5 bytes a line: 4*10^7 records are
200 MB) into a temporary directory, then loads each one on a linear alphabet with k = 100 in a fresh Python process,
which reports its wall seconds and its peak resident memory (``ru_maxrss``, imports included). ``check_header`` is
timed in this process (best of 5).

    .venv/bin/python benchmarks/bench_own_data.py                 # 1e6, 1e7 and 4e7 records
    .venv/bin/python benchmarks/bench_own_data.py --sizes 1000000 # one size
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATA = {"column": "age"}
ALPHABET = {"kind": "linear", "k": 100}
BLOCK = 1_000_000


def write_csv(path: Path, records: int, seed: int = 2026) -> None:
    """An ``age,sex`` file of two-digit ages 10..99 and sex F or M, written in blocks of bytes (no Python row loop)."""
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        f.write(b"age,sex\n")
        for start in range(0, records, BLOCK):
            n = min(BLOCK, records - start)
            age = rng.integers(10, 100, n)
            lines = np.empty((n, 5), dtype=np.uint8)
            lines[:, 0], lines[:, 1] = ord("0") + age // 10, ord("0") + age % 10
            lines[:, 2], lines[:, 4] = ord(","), ord("\n")
            lines[:, 3] = np.where(rng.random(n) < 0.5, ord("F"), ord("M"))
            f.write(lines.tobytes())


def child(path: str) -> None:
    """Load one file and print {seconds, peak_mb, kept} as JSON (run in a fresh process)."""
    import resource

    from privest_studies import own_data

    start = time.perf_counter()
    secrets, _, provenance = own_data.load({**DATA, "csv": path}, ALPHABET)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "kept": int(secrets.size),
                      "records": provenance["records"]}))


def header_seconds(path: Path, repeats: int = 5) -> float:
    """The best of ``repeats`` timings of ``check_header`` on a file."""
    from privest_studies import own_data

    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        own_data.check_header("bench", {**DATA, "csv": str(path)}, ALPHABET)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**6, 10**7, 4 * 10**7])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    print(f"{'records':>12} {'MB':>7} {'load s':>8} {'peak MB':>8} {'check_header ms':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        for records in args.sizes:
            path = Path(tmp) / f"ages_{records}.csv"
            write_csv(path, records)
            run = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                                 check=True)
            result = json.loads(run.stdout.splitlines()[-1])
            assert result["kept"] == result["records"] == records
            print(f"{records:>12} {path.stat().st_size / 1e6:>7.0f} {result['seconds']:>8.2f} "
                  f"{result['peak_mb']:>8.0f} {header_seconds(path) * 1e3:>16.3f}", flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
