"""The IBU consistency paper, section 7: IBU against INV-N and INV-P on Adult ages, Gowalla locations and synthetic
RAPPOR data, as experiments of the one chain (``privest_studies.experiment``): one mechanism per eps point.

Config: ``ibu_consistency`` (experiments, figures, synthetic datasets) and ``scales.<scale>.ibu_consistency`` (eps
grids, runs, users). Every function takes the whole config and fails with one line naming the key.
"""

import math
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

import numpy as np

from privest_studies import tables
from privest_studies.configuration import scale_config, study_config
from privest_studies.experiment import Experiment, Member, Point

STUDY = "ibu_consistency"
RESULTS = f"results/{STUDY}"
FAMILIES_OF = {"rappor": ("rap", "ibu")}
"""The estimator families each mechanism allows: RAPPOR's own estimator and IBU; every other (a matrix) inv and ibu."""
MATRIX_FAMILIES = ("inv", "ibu")
FIGURE_11_PANELS = 2  # IBU's estimate for the binomial and the uniform synthetic theta


def datasets(config: Mapping[str, Any]) -> dict[str, str]:
    """Dataset name -> the path prefix of its files (<prefix>.npz, <prefix>_alphabet.json): the Adult ages, the
    check-ins of the planar region, and the synthetic datasets."""
    return {"ages": "results/data/ages", "planar": "results/data/checkins_planar"} | {
        name: f"{RESULTS}/data/{name}" for name in study_config(config, STUDY)["synthetic"]}


def eps_grid(config: Mapping[str, Any], experiment: str) -> list[float]:
    """The eps grid of an experiment at the active scale."""
    grid = study_config(config, STUDY)["experiments"][experiment]["eps_grid"]
    return [float(e) for e in scale_config(config, STUDY)[grid]]


def users(config: Mapping[str, Any], experiment: str) -> int | None:
    """Users per run: the dataset's own (None) for ages and planar, else drawn i.i.d. from the synthetic theta."""
    study = study_config(config, STUDY)
    synthetic = study["experiments"][experiment]["data"] in study["synthetic"]
    return int(scale_config(config, STUDY)["synthetic_users"]) if synthetic else None


def experiments(config: Mapping[str, Any]) -> dict[str, Experiment]:
    """Every experiment of the study at the active scale, in config order."""
    study, scale, found = study_config(config, STUDY), scale_config(config, STUDY), {}
    for name, spec in study["experiments"].items():
        grid = eps_grid(config, name)
        found[name] = Experiment(
            study=STUDY, name=name, axis="eps", members=tuple(Member(spec["mechanism"], e) for e in grid),
            points=tuple(Point(e, (i,), users(config, name)) for i, e in enumerate(grid)),
            runs=int(scale["runs"]), families=tuple(spec["families"]), data=datasets(config)[spec["data"]],
            labels=(("study", STUDY), ("experiment", name), ("mechanism", spec["mechanism"])),
            score_against="users" if users(config, name) else "theta", score_noisy=True,
            stopping=tuple(study["ibu"].items()))
    return found


def figure_points(config: Mapping[str, Any]) -> dict[str, list[dict]]:
    """The (experiment, eps) of each figure that shows single runs: Figures 1, 8 and 11."""
    study = study_config(config, STUDY)
    return {"fig01": [study["fig01"]], "fig08": [study["fig08"]]} | {
        "fig11": [{"experiment": name, "eps": study["fig11"]["eps"]} for name in study["fig11"]["experiments"]]}


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: names that refer to other keys, families that fit the mechanism, and the eps each
    figure shows present in its experiment's grid at the active scale. One line naming the key."""
    study, scale = study_config(config, STUDY), scale_config(config, STUDY)
    for name, spec in study["experiments"].items():
        key = f"config key {STUDY}.experiments.{name}"
        if spec["data"] not in datasets(config):
            raise ValueError(f"{key}.data: {spec['data']!r} is not ages, planar or a name in {STUDY}.synthetic")
        allowed = FAMILIES_OF.get(spec["mechanism"], MATRIX_FAMILIES)
        if not set(spec["families"]) <= set(allowed):
            raise ValueError(f"{key}.families: {spec['mechanism']} takes {list(allowed)}, got {spec['families']}")
        if spec["eps_grid"] not in scale:
            raise ValueError(f"{key}.eps_grid: no {spec['eps_grid']} in scales.{config['scale']}.{STUDY}")
    if len(study["fig11"]["experiments"]) != FIGURE_11_PANELS:
        raise ValueError(f"config key {STUDY}.fig11.experiments: Figure 11 has {FIGURE_11_PANELS} panels, got "
                         f"{len(study['fig11']['experiments'])} experiments")
    boxplots = [("boxplots", [{"experiment": name}]) for name in study["boxplots"].values()]
    for figure, points in [*figure_points(config).items(), *boxplots]:
        for point in points:
            if point["experiment"] not in study["experiments"]:
                raise ValueError(f"config key {STUDY}.{figure}: no experiment {point['experiment']!r}")
            if "eps" in point and point["eps"] not in eps_grid(config, point["experiment"]):
                raise ValueError(f"config key {STUDY}.{figure}.eps: {point['eps']} is not in the grid of "
                                 f"{point['experiment']} at scale {config['scale']}")
    check_theory(config)


