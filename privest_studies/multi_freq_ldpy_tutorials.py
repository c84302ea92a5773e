"""Beyond the papers (issue 49): the three tutorial grids of multi-freq-ldpy (its notebooks 1-3), rerun in privest with
the peer's unbiased estimator and GIBU side by side on the same reports, scored by the tutorials' MSE and by EMD.

- single attribute (notebook 1): the Adult ages of the 45,222 persons without a missing field, label-encoded on
  {0..73} (k = 74, the ages 17..90), every person reporting once through GRR, SUE, OUE, BLH, OLH, SS, SHE and THE at
  eps 0.5, 1.0, ..., 5.0;
- longitudinal (notebook 3): the same ages through L-GRR, L-OUE, L-OSUE, L-SUE, L-SOUE (eps = eps_perm, the first
  report at eps1 = eps_perm / 2, privest's default and the notebook's) and dBitFlipPM (b = k buckets, d = b bits by
  default, the notebook's), one round each;
- multidimensional (notebook 2): SPL, SMP and RS+FD with ADP (the notebook's runs; its other protocols are commented
  out) over d = 6 attributes. The notebook's data set, MS-FIMU (n = 88,935, k = [3, 8, 12, 3, 37, 11]), is not in
  the data this project can fetch: we run six Adult columns (config ``multidim.adult_columns``, our choice) and a
  synthetic data set of MS-FIMU's shape (its n and ks, each attribute Zipf, drawn once from the config seed).

Two estimators on every run's reports: the peer's "MI" (the unbiased estimate, negatives to 0, rescaled to sum 1:
``privest.consistency``'s "norm-mul", alias "normalization"; method ``norm-mul``) and GIBU on the protocol's exact
report likelihood (method ``GIBU``; per attribute for the multidimensional solutions). Scores: the tutorials' MSE
(sklearn's mean_squared_error: the mean over the k values of the squared error; the multidimensional MSE_avg its
mean over the d attributes) and the EMD to the users' distribution (years on the ages; on the categorical attributes
the total variation, the EMD under the discrete metric, averaged over the attributes).

The one experiment chain (``privest_studies.experiment``) runs every single-attribute and longitudinal protocol that
is one of its kinds, an experiment per protocol (one point per eps, the dataset's own users, families inv and ibu).
The rest runs in a job of its own (rule mt_estimate, ``run_job``), one per ``own_jobs`` name: SHE (its reports are n
x k floats, 27 MB an (eps, run) at k = 74, which the chain would store: 8 GB at 30 runs of 10 eps), dBitFlipPM (not
a ``Protocol``: it estimates buckets, here b = k) and the multidimensional solutions (tuples of d values, not one
secret).
Config: ``multi_freq_ldpy_tutorials``; sizes: ``scales.<scale>.multi_freq_ldpy_tutorials`` (runs).
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

import privest
from privest import protocols
from privest_studies import tables
from privest_studies.configuration import scale_config, study_config
from privest_studies.datasets import ADULT_COLUMNS
from privest_studies.experiment import KIND_NAMES, PROTOCOL_KINDS, Experiment, Member, Point
from privest_studies.standard_protocols import zipf_theta

STUDY = "multi_freq_ldpy_tutorials"
RESULTS = f"results/{STUDY}"
GRIDS = ("single", "longitudinal", "multidim")
DATASETS = ("adult", "synthetic")
"""The multidimensional grid's data sets: six Adult columns, and a synthetic one of MS-FIMU's shape."""
AGES = f"{RESULTS}/data/ages"
MULTIDIM_DATA = {name: f"{RESULTS}/data/multidim_{name}.npz" for name in DATASETS}
METHODS = ("norm-mul", "GIBU")
METHOD_LABELS = {"norm-mul": "unbiased (MI), Norm-Mul: the peer's", "GIBU": "GIBU (MLE)"}
CHAIN_METHODS = {"INV-N": "norm-mul", "IBU": "GIBU"}
"""The chain's method names (family inv's INV-N is ``post="normalization"`` = Norm-Mul; family ibu on a protocol is
GIBU on its reports) as this study names them; the chain's INV-P is not shown."""
RUN_COLUMNS = ["grid", "dataset", "protocol", "eps", "run", "method", "mse", "emd", "iterations", "capped"]
TITLES = {"single": "single attribute (notebook 1)", "longitudinal": "longitudinal (notebook 3)",
          "multidim": "multidimensional (notebook 2)"}


def stopping(config: Mapping[str, Any]) -> dict[str, Any]:
    """GIBU's stopping rule, as ``privest.gibu`` takes it."""
    rule = study_config(config, STUDY)["ibu"]
    return {"delta": float(rule["delta"]), "max_iter": int(rule["max_iter"]),
            **({"accelerate": rule["accelerate"]} if rule.get("accelerate") else {})}


