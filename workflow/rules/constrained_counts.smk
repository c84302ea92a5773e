"""The count-data paper (Constrained differential privacy for count data): GM, EM, WM and UM.

The analytic part solves linear programs (pulp's CBC, pinned) and checks properties: the optimal mechanisms of
Figures 1-2, the 128 property sets behind Figure 5's flowchart, the property table (Figure 6), the nine combinations
of Figure 8, the scores of Figure 9 and the published numbers. The experiments draw noisy counts from one file of
mechanism matrices (GM, WM, EM, UM for every (n, alpha) they use): Adult groups (Figure 10) and synthetic Binomial
groups (Figures 11-13). Each figure script reads a table or that file.
"""


wildcard_constraints:
    panel="a|b",
    synthetic="fig11|fig12|fig13",


rule counts_mechanisms:
    """GM, WM (an LP), EM and UM for every (n, alpha) that Figures 7 and 10-13 use, in one npz."""
    output:
        f"{COUNTS_DIR}/mechanisms.npz",
    params:
        pairs=counts_pairs(),
    log:
        "logs/constrained_counts/mechanisms.log",
    benchmark:
        "benchmarks/constrained_counts/mechanisms.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_mechanisms.py"


rule counts_optimal:
    """Figures 1-2: the LP optimum of each panel's objective, without constraints and with all seven properties."""
    output:
        f"{COUNTS_DIR}/optimal.npz",
    params:
        alpha=COUNTS["optimal"]["alpha"],
        panels=COUNTS["optimal"]["panels"],
    log:
        "logs/constrained_counts/optimal.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_optimal.py"


rule counts_flowchart:
    """Figure 5 checked: the L0 optimum of all 128 property sets against the mechanism the flowchart picks."""
    output:
        table=f"{COUNTS_DIR}/tables/fig05_flowchart.csv",
        markdown=f"{COUNTS_DIR}/tables/fig05_flowchart.md",
    params:
        grid=COUNTS_SCALE["flowchart"],
        tolerance=COUNTS["tolerance"],
    log:
        "logs/constrained_counts/flowchart.log",
    benchmark:
        "benchmarks/constrained_counts/flowchart.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_flowchart.py"


rule counts_properties:
    """Figure 6: the property checker on GM, WM, EM and UM over a grid of (n, alpha), and its Y / N / - summary."""
    output:
        grid=f"{COUNTS_DIR}/tables/properties_grid.csv",
        table=f"{COUNTS_DIR}/tables/fig06_properties.csv",
        markdown=f"{COUNTS_DIR}/tables/fig06_properties.md",
    params:
        grid=COUNTS_SCALE["properties"],
        tolerance=COUNTS["tolerance"],
    log:
        "logs/constrained_counts/properties.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_properties.py"


rule counts_combinations:
    """Figure 8: the L0 optimum of the nine property combinations with WH, (a) against n, (b) against alpha."""
    output:
        f"{COUNTS_DIR}/tables/fig08{{panel}}_objectives.csv",
    params:
        n=lambda w: COUNTS_SCALE["fig08"]["n"] if w.panel == "a" else [COUNTS["fig08"]["n"]],
        alpha=lambda w: [COUNTS["fig08"]["alpha"]] if w.panel == "a" else COUNTS_SCALE["fig08"]["alpha"],
    log:
        "logs/constrained_counts/fig08{panel}_objectives.log",
    benchmark:
        "benchmarks/constrained_counts/fig08{panel}_objectives.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_combinations.py"


rule counts_scores:
    """Figure 9: the L0 scores of GM, WM, EM, UM (and the LP with WH alone) against n, for each alpha."""
    output:
        f"{COUNTS_DIR}/tables/fig09_scores.csv",
    params:
        n=COUNTS_SCALE["fig09"]["n"],
        alpha=COUNTS["fig09"]["alpha"],
    log:
        "logs/constrained_counts/fig09_scores.log",
    benchmark:
        "benchmarks/constrained_counts/fig09_scores.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_scores.py"


rule counts_published:
    """NOTES section 8: the paper's checkable numbers (Example 1, GM's score and thresholds, Figure 7) beside ours."""
    output:
        table=f"{COUNTS_DIR}/tables/published.csv",
        markdown=f"{COUNTS_DIR}/tables/published.md",
    params:
        example1=COUNTS["example1"],
        fig07=COUNTS["fig07"],
        thresholds=COUNTS["thresholds"],
        grid=COUNTS_SCALE["properties"],
        tolerance=COUNTS["tolerance"],
    log:
        "logs/constrained_counts/published.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_published.py"


