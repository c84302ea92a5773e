"""Calibrate the cost model of privest_studies/cost.py on a finished run, and show it against every estimate job.

    .venv/bin/python benchmarks/calibrate_cost.py [--run SCALE=DIR ...] [--fit] [--markdown FILE]

Each DIR (default: quick=the project root) is the working directory of a whole run of `snakemake` at SCALE (quick or
paper): its config.yaml, results/*/*/estimates_*.npz (every run's IBU iterations) and benchmarks/*/*/estimate_*.tsv
(each job's CPU and wall seconds). For every estimate job (or part of a split one) of every run the script counts the
cells of each kind of work the model prices (``cost.run_work``) with the iterations that job's runs actually made,
and then:

- records the mean iterations per (study, experiment, family, point) in privest_studies/cost_calibration.json
  (merged with those of the other scale: a point measured at both keeps the run with more runs per point);
- with ``--fit``, fits the price of each kind of work on the jobs of every run given (non-negative prices
  minimising the squared log ratios of model to measured wall seconds, or CPU seconds with ``--cpu`` for a run on a
  busy machine: relative errors, short jobs counting as much as long ones) and stores it;
- prints, per job, the model's seconds *before* the run (the iterations of the calibration as it was, i.e. what the
  budget warning would have said) and with the measured iterations, against the measured wall seconds, as ratios.

Without ``--fit`` the prices stay as they are: run it on the paper scale without ``--fit`` to check a calibration
fitted on the quick scale out of sample.
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy.optimize import least_squares, nnls

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privest_studies import (  # noqa: E402
    configuration,
    cost,
    experiment,
    free_will,
    ibu_consistency,
    own_study,
    standard_protocols,
)

MEASURE = "wall"
"""What the model is compared with: a job's wall seconds (on an idle machine its CPU seconds, single-threaded)."""
STUDIES = {"ibu_consistency": ibu_consistency, "free_will": free_will, "standard_protocols": standard_protocols}


