"""The free-will privacy study: the mechanism sets of Tables 4-8 as experiments of the one chain
(``privest_studies.experiment``: the whole set at every n point, users split equally over it, decisions.md, section 6),
the closed-form bounds of Propositions 2 and 3 and the non-informative example of eq. (11). The verdicts of Tables 1
and 2 and the findings, computed from measured EMDs, are ``privest_studies.free_will_verdicts``.

Config: ``free_will`` (alphabets, mechanism sets, figures, tables, findings) and ``scales.<scale>.free_will`` (n,
runs, the Shokri Q kept). Every function of the config fails with one line naming the key.
"""

import importlib.metadata
import importlib.util
import math
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

import numpy as np

from privest import estimators
from privest.estimators import gibu_matrix_runs
from privest.mechanisms import average
from privest.rappor import flip_probability
from privest_studies.configuration import scale_config, study_config
from privest_studies.experiment import (
    FAMILIES,
    KIND_NAMES,
    Experiment,
    Member,
    Point,
)
from privest_studies.files import file_digests
from privest_studies.regions import region_title

STUDY = "free_will"
RESULTS = f"results/{STUDY}"

# --- the study's experiments (the mechanism sets of Tables 4-8) -------------------------------------------------------


def set_members(config: Mapping[str, Any], mechanism_set: str) -> list[Member]:
    """The mechanisms of a set at the active scale (Table 4-8 entries; a scale may keep a subset of Shokri Q)."""
    spec = study_config(config, STUDY)["mechanism_sets"][mechanism_set]
    return members(spec, scale_config(config, STUDY).get("shokri_Q", {}).get(mechanism_set))


def alphabet_data(alphabet: str) -> str:
    """The path prefix of an alphabet's files: <prefix>.npz (theta) and <prefix>_alphabet.json."""
    return f"{RESULTS}/alphabets/{alphabet}"


def shokri_file(alphabet: str, Q: float) -> str:
    """The cached solution of Shokri et al.'s LP for one (alphabet, Q)."""
    return f"{RESULTS}/shokri/{alphabet}_Q{Q:g}.npz"


def experiments(config: Mapping[str, Any]) -> dict[str, Experiment]:
    """Every mechanism set as an experiment at the active scale: one point per n, every member at every point."""
    study, scale, found = study_config(config, STUDY), scale_config(config, STUDY), {}
    for name, spec in study["mechanism_sets"].items():
        chosen = set_members(config, name)
        found[name] = Experiment(
            study=STUDY, name=name, axis="n", members=tuple(chosen),
            points=tuple(Point(int(n), tuple(range(len(chosen))), int(n)) for n in scale["n"]),
            runs=int(scale["runs"]), families=tuple(spec["families"]), data=alphabet_data(spec["alphabet"]),
            labels=(("study", STUDY), ("mechanism_set", name), ("alphabet", spec["alphabet"])),
            shokri=tuple(shokri_file(spec["alphabet"], m.parameter) for m in chosen if m.kind == "shokri"),
            stopping=tuple(study["ibu"].items()))
    return found


