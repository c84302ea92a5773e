"""Is GIBU (the MLE) closer to the truth than the unbiased estimator with post-processing, on skewed data at a small
eps, for the protocols of issue 49 (histogram encoding, ADP, the longitudinal protocols, dBitFlipPM and the
multidimensional solutions)? One run, recorded: ``docs/accuracy-protocols.md``.

Run from the repository root:
``.venv/bin/python benchmarks/accuracy_protocols.py [--output docs/accuracy-protocols.md]``.

The setting, fixed before the run: k = 20 values, theta a Zipf distribution with exponent 1.5 (theta_v proportional to
(v + 1)^-1.5: 43% on the first value, 0.5% on the last), n = 10^4 users, eps in {0.5, 1, 2} (the longitudinal protocols'
eps1 = eps / 2, their default), 20 seeds a cell. Per protocol and eps: the mean total variation distance (the error on
categories; for dBitFlipPM on its buckets) of GIBU (the default: SQUAREM, then Newton, to a gap of 1e-10), of INV-P
(``post="projection"``, the estimate projected onto the simplex) and of INV-N (``post="normalization"``,
multi-freq-ldpy's MI: clipped at 0 and renormalised), and the paired differences GIBU - INV-P and GIBU - INV-N with
their 95% intervals (normal, over the 20 seeds). The multidimensional solutions run on three attributes of 20, 10 and 5
values, each Zipf, and are scored by the mean over attributes. The verdict rule, fixed before the first run: GIBU is
"closer" where the interval of the difference lies below 0, "farther" where above, else "level". (The first run,
2026-11-28 02:15, compared GIBU with INV-P only; the same rule against INV-N, multi-freq-ldpy's estimator, was added
after it.)
"""

import argparse
import datetime
import platform
import sys
from collections.abc import Callable

import numpy as np

import privest
from privest import protocols
from privest.metrics import total_variation
from privest.protocols import multidim

K, USERS, RUNS, SEED = 20, 10_000, 20, 2026
EPS = (0.5, 1.0, 2.0)
PROTOCOLS = ("she", "the", "adp", *protocols.LONGITUDINAL_NAMES)
MULTIDIM = (("spl", "grr"), ("smp", "oue"), ("rsfd", "grr"), ("rsfd", "oue_zero"), ("rsfd", "oue_rnd"))
MULTIDIM_KS = (20, 10, 5)


def zipf(k: int) -> np.ndarray:
    weights = (np.arange(k) + 1.0) ** -1.5
    return weights / weights.sum()


Estimates = Callable[[np.random.Generator], list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]]


def errors_of(estimates: Estimates, runs: int) -> np.ndarray:
    """(runs, 3) total variation distances of GIBU, INV-P and INV-N: ``estimates(rng)`` gives, for each attribute, the
    truth and the three estimates; a run's distance is the mean over attributes."""
    rows = []
    for run in range(runs):
        per_attribute = estimates(privest.rng_for(SEED, "accuracy_protocols", run))
        rows.append([np.mean([total_variation(attribute[0], attribute[1 + i]) for attribute in per_attribute])
                     for i in range(3)])
    return np.array(rows)


def single(name: str, eps: float) -> Callable:
    m = protocols.by_name(name, K, eps)
    theta = zipf(K)
    truth = theta if name != "dbitflip" else np.bincount(m.bucket_of(np.arange(K)), weights=theta,
                                                         minlength=m.buckets)

    def estimates(rng: np.random.Generator) -> list:
        reports = m.sample(rng.choice(K, USERS, p=theta), rng)
        return [(truth, privest.gibu([(m, reports)]).theta, m.estimate(reports, post="projection"),
                 m.estimate(reports, post="normalization"))]

    return estimates


def several(solution: str, protocol: str, eps: float) -> Callable:
    m = multidim.Multidimensional(solution, MULTIDIM_KS, eps, protocol)
    thetas = [zipf(k) for k in MULTIDIM_KS]

    def estimates(rng: np.random.Generator) -> list:
        secrets = np.stack([rng.choice(k, USERS, p=t) for k, t in zip(MULTIDIM_KS, thetas, strict=True)], axis=1)
        reports = m.sample(secrets, rng)
        fits = [privest.gibu([group]).theta for group in m.groups(reports)]
        projected, normalised = m.estimate(reports, "projection"), m.estimate(reports, "normalization")
        return list(zip(thetas, fits, projected, normalised, strict=True))

    return estimates


def compared(errors: np.ndarray, other: int) -> tuple[str, str]:
    """GIBU's distance minus column ``other``'s, paired over the seeds: its mean and 95% interval, and the verdict."""
    difference = errors[:, 0] - errors[:, other]
    half = 1.96 * difference.std(ddof=1) / np.sqrt(len(errors))
    low, high = difference.mean() - half, difference.mean() + half
    verdict = "closer" if high < 0 else "farther" if low > 0 else "level"
    return f"{difference.mean():+.4f} [{low:+.4f}, {high:+.4f}]", verdict


def row(label: str, eps: float, errors: np.ndarray) -> str:
    means = errors.mean(axis=0)
    (to_p, verdict_p), (to_n, verdict_n) = compared(errors, 1), compared(errors, 2)
    return (f"| {label} | {eps:g} | {means[0]:.4f} | {means[1]:.4f} | {means[2]:.4f} | {to_p} | {verdict_p} | "
            f"{to_n} | {verdict_n} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="also write the record (markdown) to this file")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"seeds a cell (default {RUNS}; fewer to try it)")
    args = parser.parse_args()
    lines = [f"Run {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC (`benchmarks/accuracy_protocols.py`): "
             f"privest {privest.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]} on "
             f"{platform.machine()}. k = {K}, Zipf(1.5) theta, n = {USERS:,} users, {args.runs} seeds a cell; the "
             "longitudinal protocols at eps1 = eps / 2; the multidimensional ones on attributes of 20, 10 and 5 "
             "values (the mean over attributes). Mean total variation distance to the truth; each verdict is GIBU "
             "against INV-P or INV-N by the 95% interval of their paired difference (rule in the script's "
             "docstring).", "",
             "| protocol | eps | GIBU | INV-P | INV-N | GIBU - INV-P [95%] | GIBU vs INV-P | GIBU - INV-N [95%] | "
             "GIBU vs INV-N |", "|---|---:|---:|---:|---:|---|---|---|---|"]
    for name in PROTOCOLS:
        for eps in EPS:
            chosen = protocols.by_name(name, K, eps).name
            label = f"{name.upper().replace('_', '-')} ({chosen})" if name in ("adp", "l_adp") else chosen
            lines.append(row(label, eps, errors_of(single(name, eps), args.runs)))
            print(lines[-1], flush=True)
    for solution, protocol in MULTIDIM:
        for eps in EPS:
            label = f"{solution.upper().replace('RSFD', 'RS+FD')} {protocol}"
            lines.append(row(label, eps, errors_of(several(solution, protocol, eps), args.runs)))
            print(lines[-1], flush=True)
    rows = lines[4:]
    for column, name in ((-4, "INV-P"), (-2, "INV-N")):
        verdicts = [line.split("|")[column].strip() for line in rows]
        lines.append(f"{'' if column == -2 else chr(10)}Against {name}: GIBU closer in {verdicts.count('closer')} of "
                     f"{len(verdicts)} cells, level in {verdicts.count('level')}, farther in "
                     f"{verdicts.count('farther')}.")
    text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)
    print(text)


if __name__ == "__main__":
    main()