def boxplot_panels(config: Mapping[str, Any], outputs: Sequence[str]) -> list[dict]:
    """What the boxplot job needs of each panel of Figures 9, 10 and 12, in the order of the rule's outputs (a pdf and
    a png per panel); one line naming the key where config ibu_consistency.boxplots and the figures disagree."""
    study = study_config(config, STUDY)
    figures = [PurePath(path).stem for path in outputs[::2]]
    extra = sorted(set(study["boxplots"]) - set(figures))
    missing = sorted(set(figures) - set(study["boxplots"]))
    if extra or missing:
        raise ValueError(f"config key {STUDY}.boxplots: needs an experiment for each of {', '.join(figures)}"
                         + (f"; missing {missing}" if missing else "") + (f"; not a panel: {extra}" if extra else ""))
    panels = []
    for figure in figures:
        name = study["boxplots"][figure]
        data = study["experiments"][name]["data"]
        panels.append({"figure": figure, "experiment": name, "data": data,
                       "alphabet": f"{datasets(config)[data]}_alphabet.json",
                       "mechanism": study["experiments"][name]["mechanism"], "users": users(config, name)})
    return panels


def published_region(config: Mapping[str, Any]) -> dict:
    """The grid of the paper's Figure 8 region as an alphabet file states it (region name, columns, rows, cell_km)."""
    name = study_config(config, STUDY)["fig08"]["published_region"]
    return {"region": name} | config["regions"][name]


def synthetic_theta(spec: Mapping[str, Any]) -> np.ndarray:
    """A synthetic theta on {0..k-1} from its config spec: {'k', 'binomial_p'} is Binomial(k-1, p); {'k',
    'uniform': [a, b]} is uniform on {a..b} and 0 elsewhere (IBU paper section 7.5)."""
    k = int(spec["k"])
    if "binomial_p" in spec:
        p = float(spec["binomial_p"])
        theta = np.array([math.comb(k - 1, x) * p**x * (1 - p) ** (k - 1 - x) for x in range(k)])
    elif "uniform" in spec:
        low, high = map(int, spec["uniform"])
        if not 0 <= low <= high < k:
            raise ValueError(f"uniform must be [a, b] with 0 <= a <= b < k = {k}, got {spec['uniform']}")
        theta = ((np.arange(k) >= low) & (np.arange(k) <= high)).astype(np.float64)
    else:
        raise ValueError(f"a synthetic theta needs binomial_p or uniform, got keys {sorted(spec)}")
    return theta / theta.sum()


def synthetic_label(spec: Mapping[str, Any]) -> str:
    """How figures name a synthetic theta: 'Binomial(9, 0.5)' or 'uniform on {3..6}'."""
    if "binomial_p" in spec:
        return f"Binomial({int(spec['k']) - 1}, {float(spec['binomial_p']):g})"
    low, high = map(int, spec["uniform"])
    return f"uniform on {{{low}..{high}}}"


def synthetic_alphabet(spec: Mapping[str, Any]) -> dict:
    """The alphabet file of a synthetic dataset: the linear range {0..k-1} and its theta's label."""
    return {"kind": "linear", "k": int(spec["k"]), "label": synthetic_label(spec)}


# --- the theoretical parts (sections 4, 5, 6.4, 7.6 and 8; workflow/rules/ibu_theory.smk) ----------------------------

LIKELY_CASES = ("linear", "planar", "krr")
"""The cases of section 8: Adult ages under the untruncated geometric mechanism, check-ins under the untruncated
planar geometric mechanism, Adult ages under k-RR."""
FIGURE_6_PANELS = 4  # the original distribution, then three of IBU's fixed points