def chain_kinds(config: Mapping[str, Any], grid: str) -> list[str]:
    """The protocols of a one-attribute grid that run through the experiment chain (the others: ``own_jobs``)."""
    return [kind for kind in study_config(config, STUDY)[grid]["protocols"] if kind in PROTOCOL_KINDS and kind != "she"]


def experiments(config: Mapping[str, Any]) -> dict[str, Experiment]:
    """The chain's experiments: one per protocol of the single-attribute and longitudinal grids, ``<grid>_<kind>``,
    one point per eps with that protocol alone, every person of the ages once per run."""
    study, runs = study_config(config, STUDY), int(scale_config(config, STUDY)["runs"])
    rule = tuple(stopping(config).items())
    out = {}
    for grid in ("single", "longitudinal"):
        eps = [float(e) for e in study[grid]["eps"]]
        for kind in chain_kinds(config, grid):
            out[f"{grid}_{kind}"] = Experiment(
                study=STUDY, name=f"{grid}_{kind}", axis="eps", members=tuple(Member(kind, e) for e in eps),
                points=tuple(Point(e, (i,), None) for i, e in enumerate(eps)), runs=runs, families=("inv", "ibu"),
                data=AGES, labels=(("study", STUDY), ("grid", grid), ("dataset", "ages"), ("protocol", kind)),
                stopping=rule)
    return out


def own_jobs(config: Mapping[str, Any]) -> list[str]:
    """The jobs outside the chain (rule mt_estimate): ``single_she``, ``longitudinal_dbitflip`` where listed, and
    ``multidim_<dataset>_<solution>`` for every data set and solution."""
    study = study_config(config, STUDY)
    jobs = [f"{grid}_{kind}" for grid in ("single", "longitudinal") for kind in study[grid]["protocols"]
            if kind not in chain_kinds(config, grid)]
    return jobs + [f"multidim_{name}_{solution}" for name in DATASETS for solution in study["multidim"]["solutions"]]


def own_data(job: str) -> str:
    """The data file a job of ``own_jobs`` reads."""
    if job.startswith("multidim_"):
        return MULTIDIM_DATA[job.split("_")[1]]
    return f"{AGES}.npz"


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: no protocol, eps, solution or column listed twice, the Adult columns are Adult's,
    dBitFlipPM's buckets are k (null: the estimate is of the ages). One line naming the key."""
    study, key = study_config(config, STUDY), f"config key {STUDY}"
    lists = [("single", "protocols"), ("single", "eps"), ("longitudinal", "protocols"), ("longitudinal", "eps"),
             ("multidim", "solutions"), ("multidim", "eps"), ("multidim", "adult_columns")]
    for grid, name in lists:
        if len(set(study[grid][name])) != len(study[grid][name]):
            raise ValueError(f"{key}.{grid}.{name}: lists a value twice")
    unknown = [c for c in study["multidim"]["adult_columns"] if c not in ADULT_COLUMNS]
    if unknown:
        raise ValueError(f"{key}.multidim.adult_columns: {unknown} are not Adult columns; known: "
                         f"{', '.join(ADULT_COLUMNS)}")
    bitflip = study["longitudinal"]["dbitflip"]
    if bitflip["buckets"] is not None or (bitflip["bits"] is not None and bitflip["bits"] < 1):
        raise ValueError(f"{key}.longitudinal.dbitflip: buckets must be null (b = k: the estimate is of the ages, as "
                         "the tutorial's) and bits null or at least 1")


# --- data -------------------------------------------------------------------------------------------------------------


def complete_persons(persons: pd.DataFrame) -> pd.DataFrame:
    """The Adult persons with no missing field (the tutorials' preprocessing, notebook 0: 45,222 of 48,842)."""
    return persons.dropna(subset=list(ADULT_COLUMNS)).reset_index(drop=True)


def encoded(values: Sequence[Any]) -> tuple[np.ndarray, list]:
    """Label encoding as the notebooks' sklearn LabelEncoder: each value's index among the sorted distinct values."""
    categories, codes = np.unique(np.asarray(values), return_inverse=True)
    return codes.astype(np.int64), categories.tolist()


