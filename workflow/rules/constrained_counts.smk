"""The count-data paper (Constrained differential privacy for count data): GM, EM, WM and UM.

The analytic part solves linear programs (HiGHS, pinned) and checks properties: the optimal mechanisms of
Figures 1-2, the 128 property sets behind Figure 5's flowchart, the property table (Figure 6), the nine combinations
of Figure 8, the scores of Figure 9 and the published numbers. The experiments draw noisy counts from one file of
mechanism matrices (GM, WM, EM, UM for every (n, alpha) they use): Adult groups (Figure 10) and synthetic Binomial
groups (Figures 11-13). Each figure script reads a table or that file.
"""

COUNTS = config["constrained_counts"]
COUNTS_SCALE = config["scales"][config["scale"]]["constrained_counts"]


wildcard_constraints:
    panel="a|b",
    synthetic="fig11|fig12|fig13",


rule counts_mechanisms:
    """GM, WM (an LP), EM and UM for every (n, alpha) that Figures 7 and 10-13 use, in one npz."""
    output:
        "results/constrained_counts/mechanisms.npz",
    log:
        "logs/constrained_counts/mechanisms.log",
    benchmark:
        "benchmarks/constrained_counts/mechanisms.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        pairs=privest_studies.constrained_counts.mechanism_pairs(config),
    script:
        "../../scripts/counts_mechanisms.py"


rule counts_optimal:
    """Figures 1-2: the LP optimum of each panel's objective, without constraints and with all seven properties, and
    the property checker's result on every panel."""
    output:
        mechanisms="results/constrained_counts/optimal.npz",
        table="results/constrained_counts/tables/fig02_properties.csv",
    log:
        "logs/constrained_counts/optimal.log",
    conda:
        "../../envs/privest.yaml"
    params:
        alpha=COUNTS["optimal"]["alpha"],
        panels=COUNTS["optimal"]["panels"],
        tolerance=COUNTS["tolerance"],
    script:
        "../../scripts/counts_optimal.py"


rule counts_flowchart:
    """Figure 5: the L0 optimum of all 128 property sets beside the score of the mechanism the flowchart picks."""
    output:
        table="results/constrained_counts/tables/fig05_flowchart.csv",
        markdown="results/constrained_counts/tables/fig05_flowchart.md",
    log:
        "logs/constrained_counts/flowchart.log",
    benchmark:
        "benchmarks/constrained_counts/flowchart.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        grid=COUNTS_SCALE["flowchart"],
    script:
        "../../scripts/counts_flowchart.py"


rule counts_properties:
    """Figure 6: the property checker on GM, WM, EM and UM over a grid of (n, alpha), and its Y / N / - summary."""
    output:
        grid="results/constrained_counts/tables/properties_grid.csv",
        table="results/constrained_counts/tables/fig06_properties.csv",
        markdown="results/constrained_counts/tables/fig06_properties.md",
    log:
        "logs/constrained_counts/properties.log",
    conda:
        "../../envs/privest.yaml"
    params:
        grid=COUNTS_SCALE["properties"],
        tolerance=COUNTS["tolerance"],
    script:
        "../../scripts/counts_properties.py"


rule counts_combinations:
    """Figure 8: the L0 optimum of the nine property combinations with WH, (a) against n, (b) against alpha."""
    output:
        "results/constrained_counts/tables/fig08{panel}_objectives.csv",
    log:
        "logs/constrained_counts/fig08{panel}_objectives.log",
    benchmark:
        "benchmarks/constrained_counts/fig08{panel}_objectives.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        n=lambda w: COUNTS_SCALE["fig08"]["n"] if w.panel == "a" else [COUNTS["fig08"]["n"]],
        alpha=lambda w: [COUNTS["fig08"]["alpha"]] if w.panel == "a" else COUNTS_SCALE["fig08"]["alpha"],
    script:
        "../../scripts/counts_combinations.py"