def panels(config: Mapping[str, Any]) -> dict[str, str]:
    """Every panel of Figures 2-14 (figNN, or figNNa, figNNb, ... for several panels) -> its mechanism set."""
    found = {}
    for figure, spec in study_config(config, STUDY)["figures"].items():
        letters = [""] if len(spec["panels"]) == 1 else [chr(ord("a") + i) for i in range(len(spec["panels"]))]
        found |= {f"{figure}{letter}": name for letter, name in zip(letters, spec["panels"], strict=True)}
    return found


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: names that refer to other keys, the families every shown method needs, the
    scale's Shokri subsets and n. One line naming the key."""
    study, scale, key = study_config(config, STUDY), scale_config(config, STUDY), f"config key {STUDY}"
    sets = study["mechanism_sets"]
    for name, spec in sets.items():
        if spec["alphabet"] not in study["alphabets"]:
            raise ValueError(f"{key}.mechanism_sets.{name}.alphabet: no alphabet {spec['alphabet']!r}")
        if min(scale["n"]) < len(set_members(config, name)):
            raise ValueError(f"config key scales.{config['scale']}.{STUDY}.n: every n must be at least the "
                             f"{len(set_members(config, name))} mechanisms of {name}")
    for name in scale.get("shokri_Q", {}):
        if name not in sets:
            raise ValueError(f"config key scales.{config['scale']}.{STUDY}.shokri_Q: no mechanism set {name!r}")
    uses = [(f"figures.{f}", spec["panels"], spec["methods"]) for f, spec in study["figures"].items()]
    uses += [(f"tables.{t}", row["mechanism_sets"], [m for column in spec["columns"] for m in column["methods"]])
             for t, spec in study["tables"].items() for row in spec["rows"]]
    uses += [("propositions", [p["mechanism_set"]], [p["method"]]) for p in study["propositions"]]
    for where, names, methods in uses:
        for name in names:
            if name not in sets:
                raise ValueError(f"{key}.{where}: no mechanism set {name!r}")
        if where.startswith("tables"):
            continue  # a table cell takes the sets where its method ran
        for name in names:
            missing = {method_family(m) for m in methods} - set(sets[name]["families"])
            if missing:
                raise ValueError(f"{key}.{where}: {name} needs families {sorted(missing)} in its families")
    verdicts = [entry["verdict"] for entry in study["verdict"]]
    if any("max_ratio" not in entry for entry in study["verdict"][:-1]) or "max_ratio" in study["verdict"][-1]:
        raise ValueError(f"{key}.verdict: every entry but the last needs a max_ratio, and the last none")
    thresholds = [entry["verdict"] for entry in study["verdict"] if "max_ratio" in entry]
    if len(thresholds) != 2 or set(study["verdict_interval"]["thresholds"]) != set(thresholds):
        raise ValueError(f"{key}.verdict_interval.thresholds: needs one list for each of the two verdicts with a "
                         f"max_ratio ({', '.join(thresholds)})")
    for table, spec in study["tables"].items():
        for row in spec["rows"]:
            if len(row["paper"]) != len(spec["columns"]):
                raise ValueError(f"{key}.tables.{table}: row {row['label']!r} needs one paper verdict per column")
            unknown = {p.split(" (")[0].strip() for p in row["paper"]} - {*verdicts, "NA"}
            if unknown:
                raise ValueError(f"{key}.tables.{table}: row {row['label']!r}: paper verdicts {sorted(unknown)} are "
                                 f"not in {key}.verdict ({', '.join(verdicts)}) nor NA")
    if {int(t[5:]) for t in study["mechanism_tables"]} != {int(s["table"]) for s in sets.values()}:
        raise ValueError(f"{key}.mechanism_tables: needs one title per table of mechanism_sets")


def method_family(method: str) -> str:
    """The estimator family of the free-will study that computes ``method``."""
    for family in ("inv_r", "ibu_r", "rap_r", "inv_m", "ibu_m", "rap_m", "gibu"):
        if method in FAMILIES[family].methods:
            return family
    raise ValueError(f"unknown method {method!r}")


def alphabet(spec: Mapping[str, Any], region_theta: np.ndarray | None = None,
             region_alphabet: Mapping[str, Any] | None = None) -> tuple[dict, np.ndarray]:
    """An alphabet of the study (its file's content) from its config entry (free_will.alphabets.<name>), and its
    theta: Binomial(k-1, p) on {0..k-1}, or the check-in distribution of a region (``region_theta`` and
    ``region_alphabet``: the region's data files)."""
    if spec["kind"] == "linear":
        return ({"kind": "linear", "k": spec["k"], "label": f"X = {{0..{spec['k'] - 1}}}, Binomial theta"},
                binomial_theta(spec["k"], spec["binomial_p"]))
    if region_theta is None or region_alphabet is None:
        raise ValueError(f"a planar alphabet needs its region's theta and alphabet ({dict(spec)})")
    grid = dict(region_alphabet)
    grid["label"] = (f"{region_title(grid['region'])}, {grid['columns']} x {grid['rows']} cells of "
                     f"{grid['cell_km']:g} km, Gowalla theta")
    return grid, np.asarray(region_theta)