def ages_data(persons: pd.DataFrame) -> tuple[dict, dict]:
    """The ages dataset of the chain (secrets, theta) and its alphabet file: the complete persons' label-encoded
    ages."""
    secrets, ages = encoded(complete_persons(persons)["age"].astype(int).to_numpy())
    k = len(ages)
    alphabet = {"kind": "linear", "k": k, "spacing": 1.0, "ages": ages,
                "label": f"X = the {k} ages {ages[0]}..{ages[-1]} of Adult's {secrets.size:,} complete persons, "
                         "label-encoded; θ their empirical distribution"}
    return {"secrets": secrets, "theta": np.bincount(secrets, minlength=k) / secrets.size}, alphabet


def adult_tuples(persons: pd.DataFrame, columns: Sequence[str]) -> tuple[np.ndarray, list[int]]:
    """The complete persons' label-encoded values of ``columns``: secrets (n, d) and each column's k."""
    complete = complete_persons(persons)
    codes = [encoded(complete[c].astype(str).to_numpy()) for c in columns]
    single = [c for c, (_, categories) in zip(columns, codes, strict=True) if len(categories) < 2]
    if single:
        raise ValueError(f"config key {STUDY}.multidim.adult_columns: {single} hold fewer than 2 values among the "
                         "complete persons")
    return np.column_stack([c for c, _ in codes]), [len(cats) for _, cats in codes]


def synthetic_tuples(spec: Mapping[str, Any], rng: np.random.Generator) -> np.ndarray:
    """MS-FIMU's shape: ``users`` tuples, attribute j drawn i.i.d. from Zipf(ks[j], exponent), independently."""
    ks, n = [int(k) for k in spec["ks"]], int(spec["users"])
    return np.column_stack([rng.choice(k, size=n, p=zipf_theta(k, float(spec["exponent"]))) for k in ks])


# --- the jobs outside the chain ---------------------------------------------------------------------------------------


def _scores(estimate: np.ndarray, theta: np.ndarray, ordinal: bool) -> tuple[float, float]:
    """(MSE, EMD): the mean squared error over the k values, the EMD in steps of 1 (ordinal) or total variation."""
    mse = float(np.mean((estimate - theta) ** 2))
    emd = privest.emd_1d(estimate, theta) if ordinal else privest.total_variation(estimate, theta)
    return mse, float(emd)


def _one_attribute(kind: str, eps: float, secrets: np.ndarray, k: int, rng: np.random.Generator,
                   rule: Mapping[str, Any], options: Mapping[str, Any]) -> list[tuple[str, list, list, int, bool]]:
    """(method, estimates, thetas, iterations, capped) of one run of a one-attribute protocol."""
    protocol = protocols.by_name(kind, k, eps, **options)
    reports = protocol.sample(secrets, rng)
    theta = np.bincount(secrets, minlength=k) / secrets.size
    mle = privest.gibu([protocol.group(reports)], **{**privest.estimators.PLAIN_IBU, **rule})
    return [("norm-mul", [protocol.estimate(reports, post="norm-mul")], [theta], 0, False),
            ("GIBU", [mle.theta], [theta], int(mle.iterations), bool(mle.capped))]


def _multidim(solution: str, eps: float, secrets: np.ndarray, ks: Sequence[int], protocol: str,
              rng: np.random.Generator, rule: Mapping[str, Any]) -> list[tuple[str, list, list, int, bool]]:
    """(method, estimates, thetas, iterations, capped) of one run of a multidimensional solution: one estimate per
    attribute, GIBU on each attribute's column (its marginal protocol's likelihood)."""
    made = protocols.spl(ks, eps, protocol) if solution == "spl" else (
        protocols.smp(ks, eps, protocol) if solution == "smp" else protocols.rsfd(ks, eps, protocol))
    reports = made.sample(secrets, rng, packed=True)
    thetas = [np.bincount(secrets[:, j], minlength=k) / secrets.shape[0] for j, k in enumerate(ks)]
    mles = [privest.gibu([group], **{**privest.estimators.PLAIN_IBU, **rule}) for group in made.groups(reports)]
    return [("norm-mul", made.estimate(reports, post="norm-mul"), thetas, 0, False),
            ("GIBU", [m.theta for m in mles], thetas, max(int(m.iterations) for m in mles),
             any(m.capped for m in mles))]


