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

``--design confirmatory`` (docs/accuracy-protocols-confirmatory.md) is a second study, designed after the pilot above
and written down (this paragraph and ``CONFIRMATORY``, committed) before its first run: the same cells, setting and
estimators on fresh draws (the seeds of the label "accuracy_protocols_confirmatory", none shared with the pilot's),
1,000 seeds a cell. Its intervals hold together: each is a normal interval at 1 - 0.05/102 (Bonferroni over the 51
cells times the two comparisons), so that all 102 cover at once with probability at least 95%. Its verdicts: "closer"
where the interval of GIBU - X lies below 0, "farther" where above, "level" where it lies within +-1% of X's mean
distance (a difference too small to matter, fixed before the run), else "undecided". The issue's claim (GIBU closer
than the unbiased estimate with post-processing on skewed data at small eps) is judged for X = INV-P and X = INV-N on
the cells at eps 0.5 and 1: it holds for X where GIBU is closer in every one of them, is refuted where GIBU is farther
in any, and holds in part otherwise (the counts given).

Rows that match digit for digit are one channel on the same draws (every cell's seeds are the same for every
protocol): L-ADP picks L-OSUE at these (k, eps); L-OLH's g is 2 at eps 0.5 and 1, where it is L-BLH; one round of
L-SUE at eps is SUE at eps1 = eps / 2, as is dBitFlipPM with every bucket (its default) at eps / 2; one round of
L-OSUE at eps is OUE at eps / 2, ADP's choice at eps 0.5 and 1.
"""

import argparse
import datetime
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

import privest
from privest import protocols
from privest.metrics import total_variation
from privest.protocols import multidim

K, USERS, SEED = 20, 10_000, 2026
EPS = (0.5, 1.0, 2.0)
SMALL_EPS = (0.5, 1.0)
PROTOCOLS = ("she", "the", "adp", *protocols.LONGITUDINAL_NAMES)
MULTIDIM = (("spl", "grr"), ("smp", "oue"), ("rsfd", "grr"), ("rsfd", "oue_zero"), ("rsfd", "oue_rnd"))
MULTIDIM_KS = (20, 10, 5)


@dataclass(frozen=True)
class Design:
    """One study's fixed choices: its seeds' label, seeds a cell, the probability that its intervals cover (each one
    alone, or all together), and the margin (a fraction of X's mean distance) within which a difference is "level"
    (None: any interval that holds 0 is "level")."""

    label: str
    runs: int
    level: float
    together: bool
    margin: float | None
    record: str


PILOT = Design("accuracy_protocols", 20, 0.95, together=False, margin=None, record="docs/accuracy-protocols.md")
CONFIRMATORY = Design("accuracy_protocols_confirmatory", 1000, 0.95, together=True, margin=0.01,
                      record="docs/accuracy-protocols-confirmatory.md")
DESIGNS = {"pilot": PILOT, "confirmatory": CONFIRMATORY}


def zipf(k: int) -> np.ndarray:
    weights = (np.arange(k) + 1.0) ** -1.5
    return weights / weights.sum()


Estimates = Callable[[np.random.Generator], list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]]


def errors_of(estimates: Estimates, design: Design, runs: int) -> np.ndarray:
    """(runs, 3) total variation distances of GIBU, INV-P and INV-N: ``estimates(rng)`` gives, for each attribute, the
    truth and the three estimates; a run's distance is the mean over attributes."""
    rows = []
    for run in range(runs):
        per_attribute = estimates(privest.rng_for(SEED, design.label, run))
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


def compared(errors: np.ndarray, other: int, z: float, margin: float | None) -> tuple[str, str]:
    """GIBU's distance minus column ``other``'s, paired over the seeds: its mean and interval (mean +- z standard
    errors), and the verdict (module docstring)."""
    difference = errors[:, 0] - errors[:, other]
    half = z * difference.std(ddof=1) / np.sqrt(len(errors))
    low, high = difference.mean() - half, difference.mean() + half
    if high < 0:
        verdict = "closer"
    elif low > 0:
        verdict = "farther"
    elif margin is None or (-margin * errors[:, other].mean() < low and high < margin * errors[:, other].mean()):
        verdict = "level"
    else:
        verdict = "undecided"
    return f"{difference.mean():+.4f} [{low:+.4f}, {high:+.4f}]", verdict


def row(label: str, eps: float, errors: np.ndarray, z: float, margin: float | None) -> tuple[str, str, str]:
    """A cell's line of the record, and its verdicts against INV-P and INV-N."""
    means = errors.mean(axis=0)
    (to_p, verdict_p), (to_n, verdict_n) = compared(errors, 1, z, margin), compared(errors, 2, z, margin)
    return (f"| {label} | {eps:g} | {means[0]:.4f} | {means[1]:.4f} | {means[2]:.4f} | {to_p} | {verdict_p} | "
            f"{to_n} | {verdict_n} |"), verdict_p, verdict_n


def cells() -> list[tuple[str, float, Callable]]:
    """Every (label, eps, estimates) of the study, in the record's order."""
    found = []
    for name in PROTOCOLS:
        for eps in EPS:
            chosen = protocols.by_name(name, K, eps).name
            label = f"{name.upper().replace('_', '-')} ({chosen})" if name in ("adp", "l_adp") else chosen
            found.append((label, eps, single(name, eps)))
    for solution, protocol in MULTIDIM:
        for eps in EPS:
            found.append((f"{solution.upper().replace('RSFD', 'RS+FD')} {protocol}", eps,
                          several(solution, protocol, eps)))
    return found


def claim(judged: list[tuple[float, str]], name: str) -> str:
    """The issue's claim against ``name``, judged on the cells at a small eps (module docstring): ``judged`` holds
    every cell's (eps, verdict)."""
    small = [verdict for eps, verdict in judged if eps in SMALL_EPS]
    counts = ", ".join(f"{verdict} in {small.count(verdict)}" for verdict in ("closer", "level", "undecided",
                                                                              "farther") if small.count(verdict))
    judged = ("holds" if small.count("closer") == len(small) else "refuted" if "farther" in small
              else "holds in part")
    return f"The claim against {name} at eps 0.5 and 1 ({len(small)} cells: {counts}): **{judged}**."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", choices=DESIGNS, default="pilot", help="which study (module docstring)")
    parser.add_argument("--output", help="also write the record (markdown) to this file (the design's: "
                        + ", ".join(design.record for design in DESIGNS.values()) + ")")
    parser.add_argument("--runs", type=int, help="seeds a cell (default the design's; fewer to try it)")
    args = parser.parse_args()
    design = DESIGNS[args.design]
    runs = args.runs or design.runs
    found = cells()
    comparisons = 2 * len(found) if design.together else 1
    z = NormalDist().inv_cdf(1 - (1 - design.level) / 2 / comparisons)
    coverage = (f"all {comparisons} intervals together at {design.level:.0%} (each at 1 - "
                f"{1 - design.level:g}/{comparisons}, z = {z:.3f})" if design.together
                else f"each interval at {design.level:.0%}")
    margin = (f"; \"level\" within +-{design.margin:.0%} of X's mean distance" if design.margin is not None else "")
    lines = [f"Run {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC (`benchmarks/accuracy_protocols.py "
             f"--design {args.design}`): privest {privest.__version__}, numpy {np.__version__}, Python "
             f"{sys.version.split()[0]} on {platform.machine()}. k = {K}, Zipf(1.5) theta, n = {USERS:,} users, "
             f"{runs} seeds a cell (label \"{design.label}\"); the longitudinal protocols at eps1 = eps / 2; the "
             "multidimensional ones on attributes of 20, 10 and 5 values (the mean over attributes). Mean total "
             "variation distance to the truth; each verdict is GIBU against X = INV-P or INV-N by the normal "
             f"interval of their paired difference, {coverage}{margin} (rule in the script's docstring).", "",
             "| protocol | eps | GIBU | INV-P | INV-N | GIBU - INV-P | GIBU vs INV-P | GIBU - INV-N | "
             "GIBU vs INV-N |", "|---|---:|---:|---:|---:|---|---|---|---|"]
    judged: dict[str, list[tuple[float, str]]] = {"INV-P": [], "INV-N": []}
    for label, eps, estimates in found:
        line, verdict_p, verdict_n = row(label, eps, errors_of(estimates, design, runs), z, design.margin)
        lines.append(line)
        judged["INV-P"].append((eps, verdict_p))
        judged["INV-N"].append((eps, verdict_n))
        print(line, flush=True)
    lines.append("")
    for name, cells_judged in judged.items():
        verdicts = [verdict for _, verdict in cells_judged]
        lines.append(f"Against {name}: GIBU " + ", ".join(
            f"{verdict} in {verdicts.count(verdict)}" for verdict in ("closer", "level", "undecided", "farther")
            if verdict != "undecided" or design.margin is not None) + f" of {len(verdicts)} cells.")
    if design.margin is not None:
        lines.append("")
        lines.extend(claim(cells_judged, name) for name, cells_judged in judged.items())
    text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)
    print(text)


if __name__ == "__main__":
    main()