def _by_output(config_key: str, names: Sequence[str], outputs: Sequence[str]) -> list[str]:
    """The figure or table names of a rule's outputs (a pair of files each, in order), checked against the names the
    config gives them; one line naming the key where they differ."""
    stems = list(dict.fromkeys(PurePath(path).stem for path in outputs))
    if sorted(stems) != sorted(names):
        raise ValueError(f"config key {config_key}: gives {', '.join(sorted(names))}; the rule makes "
                         f"{', '.join(stems)}")
    return stems


def figure_panels(config: Mapping[str, Any], outputs: Sequence[str]) -> list[dict]:
    """Each panel of Figures 2-14 in the order of the rule's outputs: its name, figure, letter and mechanism set."""
    found = panels(config)
    return [{"panel": panel, "figure": panel[:5], "letter": panel[5:], "mechanism_set": found[panel]}
            for panel in _by_output(f"{STUDY}.figures", list(found), outputs)]


def mechanism_tables(config: Mapping[str, Any], outputs: Sequence[str]) -> list[dict]:
    """Tables 4-8 regenerated from the config's mechanism sets, in the order of the rule's outputs (a CSV and a
    markdown file each): {'table', 'rows', 'markdown'}."""
    study = study_config(config, STUDY)
    subsets = {name: [m.parameter for m in set_members(config, name) if m.kind == "shokri"]
               for name in study["mechanism_sets"]}
    subsets = {name: qs for name, qs in subsets.items() if qs}
    tables = []
    for table in _by_output(f"{STUDY}.mechanism_tables", list(study["mechanism_tables"]), outputs):
        rows = mechanism_table_rows(int(table[5:]), study["mechanism_sets"], subsets)
        markdown = mechanism_table_markdown(int(table[5:]), study["mechanism_tables"][table], rows)
        tables.append({"table": table, "rows": rows, "markdown": markdown})
    return tables


MECHANISM_TABLE_COLUMNS = ["table", "mechanism_set", "label", "alphabet", "index", "kind", "parameter", "value",
                           "used_at_this_scale"]


def members(spec: Mapping, shokri_Q: Sequence[float] | None = None) -> list[Member]:
    """The mechanisms of a set from its config entry {'mechanisms': [{'kind': k, 'eps': [...]} | {'kind': 'shokri',
    'Q': [...]}]}. ``shokri_Q`` keeps only those Q of the Shokri entries (a scale's subset); each must be listed."""
    result = []
    for entry in spec["mechanisms"]:
        kind = entry["kind"]
        values = [float(v) for v in (entry["Q"] if kind == "shokri" else entry["eps"])]
        if kind == "shokri" and shokri_Q is not None:
            missing = sorted(set(map(float, shokri_Q)) - set(values))
            if missing:
                raise ValueError(f"shokri_Q: {missing} are not Q values of the set ({values})")
            values = [v for v in values if v in set(map(float, shokri_Q))]
        result += [Member(kind, v) for v in values]
    if not result:
        raise ValueError("a mechanism set needs at least one mechanism")
    return result


def mechanism_table_rows(table: int, sets: Mapping[str, Mapping], subsets: Mapping[str, Sequence[float]]
                         ) -> list[dict]:
    """The rows of paper Table ``table`` (4-8) regenerated from the config's mechanism sets: one row per mechanism,
    with whether the active scale uses it (a scale may keep a subset of the Shokri Q)."""
    rows = []
    for name, spec in sets.items():
        if int(spec["table"]) != table:
            continue
        used = {(m.kind, m.parameter) for m in members(spec, subsets.get(name))}
        for i, m in enumerate(members(spec)):
            rows.append({"table": table, "mechanism_set": name, "label": spec["label"], "alphabet": spec["alphabet"],
                         "index": i + 1, "kind": m.kind, "parameter": m.symbol, "value": m.parameter,
                         "used_at_this_scale": (m.kind, m.parameter) in used})
    if not rows:
        raise ValueError(f"no mechanism set belongs to table {table}")
    return rows