def run_job(job: str, data: Mapping[str, np.ndarray], config: Mapping[str, Any]) -> list[dict]:
    """The tidy rows (``RUN_COLUMNS``) of one job of ``own_jobs``: every (eps, run) and method. Each run's draws come
    from rng_for(seed, study, job, eps, run)."""
    study, runs, rule = study_config(config, STUDY), int(scale_config(config, STUDY)["runs"]), stopping(config)
    grid, _, rest = job.partition("_")
    if grid == "multidim":
        dataset, solution = rest.split("_", 1)
        secrets, ks = np.asarray(data["secrets"]), [int(k) for k in data["ks"]]
        label, eps_grid, ordinal = protocols.SOLUTION_NAMES[solution], study["multidim"]["eps"], False
    else:
        dataset, kind, secrets = "ages", rest, np.asarray(data["secrets"])
        k = int(np.asarray(data["theta"]).size)
        bitflip = study["longitudinal"]["dbitflip"]
        options = {"bits": bitflip["bits"]} if kind == "dbitflip" else {}
        label, eps_grid, ordinal = kind, study[grid]["eps"], True
    rows = []
    for eps in map(float, eps_grid):
        for run in range(runs):
            rng = privest.rng_for(int(config["seed"]), STUDY, job, repr(eps), run)
            if grid == "multidim":
                results = _multidim(solution, eps, secrets, ks, study["multidim"]["protocol"], rng, rule)
            else:
                results = _one_attribute(kind, eps, secrets, k, rng, rule, options)
            for method, estimates, thetas, iterations, capped in results:
                scores = np.array([_scores(e, t, ordinal) for e, t in zip(estimates, thetas, strict=True)])
                rows.append({"grid": grid, "dataset": dataset, "protocol": label, "eps": eps, "run": run,
                             "method": method, "mse": float(scores[:, 0].mean()), "emd": float(scores[:, 1].mean()),
                             "iterations": iterations, "capped": capped})
    return rows


# --- the study's table, summary, figures ------------------------------------------------------------------------------


def chain_rows(scores: pd.DataFrame, k: int) -> list[dict]:
    """The chain's score rows (rule aggregate's table) as this study's: its two methods renamed (``CHAIN_METHODS``),
    the MSE from l2^2 over k."""
    chosen = scores[scores["method"].isin(list(CHAIN_METHODS))]
    return [{"grid": row["grid"], "dataset": row["dataset"], "protocol": row["protocol"], "eps": float(row["eps"]),
             "run": int(row["run"]), "method": CHAIN_METHODS[row["method"]], "mse": float(row["l2sq"]) / k,
             "emd": float(row["emd"]), "iterations": int(row["iterations"]),
             "capped": str(row["capped"]).lower() in ("true", "1")}
            for row in chosen.to_dict("records")]


SUMMARY_COLUMNS = ["grid", "dataset", "protocol", "eps", "method", "runs", "mse_mean", "mse_sd", "emd_mean", "emd_sd",
                   "iterations_mean", "capped_runs"]


def protocol_label(protocol: str) -> str:
    """A protocol as the tutorials name it (L-GRR, dBitFlipPM, RS+FD)."""
    if protocol == "dbitflip":
        return "dBitFlipPM"
    return KIND_NAMES.get(protocol, protocol)


def order(config: Mapping[str, Any], grid: str) -> list[str]:
    """The protocols of a grid in the config's order, as the rows name them."""
    study = study_config(config, STUDY)
    if grid == "multidim":
        return [protocols.SOLUTION_NAMES[s] for s in study["multidim"]["solutions"]]
    return list(study[grid]["protocols"])


