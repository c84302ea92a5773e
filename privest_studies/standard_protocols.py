"""Free will with the standard protocols (issue 13, beyond the papers): users split over the LDP frequency oracles of
``privest.protocols`` (GRR, SUE, OUE, BLH, OLH, SS, HR), each at several eps, on two datasets: the Adult ages and a
synthetic Zipf distribution over k values. Three estimators on the same reports:

- [INV]_R-P: each protocol's unbiased estimator (Wang et al. 2017, ``Protocol.estimate``) on its own users, projected
  onto the simplex, the estimates weighted by n^A/n (free-will eqs. 4-5);
- [IBU]_R: GIBU on each protocol's reports alone, weighted likewise;
- GIBU: one maximum-likelihood estimate over the reports of every protocol at once (``privest.gibu``), the
  free-will paper's estimator, which no peer library offers: they estimate per protocol.

Each dataset is an experiment of the one chain (``privest_studies.experiment``: every (protocol, eps) at every n,
users drawn i.i.d. from theta and split equally). Config: ``standard_protocols`` (protocols, eps, hash family size,
Zipf, stopping rule, methods shown) and ``scales.<scale>.standard_protocols`` (n, runs).
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from privest_studies import tables
from privest_studies.configuration import scale_config, study_config
from privest_studies.experiment import FAMILIES, HASHED_KINDS, KIND_NAMES, Experiment, Member, Point

STUDY = "standard_protocols"
RESULTS = f"results/{STUDY}"
DATASETS = ("ages", "zipf")
"""The experiments: the Adult ages (results/data/ages, k = config data.adult.k) and the Zipf distribution."""
FAMILY_NAMES = ("inv_r", "ibu_r", "gibu")
DATA = {"ages": "results/data/ages", "zipf": f"{RESULTS}/data/zipf"}
TITLES = {"ages": "Adult ages", "zipf": "Zipf"}


def members(config: Mapping[str, Any]) -> list[Member]:
    """Every (protocol, eps) of the study, protocol by protocol; BLH and OLH with the config's hash family size."""
    study = study_config(config, STUDY)
    hashes = study["hashes"]
    return [Member(kind, float(eps), hashes if kind in HASHED_KINDS else None)
            for kind in study["protocols"] for eps in study["eps"]]


def stopping(config: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """GIBU's stopping rule (and [IBU]_R's), as an Experiment holds it: delta, max_iter and accelerate if set."""
    rule = study_config(config, STUDY)["ibu"]
    pairs = [("delta", float(rule["delta"])), ("max_iter", int(rule["max_iter"]))]
    return tuple(pairs + ([("accelerate", rule["accelerate"])] if rule.get("accelerate") else []))


def experiments(config: Mapping[str, Any]) -> dict[str, Experiment]:
    """The two datasets as experiments: one point per n, n users drawn from theta and split over every member."""
    chosen, scale = tuple(members(config)), scale_config(config, STUDY)
    return {name: Experiment(
        study=STUDY, name=name, axis="n", members=chosen,
        points=tuple(Point(int(n), tuple(range(len(chosen))), int(n)) for n in scale["n"]),
        runs=int(scale["runs"]), families=FAMILY_NAMES, data=DATA[name],
        labels=(("study", STUDY), ("dataset", name)), stopping=stopping(config)) for name in DATASETS}


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: every group gets a user at the smallest n, protocols and eps listed once, the
    methods shown are computed. One line naming the key."""
    study, scale, key = study_config(config, STUDY), scale_config(config, STUDY), f"config key {STUDY}"
    for name in ("protocols", "eps"):
        if len(set(study[name])) != len(study[name]):
            raise ValueError(f"{key}.{name}: lists a value twice")
    groups = len(study["protocols"]) * len(study["eps"])
    if min(scale["n"]) < groups:
        raise ValueError(f"config key scales.{config['scale']}.{STUDY}.n: every n must be at least the {groups} "
                         "(protocol, eps) groups the users are split over")
    computed = [m for family in FAMILY_NAMES for m in FAMILIES[family].methods]
    unknown = [m for m in study["methods"] if m not in computed]
    if unknown:
        raise ValueError(f"{key}.methods: {unknown} are not computed; known: {', '.join(computed)}")


# --- data -------------------------------------------------------------------------------------------------------------


def zipf_theta(k: int, exponent: float) -> np.ndarray:
    """The Zipf distribution on {0..k-1}: theta_x proportional to (x + 1)^-exponent."""
    if k < 2 or not exponent > 0:
        raise ValueError(f"k must be at least 2 and exponent positive, got k={k}, exponent={exponent}")
    theta = np.arange(1, k + 1, dtype=np.float64) ** -float(exponent)
    return theta / theta.sum()


def zipf_alphabet(spec: Mapping[str, Any]) -> tuple[dict, np.ndarray]:
    """The Zipf dataset's alphabet file content and its theta, from config standard_protocols.zipf."""
    k, exponent = int(spec["k"]), float(spec["exponent"])
    label = f"X = {{0..{k - 1}}}, Zipf θ ∝ (x+1)^-{exponent:g}"
    return {"kind": "linear", "k": k, "label": label}, zipf_theta(k, exponent)


def dataset_label(name: str, alphabet: Mapping[str, Any]) -> str:
    """A dataset as the figures and the table name it: its alphabet and theta."""
    if name == "ages":
        return f"X = {{0..{int(alphabet['k']) - 1}}}, θ the empirical distribution of the Adult persons' ages"
    return alphabet.get("label", f"X = {{0..{int(alphabet['k']) - 1}}}")


# --- summary, figures -------------------------------------------------------------------------------------------------

SUMMARY_COLUMNS = ["dataset", "n", "method", "runs", "emd_mean", "emd_sd", "l2sq_mean", "l2sq_sd", "iterations_mean",
                   "capped_runs"]


def _sd(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1)) if values.size > 1 else 0.0


