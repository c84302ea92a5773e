"""Beyond the papers (issue 51, item 5): frequent items of domains too large to enumerate
(privest_studies.large_domains): the Gowalla check-ins of San Francisco on fine cells (about 2^20 items) and a Zipf
over 2^32 item ids, each sketch oracle's unbiased estimate and candidate MLE of the top items' frequencies and the
top items it finds, over eps and n; the heavy-hitter protocols join when config large_domains.heavy_hitters lists
them. One job per (dataset, protocol) runs its every (eps, n, run); then the summary and one figure per dataset.
Config: large_domains; sizes: scales.SCALE.large_domains.
"""

LD = config["large_domains"]
# What the study's jobs read of the config: its own keys, the seed and the active scale's sizes, so that no other
# change reruns them.
LD_CONFIG = {
    "seed": config["seed"],
    "scale": config["scale"],
    "scales": {config["scale"]: {"large_domains": config["scales"][config["scale"]]["large_domains"]}},
    "large_domains": LD,
}
LD_RESULTS = privest_studies.large_domains.RESULTS
LD_PROTOCOLS = privest_studies.large_domains.protocols_of(config)


rule ld_data:
    """The cell of every San Francisco check-in on cells of large_domains.gowalla.cell_degrees degrees."""
    input:
        checkins="data/raw/gowalla_checkins",
    output:
        f"{LD_RESULTS}/data/gowalla_cells.npz",
    log:
        "logs/large_domains/data.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        accepted=privest_studies.fetch.sources(DATA, "gowalla_checkins")["accepted"],
        region=config["regions"][LD["gowalla"]["region"]],
        cell_degrees=LD["gowalla"]["cell_degrees"],
    script:
        "../../scripts/ld_data.py"


rule ld_estimate:
    """One protocol on one dataset: every (eps, n, run), the oracle's unbiased estimate and candidate MLE (or a
    heavy-hitter protocol's list), scored on the true top items."""
    input:
        data=lambda w: [f"{LD_RESULTS}/data/gowalla_cells.npz"] if w.dataset == "gowalla" else [],
    output:
        f"{LD_RESULTS}/runs/{{dataset}}_{{protocol}}.csv",
    log:
        "logs/large_domains/estimate_{dataset}_{protocol}.log",
    benchmark:
        "benchmarks/large_domains/estimate_{dataset}_{protocol}.tsv"
    wildcard_constraints:
        dataset="zipf|gowalla",
        protocol="|".join(LD_PROTOCOLS),
    conda:
        "../../envs/privest.yaml"
    params:
        config=LD_CONFIG,
    script:
        "../../scripts/ld_estimate.py"


rule ld_summary:
    """Every run in one table, its means per (dataset, protocol, method, eps, n), and the markdown page."""
    input:
        runs=[
            f"{LD_RESULTS}/runs/{dataset}_{protocol}.csv"
            for dataset in privest_studies.large_domains.DATASETS
            for protocol in LD_PROTOCOLS
        ],
    output:
        runs=f"{LD_RESULTS}/tables/runs.csv",
        csv=f"{LD_RESULTS}/tables/summary.csv",
        markdown=f"{LD_RESULTS}/tables/summary.md",
    log:
        "logs/large_domains/summary.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        config=LD_CONFIG,
    script:
        "../../scripts/ld_summary.py"


rule ld_figures:
    """One figure per dataset: the errors of the top items' frequencies and the precision and recall of the top
    items found, against eps, a row per n."""
    input:
        summary=rules.ld_summary.output.csv,
    output:
        [
            reported(path)
            for path in expand(
                "results/large_domains/figures/{dataset}.{ext}",
                dataset=["zipf", "gowalla"],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/large_domains/figures.log",
    benchmark:
        "benchmarks/large_domains/figures.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        config=LD_CONFIG,
    script:
        "../../scripts/ld_figures.py"


rule large_domains:
    """Every output of the large-domains study at the active scale (`snakemake large_domains`)."""
    input:
        rules.ld_summary.output,
        rules.ld_figures.output,
    localrule: True
