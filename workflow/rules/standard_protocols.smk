"""Beyond the papers (issue 13): free will with the standard LDP protocols (GRR, SUE, OUE, BLH, OLH, SS, HR of
privest.protocols). Users drawn from theta are split over every (protocol, eps); [INV]_R-P, [IBU]_R and GIBU over the
whole mixture run on the same reports.

Each dataset (the Adult ages, a synthetic Zipf) is an experiment of the one chain of workflow/rules/experiment.smk
(privest_studies.standard_protocols builds them) into results/standard_protocols/<dataset>/; the study's tidy table is
results/standard_protocols/tables/scores.csv. Below: the Zipf dataset, one figure per dataset and the summary table.
Config: standard_protocols; sizes: scales.SCALE.standard_protocols.
"""

SP = config["standard_protocols"]
# The config the study's figures and table read: its own keys and the active scale's sizes, so that no other change
# reruns them.
SP_CONFIG = {
    "scale": config["scale"],
    "scales": {config["scale"]: {"standard_protocols": config["scales"][config["scale"]]["standard_protocols"]}},
    "standard_protocols": SP,
}


rule sp_zipf:
    """The synthetic dataset: Zipf theta on {0..k-1}."""
    output:
        data="results/standard_protocols/data/zipf.npz",
        alphabet="results/standard_protocols/data/zipf_alphabet.json",
    log:
        "logs/standard_protocols/zipf.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        spec=SP["zipf"],
    script:
        "../../scripts/sp_zipf.py"


rule sp_summary:
    """Mean EMD and squared l2 error over runs per dataset, n and method, and GIBU's ratio to the best other method."""
    input:
        scores="results/standard_protocols/tables/scores.csv",
        alphabets=[
            EXPERIMENTS["standard_protocols"][name].alphabet_file
            for name in privest_studies.standard_protocols.DATASETS
        ],
    output:
        csv="results/standard_protocols/tables/summary.csv",
        markdown="results/standard_protocols/tables/summary.md",
    log:
        "logs/standard_protocols/summary.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        config=SP_CONFIG,
    script:
        "../../scripts/sp_summary.py"


rule sp_figures:
    """One figure per dataset: EMD and squared l2 error against n (log-log), mean +- 1 s.d. over runs, GIBU over the
    whole mixture beside the per-protocol estimators."""
    input:
        scores="results/standard_protocols/tables/scores.csv",
        alphabets=[
            EXPERIMENTS["standard_protocols"][name].alphabet_file
            for name in privest_studies.standard_protocols.DATASETS
        ],
    output:
        [
            reported(path)
            for path in expand(
                "results/standard_protocols/figures/{dataset}.{ext}",
                dataset=["ages", "zipf"],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/standard_protocols/figures.log",
    benchmark:
        "benchmarks/standard_protocols/figures.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        config=SP_CONFIG,
    script:
        "../../scripts/sp_figures.py"


rule standard_protocols:
    """Every output of the standard-protocols study at the active scale (`snakemake standard_protocols`)."""
    input:
        rules.sp_summary.output,
        rules.sp_figures.output,
        "results/standard_protocols/tables/scores.csv",
    localrule: True