def summary(rows: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> list[dict]:
    """Mean and standard deviation over runs of the MSE and the EMD per (grid, dataset, protocol, eps, method), with
    GIBU's mean iterations and capped runs; grids, protocols and methods in study order."""
    table = pd.DataFrame(list(rows), columns=RUN_COLUMNS)
    out = []
    keys = ["grid", "dataset", "protocol", "eps", "method"]
    for key, group in table.groupby(keys, sort=False):
        line = dict(zip(keys, key, strict=True))
        line |= {"runs": len(group), "mse_mean": float(group["mse"].mean()),
                 "mse_sd": float(group["mse"].std(ddof=1)) if len(group) > 1 else 0.0,
                 "emd_mean": float(group["emd"].mean()),
                 "emd_sd": float(group["emd"].std(ddof=1)) if len(group) > 1 else 0.0,
                 "iterations_mean": float(group["iterations"].mean()), "capped_runs": int(group["capped"].sum())}
        out.append(line)

    def rank(line: Mapping[str, Any]) -> tuple:
        protocols_of = order(config, line["grid"])
        return (GRIDS.index(line["grid"]), line["dataset"],
                protocols_of.index(line["protocol"]) if line["protocol"] in protocols_of else len(protocols_of),
                line["eps"], METHODS.index(line["method"]))
    return sorted(out, key=rank)


def panels(config: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """The figures: name -> (grid, dataset)."""
    return {"single": ("single", "ages"), "longitudinal": ("longitudinal", "ages"),
            **{f"multidim_{name}": ("multidim", name) for name in DATASETS}}


def metric_label(metric: str, grid: str) -> str:
    """A panel's y label: the tutorials' MSE (MSE_avg on the multidimensional grid) or the EMD with its unit."""
    if metric == "mse":
        return ("MSE_avg: mean over the d attributes of the MSE (log scale)" if grid == "multidim"
                else "MSE: mean over the k ages of (θ̂ − θ)² (log scale)")
    return ("EMD = total variation, mean over the d attributes (log scale)" if grid == "multidim"
            else "EMD to θ (years, log scale)")


GIBU_NOTE = {"single": "", "longitudinal": " (the memo and the report as one channel)",
             "multidim": " of each attribute's column (SMP: the users who drew it), per attribute"}
"""How GIBU runs on a grid, as the figures' footers say."""


def multidim_label(dataset: str, config: Mapping[str, Any]) -> str:
    """The multidimensional data set as the figures name it, with the protocol of the solutions."""
    study = study_config(config, STUDY)["multidim"]
    protocol = KIND_NAMES.get(study["protocol"], study["protocol"].upper())
    if dataset == "adult":
        columns = ", ".join(study["adult_columns"])
        return (f"d = {len(study['adult_columns'])} Adult columns ({columns}) of the complete persons, label-encoded; "
                f"the solutions with {protocol}")
    spec = study["synthetic"]
    return (f"synthetic, MS-FIMU's shape (the notebook's data, not available here): n = {int(spec['users']):,} tuples, "
            f"k = {list(spec['ks'])}, each attribute Zipf(exponent {spec['exponent']:g}); the solutions with "
            f"{protocol}")


def eps_label(grid: str) -> str:
    return "ε_perm (ε1 = ε_perm / 2 for the L- protocols)" if grid == "longitudinal" else "ε"


def gibu_ratio_text(lines: Sequence[Mapping[str, Any]], metric: str) -> str:
    """'GIBU ÷ norm-mul, mean MSE: 0.62-1.4 (median 0.95) over 80 (protocol, ε)' over the lines of one panel."""
    cell = {(line["protocol"], line["eps"], line["method"]): line[f"{metric}_mean"] for line in lines}
    ratios = np.array([cell[p, e, "GIBU"] / cell[p, e, "norm-mul"] for p, e, m in cell
                       if m == "GIBU" and (p, e, "norm-mul") in cell and cell[p, e, "norm-mul"] > 0])
    if not ratios.size:
        return ""
    return (f"GIBU ÷ norm-mul: {ratios.min():.2g}–{ratios.max():.2g} (median {np.median(ratios):.2f}; GIBU lower in "
            f"{int((ratios < 1).sum())} of {ratios.size} cells)")


def runs_text(runs: int) -> str:
    """'1 run' or '30 runs'."""
    return f"{runs} run" if int(runs) == 1 else f"{runs} runs"


def summary_markdown(lines: Sequence[Mapping[str, Any]], config: Mapping[str, Any]) -> str:
    """Per grid and data set, one row per protocol: the mean MSE of the peer's estimator and of GIBU at each eps, and
    the same for the EMD, with GIBU's ratio."""
    runs = scale_config(config, STUDY)["runs"]
    out = ["# multi-freq-ldpy's tutorial grids: the peer's unbiased estimator (Norm-Mul) and GIBU side by side", "",
           f"{runs_text(runs)} per (protocol, ε) (scale: {config['scale']}); every person reports once a run. MSE: the "
           "tutorials' mean squared error over the k values (MSE_avg over the attributes for the multidimensional "
           "grid); EMD in years on the ages, total variation on the categorical attributes. Cells: norm-mul / GIBU "
           "(mean over runs).", ""]
    for grid, dataset in dict.fromkeys((line["grid"], line["dataset"]) for line in lines):
        mine = [line for line in lines if line["grid"] == grid and line["dataset"] == dataset]
        eps = sorted({line["eps"] for line in mine})
        cell = {(line["protocol"], line["eps"], line["method"]): line for line in mine}
        out += [f"## {TITLES[grid]}, {dataset}", ""]
        for metric, name in (("mse", "MSE"), ("emd", "EMD")):
            rows = []
            for protocol in dict.fromkeys(line["protocol"] for line in mine):
                row = {"protocol": protocol_label(protocol)}
                for e in eps:
                    pair = [cell.get((protocol, e, m)) for m in METHODS]
                    row[f"ε = {e:g}"] = " / ".join(f"{p[f'{metric}_mean']:.3g}" if p else "—" for p in pair)
                rows.append(row)
            out += [f"### {name}: norm-mul / GIBU", "", tables.markdown_table(rows, list(rows[0])), "",
                    gibu_ratio_text(mine, metric), ""]
    return "\n".join(out)
