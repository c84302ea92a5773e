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


# The experiments of every study (workflow/rules/experiment.smk): built from the config by the study's module, which
# also checks what the schema cannot say.

import privest_studies.free_will
import privest_studies.ibu_consistency

IBU = config["ibu_consistency"]
IBU_SCALE = SCALE["ibu_consistency"]
IBU_DIR = "results/ibu_consistency"
STUDY_MODULES = {"ibu_consistency": privest_studies.ibu_consistency, "free_will": privest_studies.free_will}
for _module in STUDY_MODULES.values():
    _module.check(config)
EXPERIMENTS = {study: module.experiments(config) for study, module in STUDY_MODULES.items()}


def experiment_spec(wildcards) -> dict:
    """The experiment of a job of the chain, as the plain dict its script reads."""
    return EXPERIMENTS[wildcards.study][wildcards.experiment].to_dict()


def mechanisms_inputs(wildcards) -> dict:
    """The alphabet of an experiment and the cached Shokri LPs its mechanisms need."""
    experiment = EXPERIMENTS[wildcards.study][wildcards.experiment]
    return {"alphabet": experiment.alphabet_file, "shokri": list(experiment.shokri)}


def figure_inputs(study: str, name: str, *extra: str) -> dict:
    """What a figure of single runs reads of one experiment: its data, alphabet, reports and estimates (and `extra`
    files of the experiment, e.g. scores.csv)."""
    experiment = EXPERIMENTS[study][name]
    return {"data": experiment.data_file, "alphabet": experiment.alphabet_file,
            "reports": f"results/{study}/{name}/reports.npz",
            "estimates": [f"results/{study}/{name}/estimates_{family}.npz" for family in experiment.families]} | {
        file.split(".")[0]: f"results/{study}/{name}/{file}" for file in extra}


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


def fw_alphabet_inputs(wildcards) -> dict[str, str]:
    """The check-ins of a planar alphabet's region (nothing for a linear alphabet) of the free-will study."""
    spec = config["free_will"]["alphabets"][wildcards.alphabet]
    if spec["kind"] == "linear":
        return {}
    prefix = f"results/data/checkins_{spec['region']}"
    return {"data": f"{prefix}.npz", "alphabet": f"{prefix}_alphabet.json"}


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
    return ([str(path) for path in rules.ibu_consistency.input] + ibu_theory_targets() + constrained_counts_targets()
            + [str(path) for path in rules.free_will.input])


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
