"""The config checked once, before any job (its files for repeated keys, its path names and the schema, then what each
study's module checks beyond it; an error is one line on stderr), the experiments of the studies, and the input
functions and report flags the rule files share."""

import os

import privest_studies.configuration
import privest_studies.constrained_counts
import privest_studies.cost
import privest_studies.estimator_comparison
import privest_studies.experiment
import privest_studies.fetch
import privest_studies.large_domains
import privest_studies.free_will
import privest_studies.ibu_consistency
import privest_studies.multi_freq_ldpy_tutorials
import privest_studies.own_study
import privest_studies.report
import privest_studies.standard_protocols
import privest_studies.sw_vs_geometric

# Any error of the config or the data: its one line on stderr, then exit 1 (what Snakemake logged meanwhile, held by
# the Snakefile's HELD_LOG, is dropped; on success, or on any other error, it is printed).
with privest_studies.configuration.one_line_errors(HELD_LOG):
    privest_studies.configuration.check_files(workflow.configfiles)
    privest_studies.configuration.check_writable()
    # The workflow's own files, relative to this file (workflow.basedir is the working directory's Snakefile's when
    # privest runs as a module of another workflow).
    privest_studies.configuration.check(config, workflow.source_path("../schemas/config.schema.yaml"))
    STUDY_MODULES = {
        "ibu_consistency": privest_studies.ibu_consistency,
        "free_will": privest_studies.free_will,
        "standard_protocols": privest_studies.standard_protocols,
        "multi_freq_ldpy_tutorials": privest_studies.multi_freq_ldpy_tutorials,
        "sw_vs_geometric": privest_studies.sw_vs_geometric,
    }
    for _module in [*STUDY_MODULES.values(), privest_studies.constrained_counts]:
        _module.check(config)
    # own study -> (k, records) before its data job, from the CSV headers its check read: the cost model's sizes and
    # the data jobs' memory, without reading the headers again
    OWN_SIZES = privest_studies.own_study.check(config)
    privest_studies.estimator_comparison.check(config)
    privest_studies.large_domains.check(config)
    EXPERIMENTS = {study: module.experiments(config) for study, module in STUDY_MODULES.items()}
    EXPERIMENTS |= privest_studies.own_study.experiments(config)
    # study -> runs per estimate job at this scale (config scales.<scale>.estimate.runs_per_job)
    RUNS_PER_JOB = config["scales"][config["scale"]].get("estimate", {}).get("runs_per_job", {})
    CATALOGUE = privest_studies.report.load_catalogue(workflow.source_path("../report/papers.yaml"), config)
HELD_LOG.release()
# The model's seconds of every estimate job at this scale (privest_studies.cost) whose dataset exists, or whose own
# study's size the config and CSV header tell: the budget's warnings and the chain's priorities (chain_priority). Not
# again in each job's process.
ESTIMATE_COSTS = (
    privest_studies.cost.estimate_jobs(EXPERIMENTS, RUNS_PER_JOB, OWN_SIZES) if workflow.is_main_process else []
)
if workflow.is_main_process:
    privest_studies.cost.warn_once(privest_studies.cost.over_budget(ESTIMATE_COSTS, config["budget"]["job_minutes"]))
ESTIMATE_SECONDS = {(cost.study, cost.experiment, cost.family, cost.part): cost.seconds for cost in ESTIMATE_COSTS}
LONGEST_ESTIMATE = {}  # (study, experiment) -> the model's seconds of its longest estimate job
for _cost in ESTIMATE_COSTS:
    _key = (_cost.study, _cost.experiment)
    LONGEST_ESTIMATE[_key] = max(LONGEST_ESTIMATE.get(_key, 0.0), _cost.seconds)


def chain_priority(wildcards) -> float:
    """The priority of a job of the experiment chain: the model's seconds of the longest estimate job it leads to (an
    estimate job's own; a split job's gathering step 0), so that the longest jobs start first and no core waits at the
    end of a run for one that started late (longest processing time first). Other rules keep priority 0. The model
    needs each dataset's size: where the dataset does not exist yet when the run starts, its chain's priority is 0
    (`make reproduce` first builds the chains' inputs, rule chain_inputs, then runs the rest)."""
    if hasattr(wildcards, "family"):
        key = (wildcards.study, wildcards.experiment, wildcards.family, getattr(wildcards, "part", ""))
        return ESTIMATE_SECONDS.get(key, 0.0)
    return LONGEST_ESTIMATE.get((wildcards.study, wildcards.experiment), 0.0)