def summary(rows: Sequence[Mapping[str, Any]], methods: Sequence[str]) -> list[dict]:
    """Mean and standard deviation over runs of the EMD and of l2^2 per (dataset, n, method) of ``methods``, with the
    mean iterations (updates, with SQUAREM) and how many runs the cap stopped, from the tidy score rows; datasets in
    study order, then n, then the methods' order."""
    groups: dict[tuple, list[Mapping]] = {}
    for row in rows:
        if row["method"] in methods:
            groups.setdefault((row["dataset"], int(row["n"]), row["method"]), []).append(row)

    def order(key: tuple) -> tuple:
        dataset, n, method = key
        return (DATASETS.index(dataset) if dataset in DATASETS else len(DATASETS), dataset, n, methods.index(method))

    out = []
    for key in sorted(groups, key=order):
        runs = groups[key]
        emd = np.array([float(r["emd"]) for r in runs])
        l2sq = np.array([float(r["l2sq"]) for r in runs])
        out.append(dict(zip(("dataset", "n", "method"), key, strict=True)) | {
            "runs": len(runs), "emd_mean": float(np.mean(emd)), "emd_sd": _sd(emd),
            "l2sq_mean": float(np.mean(l2sq)), "l2sq_sd": _sd(l2sq),
            "iterations_mean": float(np.mean([float(r["iterations"]) for r in runs])),
            "capped_runs": sum(str(r["capped"]).lower() in ("true", "1") for r in runs)})
    return out


def groups_text(config: Mapping[str, Any]) -> str:
    """'7 protocols (GRR, SUE, OUE, BLH, OLH, SS, HR) × ε ∈ {1, 2, 4} = 21 groups'."""
    study = study_config(config, STUDY)
    names = ", ".join(KIND_NAMES[p] for p in study["protocols"])
    eps = ", ".join(f"{e:g}" for e in study["eps"])
    groups = len(study["protocols"]) * len(study["eps"])
    return f"{len(study['protocols'])} protocols ({names}) × ε ∈ {{{eps}}} = {groups} groups"


def hashes_text(config: Mapping[str, Any]) -> str:
    """How BLH and OLH draw their hash functions, as printed on the figures ('' when neither is used)."""
    study = study_config(config, STUDY)
    used = [KIND_NAMES[p] for p in study["protocols"] if p in HASHED_KINDS]
    if not used:
        return ""
    family = ("seeds uniform on [0, 2^32), as the peer libraries" if study["hashes"] is None
              else f"a finite family of {study['hashes']:,} seeds (config hashes; the unbiased estimator assumes an "
                   "ideal random hash, GIBU uses the exact sets)")
    return f"{' and '.join(used)}: xxh32 hash functions, {family}"