def check_theory(config: Mapping[str, Any]) -> None:
    """What the schema cannot say of the theoretical parts: stochastic mechanisms, n within range, cells that merge,
    the panels of Figure 6. One line naming the key."""
    theory, key = study_config(config, STUDY)["theory"], f"config key {STUDY}.theory"
    for figure, spec in theory["surfaces"].items():
        if not np.allclose(np.sum(spec["mechanism"], axis=1), 1.0, rtol=0, atol=1e-9):
            raise ValueError(f"{key}.surfaces.{figure}.mechanism: every row must sum to 1")
    fig04 = theory["fig04"]
    if fig04["n_max"] < fig04["k"] or max(fig04["n"]) > fig04["n_max"]:
        raise ValueError(f"{key}.fig04: need k <= n_max and every n <= n_max")
    if theory["fig06"]["shown"] != FIGURE_6_PANELS - 1:
        raise ValueError(f"{key}.fig06.shown: Figure 6 shows the original and {FIGURE_6_PANELS - 1} fixed points")
    planar = theory["section8"]["planar"]
    factor = planar["cell_km"] / config["regions"][planar["region"]]["cell_km"]
    if abs(factor - round(factor)) > 1e-9 or round(factor) < 1:
        raise ValueError(f"{key}.section8.planar.cell_km: must be a whole multiple of the region's cell_km")


def surface_panels(config: Mapping[str, Any], outputs: Sequence[str]) -> list[dict]:
    """Each panel of Figures 3 and 5 in the order of the rule's outputs (a pdf and a png each): figure, letter,
    equation, mechanism and observed values; one line naming the key where the config and the figures disagree."""
    surfaces, panels = study_config(config, STUDY)["theory"]["surfaces"], []
    configured = {f"{figure}{letter}" for figure, spec in surfaces.items() for letter in spec["panels"]}
    names = [PurePath(path).stem for path in outputs[::2]]
    if set(names) != configured:
        raise ValueError(f"config key {STUDY}.theory.surfaces: gives panels {sorted(configured)}; the figures are "
                         f"{', '.join(names)}")
    for name in names:
        spec = surfaces[name[:5]]
        panels.append({"figure": name[:5], "letter": name[5:], "equation": spec["equation"],
                       "mechanism": spec["mechanism"], "observed": spec["panels"][name[5:]]})
    return panels


def likely_inputs(config: Mapping[str, Any], case: str) -> dict[str, str]:
    """The dataset of a section 8 case: the Adult ages (linear, krr) or the check-ins of the planar case's region."""
    if case == "planar":
        prefix = f"results/data/checkins_{study_config(config, STUDY)['theory']['section8']['planar']['region']}"
        return {"data": f"{prefix}.npz", "alphabet": f"{prefix}_alphabet.json"}
    return {"data": "results/data/ages.npz"}


def likely_settings(config: Mapping[str, Any]) -> dict:
    """Section 8's stopping rules: delta and the accelerated run's from the config, IBU's cap from the scale."""
    max_iter = scale_config(config, STUDY)["theory"]["section8_max_iter"]
    return study_config(config, STUDY)["theory"]["section8"] | {"max_iter": max_iter}


LIKELY_COLUMNS = ["case", "mechanism", "eps", "users", "alphabet_size", "observed_values", "likely_size",
                  "strictly_concave_on_subset", "algorithm", "full_cpu_seconds", "likely_cpu_seconds",
                  "subset_cpu_seconds", "speedup", "full_iterations", "likely_iterations", "full_capped",
                  "likely_capped", "max_abs_difference", "full_mass_outside", "full_gap", "likely_gap"]


def likely_table_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """Section 8's table as markdown, with the columns a reader needs and what they mean."""
    return ("# IBU paper, section 8: IBU on a likely subset against IBU on the whole alphabet\n\n"
            "Seconds are CPU seconds of the job's process (wall seconds in the CSV); likely_cpu_seconds excludes, "
            "speedup includes, the seconds to compute the subset (subset_cpu_seconds). "
            "max_abs_difference: the largest difference between the two estimates over the whole alphabet (the "
            "subset's estimate padded with zeros); full_mass_outside: the whole-alphabet estimate's mass outside the "
            "subset (0 at an MLE: the lemma of section 8.1). full_gap, likely_gap: duality gaps on the whole "
            "alphabet, upper bounds on how far below the maximum normalised log-likelihood each estimate is. Where the "
            "log-likelihood is not "
            "strictly concave on the subset (fewer observed values than subset elements), the MLE is not unique: "
            "both estimates are MLEs (gaps), and their agreement shows IBU takes the same path on both alphabets.\n\n"
            + tables.markdown_table(rows, LIKELY_COLUMNS))