def chain_input_files() -> list[str]:
    """Every dataset, alphabet and cached Shokri LP the experiment chains read (rule chain_inputs)."""
    files = {
        path
        for by_name in EXPERIMENTS.values()
        for experiment in by_name.values()
        for path in (experiment.data_file, experiment.alphabet_file, *experiment.shokri)
    }
    return sorted(files)


def experiment_spec(wildcards) -> dict:
    """The experiment of a job of the chain, as the plain dict its script reads."""
    return EXPERIMENTS[wildcards.study][wildcards.experiment].to_dict()


def estimate_parts(study: str, experiment: str, family: str) -> tuple:
    """The parts of an estimate job at this scale (privest_studies.experiment.parts): () when it is one job."""
    return privest_studies.experiment.parts(EXPERIMENTS[study][experiment], family, RUNS_PER_JOB.get(study))


def estimate_inputs(wildcards) -> dict:
    """An estimate job's inputs: the mechanisms and reports, or the archives of its parts where the scale splits it."""
    parts = estimate_parts(wildcards.study, wildcards.experiment, wildcards.family)
    if parts:
        where = f"results/{wildcards.study}/{wildcards.experiment}/parts/estimates_{wildcards.family}"
        return {"parts": [f"{where}_{part.name}.npz" for part in parts]}
    return {
        "mechanisms": f"results/{wildcards.study}/{wildcards.experiment}/mechanisms.npz",
        "reports": f"results/{wildcards.study}/{wildcards.experiment}/reports.npz",
    }


def mechanisms_inputs(wildcards) -> dict:
    """The alphabet of an experiment and the cached Shokri LPs its mechanisms need."""
    experiment = EXPERIMENTS[wildcards.study][wildcards.experiment]
    return {"alphabet": experiment.alphabet_file, "shokri": list(experiment.shokri)}


def figure_inputs(study: str, name: str, *extra: str) -> dict:
    """What a figure of single runs reads of one experiment: its data, alphabet, reports and estimates (and `extra`
    files of the experiment, e.g. scores.csv)."""
    experiment = EXPERIMENTS[study][name]
    return {
        "data": experiment.data_file,
        "alphabet": experiment.alphabet_file,
        "reports": f"results/{study}/{name}/reports.npz",
        "estimates": [f"results/{study}/{name}/estimates_{family}.npz" for family in experiment.families],
    } | {file.split(".")[0]: f"results/{study}/{name}/{file}" for file in extra}


def fw_alphabet_inputs(wildcards) -> dict[str, str]:
    """The check-ins of a planar alphabet's region (nothing for a linear alphabet) of the free-will study."""
    spec = config["free_will"]["alphabets"][wildcards.alphabet]
    if spec["kind"] == "linear":
        return {}
    prefix = f"results/data/checkins_{spec['region']}"
    return {"data": f"{prefix}.npz", "alphabet": f"{prefix}_alphabet.json"}


def reported(path: str, source: str | None = None):
    """`path` flagged for the HTML report under its paper and item, when it is a PNG (or a table page) of the
    catalogue; otherwise `path` as it is. `source`: the catalogue file a table page shows.

    A path with wildcards (one PNG per job) takes workflow/report/wildcard_caption.rst, which includes the generated
    caption of the job's PNG, and its subcategory from the wildcards."""
    study = path.removeprefix("results/").partition("/")[0]
    if "{" in path and path.endswith(".png") and study in CATALOGUE:
        return report(
            path,
            caption="../report/wildcard_caption.rst",
            category=CATALOGUE[study]["paper"],
            subcategory=lambda w: privest_studies.report.subcategory(
                privest_studies.report.entry_of(CATALOGUE, path.format(**w))[1]
            ),
        )
    found = privest_studies.report.entry_of(CATALOGUE, source or path)
    if found is None or not (path.endswith(".png") or source):
        return path
    study, entry = found
    return report(
        path,
        caption=os.path.abspath(privest_studies.report.caption_file(source or path)),
        category=CATALOGUE[study]["paper"],
        subcategory=privest_studies.report.subcategory(entry),
    )


def study_targets() -> list[str]:
    """Every output of the studies at the active scale (the papers' and the studies beyond them): the inputs of their
    target rules."""
    studies = [
        rules.ibu_consistency,
        rules.ibu_theory,
        rules.constrained_counts,
        rules.free_will,
        rules.standard_protocols,
        rules.estimator_comparison,
        rules.multi_freq_ldpy_tutorials,
        rules.sw_vs_geometric,
        rules.large_domains,
    ]
    return [str(path) for study in studies for path in study.input]