def mechanism_table_markdown(table: int, title: str, rows: Sequence[Mapping]) -> str:
    """Markdown of a regenerated Table 4-8: per set and kind, the count and the parameter values (values the active
    scale leaves out are struck through)."""
    lines = [f"# Table {table}. {title}", "", "| set | alphabet | mechanisms | values |", "|---|---|---|---|"]
    for name in dict.fromkeys(r["mechanism_set"] for r in rows):
        mine = [r for r in rows if r["mechanism_set"] == name]
        for kind in dict.fromkeys(r["kind"] for r in mine):
            of_kind = [r for r in mine if r["kind"] == kind]
            values = ", ".join(f"{r['value']:g}" if r["used_at_this_scale"] else f"~~{r['value']:g}~~"
                               for r in of_kind)
            lines.append(f"| {of_kind[0]['label']} | {of_kind[0]['alphabet']} | {len(of_kind)} "
                         f"{KIND_NAMES.get(kind, kind)} | {of_kind[0]['parameter']}: {values} |")
    if any(not r["used_at_this_scale"] for r in rows):
        lines += ["", "Struck-through values are not used at this scale (config scales.<scale>.free_will.shokri_Q)."]
    return "\n".join(lines) + "\n"


# --- data -------------------------------------------------------------------------------------------------------------


def binomial_theta(k: int, p: float = 0.5) -> np.ndarray:
    """Binomial(k-1, p) on {0..k-1}: the linear theta of free-will sections 7, 8.1 and 8.3."""
    if k < 2 or not 0 < p < 1:
        raise ValueError(f"k must be at least 2 and p in (0, 1), got k={k}, p={p}")
    x = np.arange(k)
    log_pmf = np.array([math.lgamma(k) - math.lgamma(i + 1) - math.lgamma(k - i) for i in x])
    log_pmf += x * math.log(p) + (k - 1 - x) * math.log1p(-p)
    theta = np.exp(log_pmf)
    return theta / theta.sum()


