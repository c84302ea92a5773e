"""Is the candidate-list MLE of the sketch oracles (GIBU on ``Sketch.candidate_group``) closer to the truth than their
unbiased estimate (issue 51, item 2)? One run, recorded: ``docs/accuracy-sketches.md``.

Run from the repository root:
``.venv/bin/python benchmarks/accuracy_sketch_mle.py [--runs R] [--users N] [--output docs/accuracy-sketches.md]``.

The setting, fixed before the run: n users' items drawn from a Zipf(1.1) law over 200 random 64-bit items (theta_v
proportional to (v + 1)^-1.1); the candidates are the 20 most frequent items and 10 items no user holds. For each
sketch (the defaults of ``protocols.by_name``) and eps in {1, 4}, over R seeds: the mean absolute error on the
candidates, present and absent separately, of GIBU on ``candidate_group`` (its first c shares; the last is "other")
and of the unbiased ``estimate``, and the mean paired difference of the two errors over all 30 candidates
(MLE - unbiased) with its 95% interval (normal, over the seeds). Verdict rule, fixed before the first run: the MLE is
"closer" where that interval lies below 0, "farther" where above, else "level".

RAPPOR with Bloom filters is also decoded by Google's LASSO then least squares (``RapporBloom.decode``, its defaults:
alpha 0.05 with Bonferroni, penalty 0.01): a second table gives its mean absolute error on the present and the absent
candidates beside the MLE's and the unbiased estimate's, and how many absent candidates it reported (frequency > 0) and
present ones it missed, per run: the values of near-zero frequency where its decoding is known to fail
(google/rappor#56).
"""

import argparse
import datetime
import platform
import sys

import numpy as np

import privest
from privest import protocols, rng_for

SKETCHES = ("cms", "hcms", "flh", "hm", "pcs", "rappor_bloom")
EPS = (1.0, 4.0)


def errors_of(name: str, eps: float, runs: int, users: int) -> np.ndarray:
    """(runs, 2, 30) absolute errors of the MLE and the unbiased estimate on the 30 candidates."""
    domain = rng_for(2026, "mle domain").integers(0, 2**64, 230, dtype=np.uint64)
    weights = 1 / np.arange(1, 201) ** 1.1
    weights /= weights.sum()
    candidates = np.concatenate([domain[:20], domain[200:210]])
    truth = np.concatenate([weights[:20], np.zeros(10)])
    errors = []
    for run in range(runs):
        rng = rng_for(2026, "mle", name, str(eps), str(run))
        items = domain[:200][rng.choice(200, users, p=weights)]
        sketch = protocols.by_name(name, 2**64, eps)
        reports = sketch.sample(items, rng)
        mle = privest.gibu([sketch.candidate_group(reports, candidates)]).theta[:-1]
        unbiased = sketch.estimate(reports, candidates)
        found = [mle, unbiased]
        if name == "rappor_bloom":
            found.append(sketch.decode(reports, candidates).theta)
        errors.append(np.stack([np.abs(estimate - truth) for estimate in found]))
    return np.array(errors)


def rappor_row(eps: float, errors: np.ndarray) -> str:
    """MAE present and absent of the MLE, the unbiased estimate and LASSO + LS; LASSO + LS's false and missed
    candidates per run (an absent candidate's error is its reported frequency)."""
    present, absent = errors[:, :, :20].mean(axis=(0, 2)), errors[:, :, 20:].mean(axis=(0, 2))
    false = (errors[:, 2, 20:] > 0).sum(axis=1).mean()
    return (f"| RAPPOR-Bloom | {eps:g} | {present[0]:.5f} | {present[1]:.5f} | {present[2]:.5f} | {absent[0]:.5f} | "
            f"{absent[1]:.5f} | {absent[2]:.5f} | {false:.1f} of 10 |")


def row(name: str, eps: float, errors: np.ndarray) -> str:
    present, absent = errors[:, :, :20].mean(axis=(0, 2)), errors[:, :, 20:].mean(axis=(0, 2))
    paired = errors[:, 0].mean(axis=1) - errors[:, 1].mean(axis=1)
    half = 1.96 * paired.std(ddof=1) / np.sqrt(len(paired))
    low, high = paired.mean() - half, paired.mean() + half
    verdict = "closer" if high < 0 else "farther" if low > 0 else "level"
    label = {"rappor_bloom": "RAPPOR-Bloom"}.get(name, name.upper())
    return (f"| {label} | {eps:g} | {present[0]:.5f} | {present[1]:.5f} | {absent[0]:.5f} | {absent[1]:.5f} "
            f"| {paired.mean():+.5f} [{low:+.5f}, {high:+.5f}] | {verdict} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="seeds a cell (default 10)")
    parser.add_argument("--users", type=int, default=100_000, help="users a run (default 100,000)")
    parser.add_argument("--output", help="also write the record (markdown) to this file")
    parser.add_argument("--sketches", nargs="+", default=SKETCHES, choices=SKETCHES, help="default: all")
    args = parser.parse_args()
    lines = [f"Run {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC (`benchmarks/accuracy_sketch_mle.py`): "
             f"privest {privest.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]} on "
             f"{platform.machine()}. n = {args.users:,} users, Zipf(1.1) over 200 random 64-bit items, {args.runs} "
             "seeds a cell, each sketch at its `by_name` defaults; candidates the 20 most frequent items and 10 "
             "absent ones. Mean absolute error of the candidate MLE (GIBU on `candidate_group`) and of the unbiased "
             "`estimate`; the verdict is the MLE against the unbiased estimate by the 95% interval of their paired "
             "difference over all 30 candidates (rule in the script's docstring).", "",
             "| sketch | eps | MAE present: MLE | unbiased | MAE absent: MLE | unbiased | MLE - unbiased [95%] | "
             "MLE vs unbiased |", "|---|---:|---:|---:|---:|---:|---|---|"]
    rappor = []
    for name in args.sketches:
        for eps in EPS:
            errors = errors_of(name, eps, args.runs, args.users)
            lines.append(row(name, eps, errors[:, :2]))
            print(lines[-1], flush=True)
            if name == "rappor_bloom":
                rappor.append(rappor_row(eps, errors))
    if rappor:
        lines += ["", "RAPPOR with Bloom filters, the three decodings (mean absolute error; LASSO + LS's absent "
                  "candidates reported, mean per run):", "",
                  "| sketch | eps | present: MLE | unbiased | LASSO + LS | absent: MLE | unbiased | LASSO + LS | "
                  "absent reported by LASSO + LS |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|", *rappor]
    text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)
    print(text)


if __name__ == "__main__":
    main()
