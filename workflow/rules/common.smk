"""Configuration checked before any job runs, the active scale, and helpers shared by the rule files."""

import os

import time

import jsonschema
import numpy as np
import yaml
from snakemake.utils import validate

import privest.alphabets
import privest.mechanisms
import privest_studies.experiment
import privest_studies.files
import privest_studies.regions
import privest_studies.tables


def _check_config(config: dict, schema_path: str) -> None:
    """Fail before any job runs, with one line naming the first bad key (jsonschema's own message otherwise)."""
    with open(schema_path) as f:
        schema = yaml.safe_load(f)
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(config))
    if error is not None:
        key = ".".join(map(str, error.absolute_path)) or "(top level)"
        raise ValueError(f"config key {key}: {error.message}")


_check_config(config, os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml"))
validate(config, "../schemas/config.schema.yaml")

SCALE = config["scales"][config["scale"]]
SEED = config["seed"]


def run_in_process(log, fn, *args) -> None:
    """Run a light step inside Snakemake's own process (no interpreter start-up, nothing to import), logging its
    seconds like privest_studies.jobs does for scripts: start-up 0."""
    started = time.perf_counter()
    fn(*args)
    privest_studies.files.write_text(log[0], f"startup_seconds 0.000\nwork_seconds {time.perf_counter() - started:.3f}\n")


def build_mechanisms(alphabet_path: str, kind: str, eps: list[float], target: str) -> None:
    """The matrices of one mechanism on an alphabet, one per eps, into an npz with arrays A (eps, k, m), eps and k.
    RAPPOR has no matrix (NOTES 2: never build its 2^k columns): its npz holds eps and k only."""
    alphabet = privest.alphabets.Alphabet.from_dict(privest_studies.files.load_json(alphabet_path))
    arrays = {"eps": np.array(eps, dtype=np.float64), "k": np.int64(alphabet.k)}
    if kind != "rappor":
        arrays["A"] = np.stack([privest.mechanisms.by_name(kind, alphabet, e) for e in eps])
    privest_studies.files.save_npz(target, **arrays)


# The IBU consistency study (workflow/rules/ibu_consistency.smk).

IBU = config["ibu_consistency"]
IBU_SCALE = SCALE["ibu_consistency"]
IBU_EXPERIMENTS = IBU["experiments"]
IBU_DIR = "results/ibu_consistency"
DATASET = {"ages": "results/data/ages", "planar": "results/data/checkins_planar"} | {
    name: f"{IBU_DIR}/data/{name}" for name in IBU["synthetic"]
}
IBU_FAMILIES = {"rappor": ["rap", "ibu"]}  # every other mechanism is a matrix: ["inv", "ibu"]
IBU_FIGURE_EXPERIMENTS = {"fig01": [IBU["fig01"]], "fig08": [IBU["fig08"]]} | {
    "fig11": [{"experiment": name, "eps": IBU["fig11"]["eps"]} for name in IBU["fig11"]["experiments"]]
}


def _check_ibu_consistency() -> None:
    """What the schema cannot say: names that refer to other keys, families that fit the mechanism, and the eps each
    figure shows present in its experiment's grid at the active scale. One line naming the key."""
    for name, spec in IBU_EXPERIMENTS.items():
        key = f"config key ibu_consistency.experiments.{name}"
        if spec["data"] not in DATASET:
            raise ValueError(f"{key}.data: {spec['data']!r} is not ages, planar or a name in ibu_consistency.synthetic")
        allowed = IBU_FAMILIES.get(spec["mechanism"], ["inv", "ibu"])
        if not set(spec["families"]) <= set(allowed):
            raise ValueError(f"{key}.families: {spec['mechanism']} takes {allowed}, got {spec['families']}")
        if spec["eps_grid"] not in IBU_SCALE:
            raise ValueError(f"{key}.eps_grid: no {spec['eps_grid']} in scales.{config['scale']}.ibu_consistency")
    boxplots = [("boxplots", [{"experiment": name}]) for name in IBU["boxplots"].values()]
    for figure, points in [*IBU_FIGURE_EXPERIMENTS.items(), *boxplots]:
        for point in points:
            if point["experiment"] not in IBU_EXPERIMENTS:
                raise ValueError(f"config key ibu_consistency.{figure}: no experiment {point['experiment']!r}")
            if "eps" in point and point["eps"] not in ibu_eps(point["experiment"]):
                raise ValueError(f"config key ibu_consistency.{figure}.eps: {point['eps']} is not in the grid of "
                                 f"{point['experiment']} at scale {config['scale']}")


def ibu_eps(experiment: str) -> list[float]:
    """The eps grid of an experiment at the active scale."""
    return [float(e) for e in IBU_SCALE[IBU_EXPERIMENTS[experiment]["eps_grid"]]]


def ibu_data(experiment: str) -> str:
    """The path prefix of an experiment's dataset (<prefix>.npz, <prefix>_alphabet.json)."""
    return DATASET[IBU_EXPERIMENTS[experiment]["data"]]


def ibu_users(experiment: str) -> int | None:
    """Users per run: the dataset's own (None) for ages and planar, else drawn i.i.d. from the synthetic theta."""
    return IBU_SCALE["synthetic_users"] if IBU_EXPERIMENTS[experiment]["data"] in IBU["synthetic"] else None


def ibu_boxplot_panels() -> list[dict]:
    """What the boxplot job needs of each panel of Figures 9, 10 and 12, in config order."""
    return [{"figure": figure, "experiment": name, "data": IBU_EXPERIMENTS[name]["data"],
             "mechanism": IBU_EXPERIMENTS[name]["mechanism"], "users": ibu_users(name)}
            for figure, name in IBU["boxplots"].items()]


def ibu_experiment_files(figure: str, *names: str) -> list[str]:
    """Files (reports.npz, estimates_ibu.npz, ...) of each experiment a figure shows, in the figure's order."""
    return [f"{IBU_DIR}/{point['experiment']}/{name}" for name in names for point in IBU_FIGURE_EXPERIMENTS[figure]]


def ibu_data_files(figure: str, suffix: str) -> list[str]:
    """A file (.npz or _alphabet.json) of the dataset of each experiment a figure shows, in the figure's order."""
    return [ibu_data(point["experiment"]) + suffix for point in IBU_FIGURE_EXPERIMENTS[figure]]


def ibu_published_region() -> dict:
    """The grid of the paper's Figure 8 region as an alphabet file states it (region name, columns, rows, cell_km)."""
    name = IBU["fig08"]["published_region"]
    return {"region": name} | config["regions"][name]


def build_synthetic(spec: dict, target_data: str, target_alphabet: str) -> None:
    """A synthetic dataset: theta on {0..k-1} (no users: every run draws its own) and its linear alphabet."""
    privest_studies.files.save_npz(target_data, theta=privest_studies.experiment.synthetic_theta(spec))
    label = privest_studies.experiment.synthetic_label(spec)
    privest_studies.files.save_json(target_alphabet, {"kind": "linear", "k": spec["k"], "label": label})


def estimate_in_process(mechanisms_path: str, reports_path: str, family: str, stopping: dict, runs: int,
                        target: str) -> None:
    """A light estimator family (inv: one factorisation per eps; rap: bit sums) on every eps and run, in-process:
    a fraction of a second at the quick scale, seconds at the paper scale (scripts/estimate.py does IBU)."""
    estimates = privest_studies.experiment.estimate_experiment(
        family, privest_studies.files.load_npz(mechanisms_path), privest_studies.files.load_npz(reports_path), stopping, runs
    )
    privest_studies.files.save_npz(target, **estimates)


_check_ibu_consistency()


def ibu_consistency_targets() -> list[str]:
    """Every output of the study at the active scale."""
    figures = [f"fig01{panel}" for panel in "abc"] + list(IBU["boxplots"]) + ["fig07"]
    figures += [f"fig08{panel}" for panel in "abcde"]
    figures += [f"fig11{chr(ord('a') + i)}" for i in range(len(IBU["fig11"]["experiments"]))]
    return [f"{IBU_DIR}/figures/{name}.{ext}" for name in figures for ext in ("pdf", "png")] + [
        f"{IBU_DIR}/tables/{name}" for name in ("scores.csv", "fig08_emd.csv", "fig08_emd.md")
    ]


# The constrained counts study (workflow/rules/constrained_counts.smk).

COUNTS = config["constrained_counts"]
COUNTS_SCALE = SCALE["constrained_counts"]
COUNTS_DIR = "results/constrained_counts"
COUNTS_FIGURES = ["fig01", "fig02", "fig03", "fig04", "fig06", "fig07", "fig08a", "fig08b", "fig10", "fig11", "fig12",
                  "fig13"] + [f"fig09{chr(ord('a') + i)}" for i in range(len(COUNTS["fig09"]["alpha"]))]
COUNTS_TABLES = ["fig05_flowchart.csv", "fig05_flowchart.md", "fig06_properties.csv", "fig06_properties.md",
                 "published.csv", "published.md"]


def counts_pairs() -> list[list]:
    """Every (n, alpha) whose GM, WM, EM and UM Figures 7 and 10-13 use, sorted, each once."""
    pairs = {(COUNTS["fig07"]["n"], COUNTS["fig07"]["alpha"])}
    pairs |= {(n, COUNTS["adult"]["alpha"]) for n in COUNTS_SCALE["adult"]["n"]}
    pairs |= {(n, a) for n in COUNTS["fig11"]["n"] for a in COUNTS["fig11"]["alpha"]}
    pairs |= {(COUNTS["fig12"]["n"], a) for a in COUNTS["fig12"]["alpha"]}
    pairs |= {(n, a) for n in COUNTS_SCALE["synthetic"]["n"] for a in COUNTS["fig13"]["alpha"]}
    return [[int(n), float(a)] for n, a in sorted(pairs)]


def counts_synthetic_design(wildcards) -> dict:
    """The points (alpha, n, p) of one synthetic figure and the metrics scored at each: L0,d for every d of `ds`,
    and the RMSE when `rmse` (Figures 11-13)."""
    p_grid = COUNTS_SCALE["synthetic"]["p"]
    if wildcards.synthetic == "fig11":
        spec = COUNTS["fig11"]
        points = [[a, n, p] for a in spec["alpha"] for n in spec["n"] for p in p_grid]
        return {"points": points, "ds": [spec["d"]], "rmse": False}
    if wildcards.synthetic == "fig12":
        spec = COUNTS["fig12"]
        points = [[a, spec["n"], p] for p in spec["p"] for a in spec["alpha"]]
        return {"points": points, "ds": list(range(spec["n"])), "rmse": False}
    spec = COUNTS["fig13"]
    points = [[a, n, p] for a in spec["alpha"] for p in spec["p"] for n in COUNTS_SCALE["synthetic"]["n"]]
    return {"points": points, "ds": [], "rmse": True}


def constrained_counts_targets() -> list[str]:
    """Every output of the study at the active scale."""
    return [f"{COUNTS_DIR}/figures/{name}.{ext}" for name in COUNTS_FIGURES for ext in ("pdf", "png")] + [
        f"{COUNTS_DIR}/tables/{name}" for name in COUNTS_TABLES
    ]


# The free-will study (workflow/rules/free_will.smk).

import privest_studies.free_will

FW = config["free_will"]
FW_SCALE = SCALE["free_will"]
FW_SETS = FW["mechanism_sets"]
FW_DIR = "results/free_will"
FW_EXTRA_FIGURES = ["eq11_noninformative", "propositions"]


def fw_members(mechanism_set: str) -> list:
    """The mechanisms of a set at the active scale (Table 4-8 entries; a scale may keep a subset of Shokri Q)."""
    return privest_studies.free_will.members(FW_SETS[mechanism_set], FW_SCALE.get("shokri_Q", {}).get(mechanism_set))


def fw_panels() -> dict[str, str]:
    """Every panel of Figures 2-14 (figNN, or figNNa, figNNb, ... for several panels) -> its mechanism set."""
    panels = {}
    for figure, spec in FW["figures"].items():
        letters = [""] if len(spec["panels"]) == 1 else [chr(ord("a") + i) for i in range(len(spec["panels"]))]
        panels |= {f"{figure}{letter}": name for letter, name in zip(letters, spec["panels"], strict=True)}
    return panels


def _check_free_will() -> None:
    """What the schema cannot say: names that refer to other keys, the families every shown method needs, the
    scale's Shokri subsets and n. One line naming the key."""
    key = "config key free_will"
    for name, spec in FW_SETS.items():
        if spec["alphabet"] not in FW["alphabets"]:
            raise ValueError(f"{key}.mechanism_sets.{name}.alphabet: no alphabet {spec['alphabet']!r}")
        if min(FW_SCALE["n"]) < len(fw_members(name)):
            raise ValueError(f"config key scales.{config['scale']}.free_will.n: every n must be at least the "
                             f"{len(fw_members(name))} mechanisms of {name}")
    for name in FW_SCALE.get("shokri_Q", {}):
        if name not in FW_SETS:
            raise ValueError(f"config key scales.{config['scale']}.free_will.shokri_Q: no mechanism set {name!r}")
    uses = [(f"figures.{f}", spec["panels"], spec["methods"]) for f, spec in FW["figures"].items()]
    uses += [(f"tables.{t}", row["mechanism_sets"], [m for column in spec["columns"] for m in column["methods"]])
             for t, spec in FW["tables"].items() for row in spec["rows"]]
    uses += [("propositions", [p["mechanism_set"]], [p["method"]]) for p in FW["propositions"]]
    for where, sets, methods in uses:
        for name in sets:
            if name not in FW_SETS:
                raise ValueError(f"{key}.{where}: no mechanism set {name!r}")
        if where.startswith("tables"):
            continue  # a table cell takes the sets where its method ran
        for name in sets:
            missing = {privest_studies.free_will.method_family(m) for m in methods} - set(FW_SETS[name]["families"])
            if missing:
                raise ValueError(f"{key}.{where}: {name} needs families {sorted(missing)} in its families")
    for table, spec in FW["tables"].items():
        for row in spec["rows"]:
            if len(row["paper"]) != len(spec["columns"]):
                raise ValueError(f"{key}.tables.{table}: row {row['label']!r} needs one paper verdict per column")
    if {int(t[5:]) for t in FW["mechanism_tables"]} != {int(s["table"]) for s in FW_SETS.values()}:
        raise ValueError(f"{key}.mechanism_tables: needs one title per table of mechanism_sets")


_check_free_will()


def fw_alphabet_inputs(wildcards) -> dict[str, str]:
    """The check-ins of a planar alphabet's region (nothing for a linear alphabet)."""
    spec = FW["alphabets"][wildcards.alphabet]
    if spec["kind"] == "linear":
        return {}
    prefix = f"results/data/checkins_{spec['region']}"
    return {"data": f"{prefix}.npz", "alphabet": f"{prefix}_alphabet.json"}


def build_fw_alphabet(name: str, inputs, target_alphabet: str, target_theta: str) -> None:
    """An alphabet of the study and its theta: Binomial(k-1, p) on {0..k-1}, or a region's check-in distribution."""
    spec = FW["alphabets"][name]
    if spec["kind"] == "linear":
        theta = privest_studies.free_will.binomial_theta(spec["k"], spec["binomial_p"])
        alphabet = {"kind": "linear", "k": spec["k"], "label": f"X = {{0..{spec['k'] - 1}}}, Binomial theta"}
    else:
        theta = privest_studies.files.load_npz(inputs["data"])["theta"]
        alphabet = privest_studies.files.load_json(inputs["alphabet"])
        alphabet["label"] = (f"{privest_studies.regions.region_title(alphabet['region'])}, {alphabet['columns']} x "
                             f"{alphabet['rows']} cells of {alphabet['cell_km']:g} km, Gowalla theta")
    privest_studies.files.save_json(target_alphabet, alphabet)
    privest_studies.files.save_npz(target_theta, theta=theta)


def fw_shokri_files(wildcards) -> list[str]:
    """The cached Shokri matrices a set needs at the active scale."""
    alphabet = FW_SETS[wildcards.mechanism_set]["alphabet"]
    return [f"{FW_DIR}/shokri/{alphabet}_Q{m.parameter:g}.npz" for m in fw_members(wildcards.mechanism_set)
            if m.kind == "shokri"]


def build_fw_mechanisms(name: str, alphabet_path: str, shokri_paths: list[str], target: str) -> None:
    """The mechanisms of a set into an npz (kinds, parameters, k, and the matrices A unless RAPPOR)."""
    alphabet = privest.alphabets.Alphabet.from_dict(privest_studies.files.load_json(alphabet_path))
    shokri = {float(a["Q"]): a["A"] for a in map(privest_studies.files.load_npz, shokri_paths)}
    members = fw_members(name)
    privest_studies.files.save_npz(target, **privest_studies.free_will.to_arrays(members,
                                                              privest_studies.free_will.build(members, alphabet, shokri)))


def build_fw_mechanism_tables(targets: list[str]) -> None:
    """Tables 4-8 regenerated from the config's mechanism sets: CSV and markdown each."""
    subsets = {name: [m.parameter for m in fw_members(name) if m.kind == "shokri"] for name in FW_SETS}
    subsets = {name: qs for name, qs in subsets.items() if qs}
    paths = iter(targets)
    columns = ["table", "mechanism_set", "label", "alphabet", "index", "kind", "parameter", "value",
               "used_at_this_scale"]
    for table, title in sorted(FW["mechanism_tables"].items()):
        rows = privest_studies.free_will.mechanism_table_rows(int(table[5:]), FW_SETS, subsets)
        privest_studies.files.save_rows(rows, columns, next(paths))
        privest_studies.files.write_text(next(paths), privest_studies.free_will.mechanism_table_markdown(int(table[5:]), title, rows))


def fw_mechanism_table_files() -> list[str]:
    return [f"{FW_DIR}/tables/{table}.{ext}" for table in sorted(FW["mechanism_tables"]) for ext in ("csv", "md")]


def fw_figure_files() -> list[str]:
    return [f"{FW_DIR}/figures/{panel}.{ext}" for panel in fw_panels() for ext in ("pdf", "png")]


def free_will_targets() -> list[str]:
    """Every output of the study at the active scale."""
    tables = [f"{FW_DIR}/tables/{name}.{ext}" for name in ("table01", "table02", "findings") for ext in ("csv", "md")]
    tables += [f"{FW_DIR}/tables/{name}.csv" for name in ("scores", "summary", "propositions", "eq11_noninformative")]
    extra = [f"{FW_DIR}/figures/{name}.{ext}" for name in FW_EXTRA_FIGURES for ext in ("pdf", "png")]
    return fw_figure_files() + extra + tables + fw_mechanism_table_files()


# The theoretical parts of the IBU consistency study (workflow/rules/ibu_theory.smk).


THEORY = IBU["theory"]
THEORY_SCALE = IBU_SCALE["theory"]
THEORY_CASES = ["linear", "planar", "krr"]
THEORY_SETTINGS = THEORY["section8"] | {"max_iter": THEORY_SCALE["section8_max_iter"]}


def _check_ibu_theory() -> None:
    """What the schema cannot say: stochastic mechanisms, n within range, cells that merge. One line naming the key."""
    key = "config key ibu_consistency.theory"
    for figure, spec in THEORY["surfaces"].items():
        if not np.allclose(np.sum(spec["mechanism"], axis=1), 1.0, rtol=0, atol=1e-9):
            raise ValueError(f"{key}.surfaces.{figure}.mechanism: every row must sum to 1")
    fig04 = THEORY["fig04"]
    if fig04["n_max"] < fig04["k"] or max(fig04["n"]) > fig04["n_max"]:
        raise ValueError(f"{key}.fig04: need k <= n_max and every n <= n_max")
    planar = THEORY["section8"]["planar"]
    factor = planar["cell_km"] / config["regions"][planar["region"]]["cell_km"]
    if abs(factor - round(factor)) > 1e-9 or round(factor) < 1:
        raise ValueError(f"{key}.section8.planar.cell_km: must be a whole multiple of the region's cell_km")


_check_ibu_theory()


def theory_surface_figures() -> list[str]:
    """Figures 3 and 5: one file pair per (figure, panel) of the config, in the config's order."""
    return [f"{IBU_DIR}/figures/{figure}{panel}.{ext}" for figure, spec in THEORY["surfaces"].items()
            for panel in spec["panels"] for ext in ("pdf", "png")]


def theory_fig06_figures() -> list[str]:
    """Figure 6: (a) the original distribution, then one panel per fixed point shown."""
    return [f"{IBU_DIR}/figures/fig06{panel}.{ext}" for panel in "abcd"[:THEORY["fig06"]["shown"] + 1]
            for ext in ("pdf", "png")]


def theory_likely_inputs(wildcards) -> dict[str, str]:
    """The dataset of a section 8 case: the Adult ages (linear, krr) or the check-ins of the planar case's region."""
    if wildcards.case == "planar":
        prefix = f"results/data/checkins_{THEORY['section8']['planar']['region']}"
        return {"data": f"{prefix}.npz", "alphabet": f"{prefix}_alphabet.json"}
    return {"data": "results/data/ages.npz"}


def build_likely_table(paths: list[str], target_csv: str, target_md: str) -> None:
    """Section 8's table: the cases' rows in one CSV, and the same as markdown with the columns a reader needs."""
    privest_studies.files.concat_tables(paths, target_csv)
    rows = privest_studies.files.load_table(target_csv).to_dict("records")
    columns = ["case", "mechanism", "eps", "users", "alphabet_size", "observed_values", "likely_size",
               "strictly_concave_on_subset", "algorithm", "full_cpu_seconds", "likely_cpu_seconds",
               "subset_cpu_seconds", "speedup", "full_iterations", "likely_iterations", "full_capped", "likely_capped",
               "max_abs_difference", "full_mass_outside", "full_gap", "likely_gap"]
    text = ("# IBU paper, section 8: IBU on a likely subset against IBU on the whole alphabet\n\n"
            "Seconds are CPU seconds of the job's process (wall seconds in the CSV); likely_cpu_seconds excludes, "
            "speedup includes, the seconds to compute the subset (subset_cpu_seconds). "
            "max_abs_difference: the largest difference between the two estimates over the whole alphabet (the "
            "subset's estimate padded with zeros); full_mass_outside: the whole-alphabet estimate's mass outside the "
            "subset (0 at an MLE: the lemma of section 8.1). full_gap, likely_gap: duality gaps on the whole "
            "alphabet, upper bounds on how far below the maximum normalised log-likelihood each estimate is. Where the "
            "log-likelihood is not "
            "strictly concave on the subset (fewer observed values than subset elements), the MLE is not unique: "
            "both estimates are MLEs (gaps), and their agreement shows IBU takes the same path on both alphabets.\n\n"
            + privest_studies.tables.markdown_table(rows, columns))
    privest_studies.files.write_text(target_md, text)


def ibu_theory_targets() -> list[str]:
    """Every output of the theoretical parts at the active scale."""
    tables = ["surfaces_concavity.csv", "fig04_rappor.csv", "fig06_fixed_points.csv", "section7_6.csv",
              "section7_6.md", "section8_likely.csv", "section8_likely.md"]
    figures = [f"{IBU_DIR}/figures/fig04.{ext}" for ext in ("pdf", "png")]
    return theory_surface_figures() + figures + theory_fig06_figures() + [f"{IBU_DIR}/tables/{t}" for t in tables]


# The reproduction report (workflow/rules/report.smk): the catalogue of the papers' items, report flags, captions.

import fnmatch
from pathlib import Path

import privest_studies.reproduction

CATALOGUE_PATH = os.path.join(workflow.basedir, "workflow", "report", "papers.yaml")
REPORT_DIR = "results/report"


def _load_catalogue() -> dict:
    """The catalogue with its placeholders filled from the config; one line naming the item when one is wrong."""
    with open(CATALOGUE_PATH) as f:
        catalogue = yaml.safe_load(f)
    for study, paper in catalogue.items():
        for entry in paper["items"]:
            try:
                entry.update(privest_studies.reproduction.fill(entry, config))
            except KeyError as error:
                raise ValueError(f"workflow/report/papers.yaml: {study} {entry['item']}: no config key "
                                 f"{error.args[0]}") from None
    return catalogue


CATALOGUE = _load_catalogue()


def report_entry(path: str) -> tuple[str, dict] | None:
    """The study and catalogue entry whose files include a results path (results/<study>/...), if any."""
    study, _, rest = path.removeprefix("results/").partition("/")
    for entry in CATALOGUE.get(study, {}).get("items", []):
        if any(fnmatch.fnmatch(rest, pattern) for pattern in entry.get("files", [])):
            return study, entry
    return None


def caption_file(path: str) -> str:
    """The generated caption of a reported file: results/report/captions/<study>/<name>.rst."""
    study, _, rest = path.removeprefix("results/").partition("/")
    return f"{REPORT_DIR}/captions/{study}/{Path(rest).stem}.rst"


def table_page(path: str) -> str:
    """The HTML page of a paper's table (a CSV of ours) shown in the report: results/report/tables/<study>/<name>.html."""
    study, _, rest = path.removeprefix("results/").partition("/")
    return f"{REPORT_DIR}/tables/{study}/{Path(rest).stem}.html"


def subcategory(entry: dict) -> str:
    return f"{entry['item']} (section {entry['section']})"


def reported(path: str, source: str | None = None):
    """`path` flagged for the HTML report under its paper and item, when it is a PNG (or a table page) of the
    catalogue; otherwise `path` as it is. `source`: the catalogue file a table page shows.

    A path with wildcards (one PNG per job) takes workflow/report/wildcard_caption.rst, which includes the generated
    caption of the job's PNG, and its subcategory from the wildcards."""
    study = path.removeprefix("results/").partition("/")[0]
    if "{" in path and path.endswith(".png") and study in CATALOGUE:
        return report(path, caption="../report/wildcard_caption.rst", category=CATALOGUE[study]["paper"],
                      subcategory=lambda wildcards: subcategory(report_entry(path.format(**wildcards))[1]))
    found = report_entry(source or path)
    if found is None or not (path.endswith(".png") or source):
        return path
    study, entry = found
    return report(path, caption=os.path.abspath(caption_file(source or path)), category=CATALOGUE[study]["paper"],
                  subcategory=subcategory(entry))


def study_targets() -> list[str]:
    """Every output of the three studies at the active scale."""
    return ibu_consistency_targets() + ibu_theory_targets() + constrained_counts_targets() + free_will_targets()


def catalogue_files() -> dict[str, list[str]]:
    """Each catalogue item's files among study_targets(), pattern by pattern ('study/item' -> paths); one line naming
    the item when one of its patterns matches no target."""
    targets = study_targets()
    files = {}
    for study, paper in CATALOGUE.items():
        for entry in paper["items"]:
            for pattern in entry.get("files", []):
                found = [p for p in targets if fnmatch.fnmatch(p, f"results/{study}/{pattern}")]
                if not found:
                    raise ValueError(f"workflow/report/papers.yaml: {study} {entry['item']}: no output matches "
                                     f"{pattern!r}")
                files.setdefault(f"{study}/{entry['item']}", []).extend(found)
    return files


def reported_files() -> list[str]:
    """The files the catalogue lists (the PNGs and the tables of the report), each once."""
    return list(dict.fromkeys(path for paths in catalogue_files().values() for path in paths))


def reproduction_data() -> list[str]:
    """The provenance and alphabet files the report reads (counts, the regions used), each once, and the tables its
    checks read that are not targets of their study."""
    regions = ["planar", "sf_square", FW["alphabets"]["planar"]["region"], THEORY["section8"]["planar"]["region"]]
    names = ["ages_provenance", "checkins_planar_provenance"] + [f"checkins_{r}_alphabet" for r in regions]
    tables = [f"{COUNTS_DIR}/tables/{name}.csv" for name in ("fig08a_objectives", "fig08b_objectives", "fig10_adult")]
    return [f"results/data/{name}.json" for name in dict.fromkeys(names)] + tables


def reproduction_targets() -> list[str]:
    return ["results/REPRODUCTION.md", "results/reproduction_summary.txt", "results/reproduction.html"]


def build_gallery(sources: list[str], targets: list[str], width: int) -> None:
    import privest_studies.plotting  # matplotlib: imported by this job only, not at every parse

    for source, target in zip(sources, targets, strict=True):
        privest_studies.plotting.thumbnail(source, target, width)