def stopping_text(config: Mapping[str, Any]) -> str:
    """GIBU's stopping rule as printed on the figures and in the table."""
    rule = study_config(config, STUDY)["ibu"]
    how = {"squarem": "SQUAREM-accelerated, ", "squarem-direct": "SQUAREM-accelerated (direct steps), "}.get(
        rule.get("accelerate"), "")
    unit = "updates" if rule.get("accelerate") else "iterations"
    return f"GIBU and [IBU]_R: {how}stop at ΔL < {rule['delta']:g} or {rule['max_iter']:,} {unit}"


UNITS = {"ages": "years"}


def metric_title(metric: str, dataset: str) -> str:
    """The y label of a panel: the EMD in the dataset's unit (years of age, steps of 1 on the Zipf's ranks), or l2^2."""
    if metric == "emd":
        return f"EMD to θ ({UNITS.get(dataset, 'steps of 1')}, log scale)"
    return "squared ℓ2 error ‖θ̂ − θ‖² (log scale)"


def panel_title(metric: str, lines: Sequence[Mapping[str, Any]], dataset: str) -> str:
    """A panel's title: the metric and GIBU's mean over the best other method's at the largest n (from ``summary``)."""
    name = {"emd": "earth mover's distance", "l2sq": "squared ℓ2 error"}[metric]
    mine = [line for line in lines if line["dataset"] == dataset]
    if not mine:
        return name
    n = max(line["n"] for line in mine)
    means = {line["method"]: line[f"{metric}_mean"] for line in mine if line["n"] == n}
    others = [value for method, value in means.items() if method != "GIBU"]
    if "GIBU" not in means or not others:
        return name
    return f"{name}\nGIBU ÷ best per-protocol estimator at n = {n:,}: {means['GIBU'] / min(others):.2f}"


def method_labels() -> dict[str, str]:
    """The legend of each method: what it computes, in the papers' notation."""
    return {"[INV]_R-P": r"$[\mathrm{INV}]_\mathrm{R}$ projection: each protocol's unbiased estimator",
            "[INV]_R-N": r"$[\mathrm{INV}]_\mathrm{R}$ normalisation: each protocol's unbiased estimator",
            "[IBU]_R": r"$[\mathrm{IBU}]_\mathrm{R}$: IBU on each protocol's reports alone",
            "GIBU": "GIBU: one MLE over every report of every protocol"}


def summary_markdown(lines: Sequence[Mapping[str, Any]], config: Mapping[str, Any], alphabets: Mapping[str, str]
                     ) -> str:
    """The summary as a markdown page: per dataset, mean EMD and mean l2^2 over runs, one row per method, one column
    per n, and GIBU's ratio to the best per-protocol estimator at each n."""
    scale, study = scale_config(config, STUDY), study_config(config, STUDY)
    out = ["# Free will with the standard protocols: mean EMD and squared ℓ2 error", "",
           f"Users drawn i.i.d. from θ and split equally over {groups_text(config)}; {scale['runs']} runs per n "
           f"(scale: {config['scale']}). {stopping_text(config)}. {hashes_text(config)}.", ""]
    for dataset in dict.fromkeys(line["dataset"] for line in lines):
        mine = [line for line in lines if line["dataset"] == dataset]
        ns = sorted({line["n"] for line in mine})
        cell = {(line["method"], line["n"]): line for line in mine}
        out += [f"## {TITLES.get(dataset, dataset)}: {alphabets.get(dataset, '')}", ""]
        for metric, title, fmt in (("emd", "Mean EMD (steps of 1)", "{:.4g}"),
                                   ("l2sq", "Mean squared ℓ2 error", "{:.3g}")):
            rows = [{"method": method} | {f"n = {n:,}": fmt.format(cell[method, n][f"{metric}_mean"])
                                          for n in ns if (method, n) in cell}
                    for method in study["methods"] if any((method, n) in cell for n in ns)]
            others = [m for m in study["methods"] if m != "GIBU"]
            if "GIBU" in study["methods"] and others:
                ratio = {"method": "GIBU ÷ best other"}
                for n in ns:
                    best = min(cell[m, n][f"{metric}_mean"] for m in others if (m, n) in cell)
                    ratio[f"n = {n:,}"] = f"{cell['GIBU', n][f'{metric}_mean'] / best:.3f}"
                rows.append(ratio)
            out += [f"### {title}", "", tables.markdown_table(rows, ["method", *(f"n = {n:,}" for n in ns)])]
    return "\n".join(out)
