"""Beyond the papers (issue 50, item 4): "SW+EMS or geometric+IBU?" (privest_studies.sw_vs_geometric) on Adult's ages
and hours per week. Each column's comparison runs through the one chain (results/sw_vs_geometric/<column>_<kind>/,
workflow/rules/experiment.smk); below: each column's data, the study's table of its three lines with the paired
differences, and one figure per column.
Config: sw_vs_geometric; sizes: scales.SCALE.sw_vs_geometric.
"""

SVG = privest_studies.sw_vs_geometric
SVG_COLUMNS = list(config["sw_vs_geometric"]["columns"])
# What the study's jobs read of the config: its own keys, the seed, the report's level and the active scale's sizes,
# so that no other change reruns them.
SVG_CONFIG = {
    "seed": config["seed"],
    "scale": config["scale"],
    "scales": {config["scale"]: {"sw_vs_geometric": config["scales"][config["scale"]]["sw_vs_geometric"]}},
    "report": {"level": config["report"]["level"]},
    "sw_vs_geometric": config["sw_vs_geometric"],
}


rule svg_data:
    """One Adult column as numbers on its numeric alphabet (own study's reader): the secrets, the values and theta."""
    input:
        privest_studies.own_data.ADULT_FILES,
    output:
        data=f"{SVG.RESULTS}/data/{{column}}.npz",
        alphabet=f"{SVG.RESULTS}/data/{{column}}_alphabet.json",
        provenance=f"{SVG.RESULTS}/data/{{column}}_provenance.json",
    log:
        "logs/sw_vs_geometric/data_{column}.log",
    wildcard_constraints:
        column="|".join(SVG_COLUMNS),
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        spec=lambda w: SVG.data_spec(SVG_CONFIG, w.column),
    script:
        "../../scripts/svg_data.py"


rule svg_summary:
    """Per (column, eps, line) the mean EMD and the mean estimates, per (column, eps) the paired difference
    EMD(SW+EMS) - EMD(geometric+IBU) with its interval, and the study's page."""
    input:
        # rule aggregate's table of the chain's experiments
        scores=f"{SVG.RESULTS}/tables/scores.csv",
    output:
        csv=f"{SVG.RESULTS}/tables/summary.csv",
        paired=f"{SVG.RESULTS}/tables/paired.csv",
        markdown=f"{SVG.RESULTS}/tables/summary.md",
    log:
        "logs/sw_vs_geometric/summary.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        config=SVG_CONFIG,
    script:
        "../../scripts/svg_summary.py"


rule svg_figures:
    """One figure per column: the mean EMD of the three lines against eps, the paired difference with its interval,
    and the mean estimates beside the data's mean."""
    input:
        summary=rules.svg_summary.output.csv,
        paired=rules.svg_summary.output.paired,
    output:
        [
            reported(path)
            for path in expand(
                "results/sw_vs_geometric/figures/{name}.{ext}",
                name=["ages", "hours"],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/sw_vs_geometric/figures.log",
    conda:
        "../../envs/privest.yaml"
    params:
        config=SVG_CONFIG,
    script:
        "../../scripts/svg_figures.py"


rule sw_vs_geometric:
    """Every output of the SW+EMS or geometric+IBU study at the active scale (`snakemake sw_vs_geometric`)."""
    input:
        rules.svg_summary.output,
        rules.svg_figures.output,
        f"{SVG.RESULTS}/tables/scores.csv",
    localrule: True