def experiments_of(directory: Path, scale: str) -> tuple[dict, dict]:
    """{study: {name: Experiment}} of the run's config at this scale, and the scale's runs_per_job."""
    config = yaml.safe_load((directory / "config.yaml").read_text())
    config["scale"] = scale
    configuration.check(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    found = {study: module.experiments(config) for study, module in STUDIES.items()}
    found |= own_study.experiments(config)
    return found, config["scales"][scale].get("estimate", {}).get("runs_per_job", {})


def job_rows(directory: Path, found: dict, runs_per_job: dict, before: cost.Calibration) -> list[dict]:
    """One row per estimate job (or part) with a benchmark file: its cells of each kind with the measured iterations,
    the model's seconds with the calibration before, and the measured seconds."""
    rows = []
    for study, by_name in found.items():
        for name, spec in by_name.items():
            size = _size(directory, spec)
            if size is None:
                continue
            k, own_users = size
            for family in spec.families:
                archive = directory / f"results/{study}/{name}/estimates_{family}.npz"
                if not archive.exists():
                    continue
                with np.load(archive) as arrays:
                    measured = arrays["iterations"].max(axis=0)  # (points, runs): the family's most iterating method
                split = experiment.parts(spec, family, runs_per_job.get(study))
                jobs = [(part.name, [(part.point, r) for r in range(part.first, part.stop)]) for part in split] or [
                    ("", [(p, r) for p in range(len(spec.points)) for r in range(spec.runs)])]
                for part, units in jobs:
                    bench = directory / f"benchmarks/{study}/{name}/estimate_{family}{'_' + part if part else ''}.tsv"
                    if not bench.exists():
                        continue
                    timing = pd.read_csv(bench, sep="\t").iloc[-1]
                    work = dict.fromkeys(cost.WORK_KINDS[1:], 0.0)
                    for p, r in units:
                        point = spec.points[p]
                        members = [spec.members[j] for j in point.mechanisms]
                        users = own_users if point.users is None else point.users
                        squarem = spec.stopping_rule.get("accelerate") == "squarem"
                        for kind, cells in cost.run_work(family, members, k, users, float(measured[p, r]),
                                                         squarem, spec.rounds or 1).items():
                            work[kind] += cells
                    planned = sum(cost.seconds_of(w, before) for w in
                                  (cost.point_work(spec, family, k, own_users, before)[p] for p, _ in units))
                    rows.append({"study": study, "experiment": name, "family": family, "part": part,
                                 "wall": float(timing["s"]), "cpu": float(timing["cpu_time"]),
                                 "planned": before.seconds["startup"] + planned, **work,  # work["runs"]: the runs
                                 "measured_iterations": {(spec.points[p].value, r): float(measured[p, r])
                                                         for p, r in units}})
    return rows


def _size(directory: Path, spec: experiment.Experiment) -> tuple[int, int] | None:
    """k and the dataset's own users, read from the run's directory."""
    alphabet, data = directory / spec.alphabet_file, directory / spec.data_file
    if not (alphabet.exists() and data.exists()):
        return None
    with np.load(data) as arrays:
        users = int(arrays["secrets"].size) if "secrets" in arrays.files else 0
    return int(json.loads(alphabet.read_text())["k"]), users


def fit(rows: list[dict], measure: str = "wall") -> dict[str, float]:
    """Prices of ``cost.WORK_KINDS`` (non-negative) that minimise the sum over jobs of the squared log of model over
    measured seconds (``measure``: wall, or cpu for a run on a busy machine): relative errors, a job modelled 2x too
    long weighing as one 2x too short. Started from non-negative least squares on the seconds weighted by 1/seconds."""
    kinds = cost.WORK_KINDS
    X = np.array([[1.0] + [row[kind] for kind in kinds[1:]] for row in rows])
    y = np.maximum(np.array([row[measure] for row in rows]), 0.05)
    scale = np.maximum(X.max(axis=0), 1e-300)
    weight = 1 / np.maximum(y, 0.5)
    start, _ = nnls(X / scale * weight[:, None], y * weight)
    start = np.maximum(start, 1e-9 * max(float(start.max()), 1e-300))  # inside the bounds
    result = least_squares(lambda p: np.log(np.maximum(X / scale @ p, 1e-12) / y), start, bounds=(0, np.inf))
    prices = result.x / scale
    prices[(X * prices / y[:, None]).max(axis=0) < 1e-3] = 0.0  # a kind that is never 0.1% of a job: no price
    return {kind: float(f"{price:.3g}") for kind, price in zip(kinds, prices, strict=True)}


def merged_iterations(before: cost.Calibration, rows: list[dict], runs: dict[str, int]) -> dict:
    """The calibration's iterations with this run's means per (study/experiment/family, point); this run's replace
    the old ones at a point when it has at least as many runs there (``runs``: runs per point of each key before)."""
    means: dict[str, dict[float, list[float]]] = {}
    for row in rows:
        key = f"{row['study']}/{row['experiment']}/{row['family']}"
        for (value, _), count in row["measured_iterations"].items():
            means.setdefault(key, {}).setdefault(float(value), []).append(count)
    iterations = {key: dict(by_point) for key, by_point in before.iterations.items()}
    for key, by_point in means.items():
        for value, counts in by_point.items():
            if len(counts) >= runs.get(key, 0) or value not in iterations.get(key, {}):
                iterations.setdefault(key, {})[value] = float(np.mean(counts))
    return iterations


def markdown(rows: list[dict], model: cost.Calibration) -> str:
    """The model against every job: planned (before the run), with the measured iterations, and measured."""
    lines = ["| scale | job | runs | model before the run | model, measured iterations | measured wall | "
             "measured CPU | ratio before | ratio |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    ratios = []
    for row in sorted(rows, key=lambda r: (r.get("scale", ""), -r["wall"])):
        work = {kind: row[kind] for kind in cost.WORK_KINDS[1:]}
        modelled = cost.seconds_of(work, model, startup=True)
        ratio, before = modelled / row[MEASURE], row["planned"] / row[MEASURE]
        ratios.append((before, ratio))
        job = f"{row['study']}/{row['experiment']} {row['family']}" + (f" {row['part']}" if row["part"] else "")
        measured = f"{cost.describe(row['wall'])} | {cost.describe(row['cpu'])}"
        lines.append(f"| {row.get('scale', '')} | {job} | {row['runs']:.0f} | {cost.describe(row['planned'])} | "
                     f"{cost.describe(modelled)} | {measured} | {before:.2f} | {ratio:.2f} |")
    before, after = np.array(ratios).T
    within = np.mean((before >= 0.5) & (before <= 2)), np.mean((after >= 0.5) & (after <= 2))
    lines.append(f"\n{len(rows)} jobs; model / measured within [0.5, 2]: {within[0]:.0%} before the run, "
                 f"{within[1]:.0%} with the measured iterations; ratios before the run {before.min():.2f} to "
                 f"{before.max():.2f}, with the measured iterations {after.min():.2f} to {after.max():.2f}.")
    return "\n".join(lines)


def runs_of(specs: list[str]) -> list[tuple[str, Path]]:
    """[(scale, directory)] of the --run arguments SCALE=DIR."""
    runs = []
    for spec in specs:
        scale, _, directory = spec.partition("=")
        if scale not in ("quick", "paper") or not directory:
            raise SystemExit(f"calibrate_cost: --run takes SCALE=DIR with SCALE quick or paper, got {spec!r}")
        runs.append((scale, Path(directory)))
    return runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="append", default=[], metavar="SCALE=DIR",
                        help="a finished run at a scale (repeat for several; default quick=the project root)")
    parser.add_argument("--fit", action="store_true", help="refit the prices on these runs (else keep them)")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    parser.add_argument("--cpu", action="store_true", help="compare with CPU seconds (a run on a busy machine)")
    args = parser.parse_args(argv)
    global MEASURE
    MEASURE = "cpu" if args.cpu else "wall"
    before = cost.calibration()
    rows, iterations = [], dict(before.iterations)
    for scale, directory in runs_of(args.run or [f"quick={ROOT}"]):
        found, runs_per_job = experiments_of(directory, scale)
        measured = [{**row, "scale": scale} for row in job_rows(directory, found, runs_per_job, before)]
        if not measured:
            raise SystemExit(f"calibrate_cost: no estimate job with results and a benchmark file under {directory}")
        runs = {f"{s}/{n}/{f}": spec.runs for s, by in found.items() for n, spec in by.items() for f in spec.families}
        iterations = merged_iterations(cost.Calibration(before.seconds, iterations), measured, runs)
        rows += measured
    scales = " and ".join(dict.fromkeys(row["scale"] for row in rows))
    scales += " scales" if " and " in scales else " scale"
    prices = fit(rows, MEASURE) if args.fit else dict(before.seconds)
    measured_at = f"iterations measured at the {scales}"
    source = (f"prices fitted on the {scales}'s jobs ({MEASURE} seconds); {measured_at}" if args.fit
              else before.source if before.source.endswith(measured_at) else f"{before.source}; {measured_at}")
    after = cost.Calibration(prices, iterations, source)
    cost.CALIBRATION.write_text(json.dumps(after.to_dict(), indent=1) + "\n")
    table = markdown(rows, after)
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")


if __name__ == "__main__":
    main()
