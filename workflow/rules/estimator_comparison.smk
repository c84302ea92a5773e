"""Beyond the papers (issue 25): every estimator across every protocol (privest_studies.estimator_comparison). For
each protocol of privest.protocols and the geometric mechanism (ordinal data), at every eps: the raw unbiased
estimate, the NDSS 2020 consistency post-processings, the MLE (with its 95% interval coverage) and the k-RR closed
form, scored by EMD (ordinal) or total variation (categorical) and l2^2, on the Adult ages, a Zipf and a categorical
Adult column. One job per dataset and protocol (at the paper scale the Zipf's protocols take minutes each:
both cores share them); then the summary table and one figure per dataset.
Config: estimator_comparison; sizes: scales.SCALE.estimator_comparison.
"""

EC = config["estimator_comparison"]
# What the study's jobs read of the config: its own keys, the seed and the active scale's sizes, so that no other
# change reruns them.
EC_CONFIG = {
    "seed": config["seed"],
    "scale": config["scale"],
    "scales": {config["scale"]: {"estimator_comparison": config["scales"][config["scale"]]["estimator_comparison"]}},
    "estimator_comparison": EC,
}
EC_DATA = {
    "ages": ("results/data/ages.npz", "results/data/ages_alphabet.json"),
    "zipf": ("results/estimator_comparison/data/zipf.npz", "results/estimator_comparison/data/zipf_alphabet.json"),
    "adult": ("results/estimator_comparison/data/adult.npz", "results/estimator_comparison/data/adult_alphabet.json"),
}


rule ec_data:
    """The Zipf theta and the categorical Adult column's theta, with their alphabets."""
    input:
        data="data/raw/adult.data",
        test="data/raw/adult.test",
    output:
        zipf="results/estimator_comparison/data/zipf.npz",
        zipf_alphabet="results/estimator_comparison/data/zipf_alphabet.json",
        adult="results/estimator_comparison/data/adult.npz",
        adult_alphabet="results/estimator_comparison/data/adult_alphabet.json",
    log:
        "logs/estimator_comparison/data.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        zipf=EC["zipf"],
        column=EC["categorical"]["column"],
        accepted={key: privest_studies.fetch.sources(DATA, f"adult.{key}")["accepted"] for key in ("data", "test")},
    script:
        "../../scripts/ec_data.py"


rule ec_estimate:
    """Every estimator on every (eps, run) of one protocol on one dataset, scored against theta."""
    input:
        data=lambda w: EC_DATA[w.dataset][0],
        alphabet=lambda w: EC_DATA[w.dataset][1],
    output:
        "results/estimator_comparison/scores/{dataset}_{protocol}.csv",
    log:
        "logs/estimator_comparison/estimate_{dataset}_{protocol}.log",
    benchmark:
        "benchmarks/estimator_comparison/estimate_{dataset}_{protocol}.tsv"
    wildcard_constraints:
        dataset="ages|zipf|adult",
        protocol="|".join(EC["protocols"]),
    conda:
        "../../envs/privest.yaml"
    params:
        config=EC_CONFIG,
    script:
        "../../scripts/ec_estimate.py"


rule ec_summary:
    """The scores of every dataset in one table, their means per (dataset, protocol, eps, method) with ranks, and the
    page of who wins where."""
    input:
        scores=[
            f"results/estimator_comparison/scores/{dataset}_{protocol}.csv"
            for dataset in privest_studies.estimator_comparison.DATASETS
            for protocol in privest_studies.estimator_comparison.protocols_of(dataset, config)
        ],
        alphabets=[EC_DATA[name][1] for name in ("ages", "zipf", "adult")],
    output:
        scores="results/estimator_comparison/tables/scores.csv",
        csv="results/estimator_comparison/tables/summary.csv",
        markdown="results/estimator_comparison/tables/summary.md",
    log:
        "logs/estimator_comparison/summary.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        config=EC_CONFIG,
    script:
        "../../scripts/ec_summary.py"


rule ec_figures:
    """One figure per dataset: each estimator's mean distance over the best one's per (protocol, eps), and the MLE's
    interval coverage."""
    input:
        summary="results/estimator_comparison/tables/summary.csv",
        alphabets=[EC_DATA[name][1] for name in ("ages", "zipf", "adult")],
    output:
        [
            reported(path)
            for path in expand(
                "results/estimator_comparison/figures/{dataset}.{ext}",
                dataset=["ages", "zipf", "adult"],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/estimator_comparison/figures.log",
    benchmark:
        "benchmarks/estimator_comparison/figures.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        config=EC_CONFIG,
    script:
        "../../scripts/ec_figures.py"


rule estimator_comparison:
    """Every output of the estimator-comparison study at the active scale (`snakemake estimator_comparison`)."""
    input:
        rules.ec_summary.output,
        rules.ec_figures.output,
    localrule: True