rule counts_scores:
    """Figure 9: the L0 scores of GM, WM, EM, UM (and the LP with WH alone) against n, for each alpha."""
    output:
        "results/constrained_counts/tables/fig09_scores.csv",
    log:
        "logs/constrained_counts/fig09_scores.log",
    benchmark:
        "benchmarks/constrained_counts/fig09_scores.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        n=COUNTS_SCALE["fig09"]["n"],
        alpha=COUNTS["fig09"]["alpha"],
    script:
        "../../scripts/counts_scores.py"


rule counts_published:
    """The paper's checkable numbers (Example 1, GM's score and thresholds, Figure 7) beside ours (decisions.md,
    section 8)."""
    output:
        table="results/constrained_counts/tables/published.csv",
        markdown="results/constrained_counts/tables/published.md",
    log:
        "logs/constrained_counts/published.log",
    conda:
        "../../envs/privest.yaml"
    params:
        published=CATALOGUE["constrained_counts"]["published"],
        example1=COUNTS["example1"],
        fig07=COUNTS["fig07"],
        fig08=COUNTS["fig08"],
        fig09=COUNTS["fig09"],
        thresholds=COUNTS["thresholds"],
        grid=COUNTS_SCALE["properties"],
        tolerance=COUNTS["tolerance"],
    script:
        "../../scripts/counts_published.py"


rule counts_adult:
    """Figure 10: Adult persons in random groups of n; the fraction of groups whose noisy count is wrong."""
    input:
        persons="results/data/adult_persons.csv",
        mechanisms=rules.counts_mechanisms.output[0],
    output:
        "results/constrained_counts/tables/fig10_adult.csv",
    log:
        "logs/constrained_counts/adult.log",
    benchmark:
        "benchmarks/constrained_counts/adult.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        alpha=COUNTS["adult"]["alpha"],
        targets=COUNTS["adult"]["targets"],
        n=COUNTS_SCALE["adult"]["n"],
        repetitions=COUNTS_SCALE["adult"]["repetitions"],
        seed=config["seed"],
    script:
        "../../scripts/counts_adult.py"


rule counts_synthetic:
    """Figures 11-13: synthetic Binomial(n, p) groups through each mechanism, scored by L0,d and RMSE."""
    input:
        mechanisms=rules.counts_mechanisms.output[0],
    output:
        "results/constrained_counts/tables/{synthetic}_synthetic.csv",
    log:
        "logs/constrained_counts/{synthetic}_synthetic.log",
    benchmark:
        "benchmarks/constrained_counts/{synthetic}_synthetic.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        design=lambda w: privest_studies.constrained_counts.synthetic_design(config, w.synthetic),
        population=COUNTS_SCALE["synthetic"]["population"],
        repetitions=COUNTS_SCALE["synthetic"]["repetitions"],
        seed=config["seed"],
    script:
        "../../scripts/counts_synthetic.py"


rule counts_fig_optimal:
    """Figures 1 and 2: heatmaps of the unconstrained and the fully constrained optimal mechanisms."""
    input:
        rules.counts_optimal.output.mechanisms,
    output:
        [
            reported(path)
            for path in expand(
                "results/constrained_counts/figures/{name}.{ext}", name=["fig01", "fig02"], ext=["pdf", "png"]
            )
        ],
    log:
        "logs/constrained_counts/fig01_fig02.log",
    conda:
        "../../envs/privest.yaml"
    params:
        tolerance=COUNTS["tolerance"],
    script:
        "../../scripts/counts_fig_optimal.py"


rule counts_fig_structure:
    """Figures 3 and 4: GM and EM written out entry by entry, coloured by their values at one alpha."""
    output:
        [
            reported(path)
            for path in expand(
                "results/constrained_counts/figures/{name}.{ext}", name=["fig03", "fig04"], ext=["pdf", "png"]
            )
        ],
    log:
        "logs/constrained_counts/fig03_fig04.log",
    conda:
        "../../envs/privest.yaml"
    params:
        n=COUNTS["structure"]["n"],
        alpha=COUNTS["structure"]["alpha"],
    script:
        "../../scripts/counts_fig_structure.py"


rule counts_fig06:
    """Figure 6: the property table computed by the checker, beside the paper's."""
    input:
        rules.counts_properties.output.table,
    output:
        [reported(path) for path in expand("results/constrained_counts/figures/fig06.{ext}", ext=["pdf", "png"])],
    log:
        "logs/constrained_counts/fig06.log",
    conda:
        "../../envs/privest.yaml"
    params:
        grid=COUNTS_SCALE["properties"],
    script:
        "../../scripts/counts_fig06.py"