def group_sizes(n: int, groups: int) -> np.ndarray:
    """Users per mechanism when n users are split as equally as possible (``perturb.split_users``)."""
    return np.full(groups, n // groups) + (np.arange(groups) < n % groups)


# --- Propositions 2 and 3 ---------------------------------------------------------------------------------------------


def krr_average_eps(eps: Sequence[float], users: Sequence[float], k: int) -> float:
    """eps[n] of eq. (8): 1/(k-1+e^eps[n]) is the user-weighted mean of 1/(k-1+e^eps_i)."""
    eps, users = np.asarray(eps, dtype=np.float64), np.asarray(users, dtype=np.float64)
    mean = users @ (1.0 / (k - 1 + np.exp(eps))) / users.sum()
    return float(np.log(1.0 / mean - (k - 1)))


def rappor_average_eps(eps: Sequence[float], users: Sequence[float]) -> float:
    """eps[n] of eq. (13): 1/(1+e^(eps[n]/2)) is the user-weighted mean of the flip probabilities 1/(1+e^(eps_i/2))."""
    users = np.asarray(users, dtype=np.float64)
    mean = users @ flip_probability(np.asarray(eps, dtype=np.float64)) / users.sum()
    return float(2 * np.log(1.0 / mean - 1))


def sampling_floor(theta: np.ndarray, n: float) -> float:
    """(1 - sum theta_x^2) / n: the expected l2^2 error of the empirical distribution of n unperturbed samples."""
    theta = np.asarray(theta, dtype=np.float64)
    return float((1 - theta @ theta) / n)


def proposition2_bound(theta: np.ndarray, eps_n: float, n: float) -> float:
    """Proposition 2: E||theta_hat - theta||^2 of [INV]_M under k-RR mechanisms is at most
    (1 - sum theta^2)/n + (k-1)/n (k + 2(e^eps[n] - 1)) / (e^eps[n] - 1)^2, with equality when all eps_i are equal."""
    k, a = len(theta), math.expm1(eps_n)
    return sampling_floor(theta, n) + (k - 1) / n * (k + 2 * a) / a**2


def proposition3_bound(theta: np.ndarray, eps_n: float, n: float) -> float:
    """Proposition 3: E||theta_hat - theta||^2 of [RAP]_M is at most (1 - sum theta^2)/n + (1/n) k e^(eps[n]/2) /
    (e^(eps[n]/2) - 1)^2, with equality when all eps_i are equal."""
    k, h = len(theta), math.exp(eps_n / 2)
    return sampling_floor(theta, n) + k * h / (n * (h - 1) ** 2)


def proposition_bound(proposition: int, theta: np.ndarray, set_members: Sequence[Member], n: int) -> dict:
    """The bound of Proposition 2 (k-RR set, [INV]_M) or 3 (RAPPOR set, [RAP]_M) for n users split equally over the
    set, with eps[n] and the sampling floor."""
    users = group_sizes(n, len(set_members))
    eps = [m.parameter for m in set_members]
    if proposition == 2:
        if any(m.kind != "krr" for m in set_members):
            raise ValueError("Proposition 2 needs a set of k-RR mechanisms")
        eps_n = krr_average_eps(eps, users, len(theta))
        bound = proposition2_bound(theta, eps_n, n)
    elif proposition == 3:
        if any(m.kind != "rappor" for m in set_members):
            raise ValueError("Proposition 3 needs a set of RAPPOR mechanisms")
        eps_n = rappor_average_eps(eps, users)
        bound = proposition3_bound(theta, eps_n, n)
    else:
        raise ValueError(f"proposition must be 2 or 3, got {proposition}")
    return {"eps_n": eps_n, "bound": bound, "floor": sampling_floor(theta, n)}


# --- the non-informative example of eq. (11) --------------------------------------------------------------------------


def noninformative_estimates(mechanisms: Sequence[np.ndarray], counts: np.ndarray, stopping: Mapping
                             ) -> dict[str, list[np.ndarray]]:
    """[IBU]_M, GIBU and [INV]_M (projected; NaN when A[n] is singular) on the counts (runs, M, m) of eq. (11)'s
    population. With half the users on A and half on A', A[n] has uniform rows: [IBU]_M cannot move from its start."""
    counts = np.asarray(counts, dtype=np.float64)
    users = counts.sum(axis=2)[0]
    matrices = [np.asarray(A, dtype=np.float64) for A in mechanisms]
    ibu_m = estimators.ibu_runs(average(matrices, users), counts.sum(axis=1), **stopping)
    gibu = gibu_matrix_runs(matrices, counts, **stopping)
    inv = []
    for run in counts:
        try:
            inv.append(estimators.inv_m(matrices, list(run), post="projection"))
        except ValueError:
            inv.append(np.full(matrices[0].shape[0], np.nan))
    return {"[IBU]_M": [r.theta for r in ibu_m], "GIBU": [r.theta for r in gibu], "[INV]_M-P": inv}


SHOKRI_SOLVER_MODULES = ("privest.shokri", "privest.lp")


def shokri_solver() -> dict[str, str]:
    """What a cached Shokri LP depends on beyond its alphabet and Q: the sha256 of the source of privest's LP code and
    HiGHS's version (the LP is degenerate: another solver or version may pick another optimal mechanism). Rule
    fw_shokri takes it as params, so a change of either reruns the LPs, and moving or cloning the checkout does not
    (an input path of the source would be absolute, and new)."""
    identity = {module: file_digests(importlib.util.find_spec(module).origin)["sha256"]
                for module in SHOKRI_SOLVER_MODULES}
    return identity | {"highspy": importlib.metadata.version("highspy")}