rule counts_adult:
    """Figure 10: Adult persons in random groups of n; the fraction of groups whose noisy count is wrong."""
    input:
        persons="results/data/adult_persons.csv",
        mechanisms=rules.counts_mechanisms.output[0],
    output:
        f"{COUNTS_DIR}/tables/fig10_adult.csv",
    params:
        alpha=COUNTS["adult"]["alpha"],
        targets=COUNTS["adult"]["targets"],
        n=COUNTS_SCALE["adult"]["n"],
        repetitions=COUNTS_SCALE["adult"]["repetitions"],
        seed=SEED,
    log:
        "logs/constrained_counts/adult.log",
    benchmark:
        "benchmarks/constrained_counts/adult.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_adult.py"


rule counts_synthetic:
    """Figures 11-13: synthetic Binomial(n, p) groups through each mechanism, scored by L0,d and RMSE."""
    input:
        mechanisms=rules.counts_mechanisms.output[0],
    output:
        f"{COUNTS_DIR}/tables/{{synthetic}}_synthetic.csv",
    params:
        design=counts_synthetic_design,
        population=COUNTS_SCALE["synthetic"]["population"],
        repetitions=COUNTS_SCALE["synthetic"]["repetitions"],
        seed=SEED,
    log:
        "logs/constrained_counts/{synthetic}_synthetic.log",
    benchmark:
        "benchmarks/constrained_counts/{synthetic}_synthetic.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_synthetic.py"


rule counts_fig_optimal:
    """Figures 1 and 2: heatmaps of the unconstrained and the fully constrained optimal mechanisms."""
    input:
        rules.counts_optimal.output[0],
    output:
        [
            reported(f"{COUNTS_DIR}/figures/{name}.{ext}")
            for name in ("fig01", "fig02")
            for ext in ("pdf", "png")
        ],
    params:
        tolerance=COUNTS["tolerance"],
    log:
        "logs/constrained_counts/fig01_fig02.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig_optimal.py"


rule counts_fig_structure:
    """Figures 3 and 4: GM and EM written out entry by entry, coloured by their values at one alpha."""
    output:
        [
            reported(f"{COUNTS_DIR}/figures/{name}.{ext}")
            for name in ("fig03", "fig04")
            for ext in ("pdf", "png")
        ],
    params:
        n=COUNTS["structure"]["n"],
        alpha=COUNTS["structure"]["alpha"],
    log:
        "logs/constrained_counts/fig03_fig04.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig_structure.py"


rule counts_fig06:
    """Figure 6: the property table computed by the checker, beside the paper's."""
    input:
        rules.counts_properties.output.table,
    output:
        [
            reported(f"{COUNTS_DIR}/figures/fig06.{ext}")
            for ext in ("pdf", "png")
        ],
    params:
        grid=COUNTS_SCALE["properties"],
    log:
        "logs/constrained_counts/fig06.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig06.py"


rule counts_fig07:
    """Figure 7: GM, WM and EM for n = 4 as heatmaps."""
    input:
        rules.counts_mechanisms.output[0],
    output:
        [
            reported(f"{COUNTS_DIR}/figures/fig07.{ext}")
            for ext in ("pdf", "png")
        ],
    params:
        n=COUNTS["fig07"]["n"],
        alpha=COUNTS["fig07"]["alpha"],
    log:
        "logs/constrained_counts/fig07.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig07.py"


rule counts_fig08:
    """Figure 8: objective values of the nine combinations, (a) against n, (b) against alpha."""
    input:
        rules.counts_combinations.output[0],
    output:
        [
            reported(f"{COUNTS_DIR}/figures/fig08{{panel}}.{ext}")
            for ext in ("pdf", "png")
        ],
    log:
        "logs/constrained_counts/fig08{panel}.log",
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
            reported(f"{COUNTS_DIR}/figures/{name}.{ext}")
            for name in COUNTS_FIGURES
            if name.startswith("fig09")
            for ext in ("pdf", "png")
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
        [
            reported(f"{COUNTS_DIR}/figures/fig10.{ext}")
            for ext in ("pdf", "png")
        ],
    params:
        alpha=COUNTS["adult"]["alpha"],
        young_below=config["data"]["adult"]["young_below"],
    log:
        "logs/constrained_counts/fig10.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig10.py"


rule counts_fig_synthetic:
    """Figures 11-13: L0,d against p, L0,d against d, and RMSE against n on synthetic groups."""
    input:
        f"{COUNTS_DIR}/tables/{{synthetic}}_synthetic.csv",
    output:
        [
            reported(f"{COUNTS_DIR}/figures/{{synthetic}}.{ext}")
            for ext in ("pdf", "png")
        ],
    params:
        population=COUNTS_SCALE["synthetic"]["population"],
        repetitions=COUNTS_SCALE["synthetic"]["repetitions"],
    log:
        "logs/constrained_counts/{synthetic}.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/counts_fig_synthetic.py"