rule counts_fig07:
    """Figure 7: GM, WM and EM for n = 4 as heatmaps."""
    input:
        rules.counts_mechanisms.output[0],
    output:
        [reported(path) for path in expand("results/constrained_counts/figures/fig07.{ext}", ext=["pdf", "png"])],
    log:
        "logs/constrained_counts/fig07.log",
    conda:
        "../../envs/privest.yaml"
    params:
        n=COUNTS["fig07"]["n"],
        alpha=COUNTS["fig07"]["alpha"],
        published=CATALOGUE["constrained_counts"]["published"]["fig07_true_answer"],
    script:
        "../../scripts/counts_fig07.py"


rule counts_fig08:
    """Figure 8: objective values of the nine combinations, (a) fig08a against n, (b) fig08b against alpha."""
    input:
        lambda w: f"results/constrained_counts/tables/fig08{w.figure[-1]}_objectives.csv",
    output:
        [reported(path) for path in expand("results/constrained_counts/figures/{{figure}}.{ext}", ext=["pdf", "png"])],
    log:
        "logs/constrained_counts/{figure}.log",
    wildcard_constraints:
        figure="fig08a|fig08b",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig08.py"


rule counts_fig09:
    """Figure 9: scores of GM, WM, EM and UM against n, one panel per alpha, GM's weak-honesty threshold marked."""
    input:
        rules.counts_scores.output[0],
    output:
        [
            reported(path)
            for path in expand(
                "results/constrained_counts/figures/{name}.{ext}",
                name=["fig09a", "fig09b", "fig09c"],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/constrained_counts/fig09.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig09.py"


rule counts_fig10:
    """Figure 10: Adult, the fraction of groups with a wrong noisy count against the group size, per target."""
    input:
        rules.counts_adult.output[0],
    output:
        [reported(path) for path in expand("results/constrained_counts/figures/fig10.{ext}", ext=["pdf", "png"])],
    log:
        "logs/constrained_counts/fig10.log",
    conda:
        "../../envs/privest.yaml"
    params:
        alpha=COUNTS["adult"]["alpha"],
        young_below=config["data"]["adult"]["young_below"],
    script:
        "../../scripts/counts_fig10.py"


rule counts_fig_synthetic:
    """Figures 11-13: L0,d against p, L0,d against d, and RMSE against n on synthetic groups."""
    input:
        "results/constrained_counts/tables/{synthetic}_synthetic.csv",
    output:
        [
            reported(path)
            for path in expand("results/constrained_counts/figures/{{synthetic}}.{ext}", ext=["pdf", "png"])
        ],
    log:
        "logs/constrained_counts/{synthetic}.log",
    conda:
        "../../envs/privest.yaml"
    params:
        population=COUNTS_SCALE["synthetic"]["population"],
        repetitions=COUNTS_SCALE["synthetic"]["repetitions"],
    script:
        "../../scripts/counts_fig_synthetic.py"


rule constrained_counts:
    """Every output of the count-data study at the active scale (`snakemake constrained_counts`)."""
    input:
        rules.counts_fig_optimal.output,
        rules.counts_fig_structure.output,
        rules.counts_fig06.output,
        rules.counts_fig07.output,
        expand("results/constrained_counts/figures/{figure}.{ext}", figure=["fig08a", "fig08b"], ext=["pdf", "png"]),
        rules.counts_fig09.output,
        rules.counts_fig10.output,
        expand(
            "results/constrained_counts/figures/{figure}.{ext}", figure=["fig11", "fig12", "fig13"], ext=["pdf", "png"]
        ),
        rules.counts_flowchart.output,
        rules.counts_optimal.output.table,
        rules.counts_scores.output,
        expand("results/constrained_counts/tables/{figure}_synthetic.csv", figure=["fig11", "fig12", "fig13"]),
        rules.counts_properties.output.table,
        rules.counts_properties.output.markdown,
        rules.counts_published.output,
    localrule: True
