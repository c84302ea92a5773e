"""The IBU consistency paper, theoretical parts: the log-likelihood surfaces (Figures 3 and 5, sections 4-5), RAPPOR's
strict concavity (Figure 4), a non-identifiable mechanism (Figure 6, section 6.4), INV's error (section 7.6) and
likely subsets (section 8). Parameters in config ibu_consistency.theory, sizes in scales.SCALE.ibu_consistency.theory.
"""

THEORY = config["ibu_consistency"]["theory"]
THEORY_SCALE = config["scales"][config["scale"]]["ibu_consistency"]["theory"]


wildcard_constraints:
    case="|".join(privest_studies.ibu_consistency.LIKELY_CASES),


rule ibu_theory_surfaces:
    """Figures 3 and 5: L over the 2-simplex for each (mechanism, observations) panel, its flat directions and MLEs;
    the panels: config ibu_consistency.theory.surfaces."""
    output:
        figures=[
            reported(path)
            for path in expand(
                "results/ibu_consistency/figures/{panel}.{ext}",
                panel=["fig03a", "fig03b", "fig05a", "fig05b"],
                ext=["pdf", "png"],
            )
        ],
        table="results/ibu_consistency/tables/surfaces_concavity.csv",
    log:
        "logs/ibu_consistency/theory/surfaces.log",
    conda:
        "../../envs/privest.yaml"
    params:
        panels=lambda w, output: privest_studies.ibu_consistency.surface_panels(config, list(output.figures)),
        resolution=THEORY["resolution"],
        stopping=THEORY["fig06"]["ibu"],
    script:
        "../../scripts/ibu_theory_surfaces.py"


rule ibu_theory_fig04:
    """Figure 4: Theorem 4.4's lower bound against n, and the simulated probability that B has full rank."""
    output:
        figure=[reported(path) for path in expand("results/ibu_consistency/figures/fig04.{ext}", ext=["pdf", "png"])],
        table="results/ibu_consistency/tables/fig04_rappor.csv",
    log:
        "logs/ibu_consistency/theory/fig04.log",
    benchmark:
        "benchmarks/ibu_consistency/theory/fig04.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        spec=THEORY["fig04"],
        runs=THEORY_SCALE["fig04_runs"],
        seed=config["seed"],
    script:
        "../../scripts/ibu_theory_fig04.py"


rule ibu_theory_fig06:
    """Figure 6: the original distribution (a) and IBU's fixed points (b-d) from several starts on q = theta M of the
    remapped planar geometric mechanism."""
    input:
        data="results/data/checkins_sf_square.npz",
        alphabet="results/data/checkins_sf_square_alphabet.json",
    output:
        figures=[
            reported(path)
            for path in expand(
                "results/ibu_consistency/figures/{panel}.{ext}",
                panel=["fig06a", "fig06b", "fig06c", "fig06d"],
                ext=["pdf", "png"],
            )
        ],
        table="results/ibu_consistency/tables/fig06_fixed_points.csv",
    log:
        "logs/ibu_consistency/theory/fig06.log",
    benchmark:
        "benchmarks/ibu_consistency/theory/fig06.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        spec=THEORY["fig06"],
        seed=config["seed"],
    script:
        "../../scripts/ibu_theory_fig06.py"


rule ibu_theory_section7_6:
    """Section 7.6: INV's squared error under k-RR and the geometric mechanism: bounds, exact value, simulation."""
    input:
        data="results/data/ages.npz",
    output:
        csv="results/ibu_consistency/tables/section7_6.csv",
        md="results/ibu_consistency/tables/section7_6.md",
    log:
        "logs/ibu_consistency/theory/section7_6.log",
    conda:
        "../../envs/privest.yaml"
    params:
        spec=THEORY["section7_6"],
        published=CATALOGUE["ibu_consistency"]["published"]["section7_6_C"],
        runs=THEORY_SCALE["section7_6_runs"],
        seed=config["seed"],
    script:
        "../../scripts/ibu_theory_section7_6.py"


rule ibu_theory_likely:
    """Section 8, one case: IBU (plain and accelerated) on the likely subset and on the whole alphabet, timed."""
    input:
        unpack(lambda w: privest_studies.ibu_consistency.likely_inputs(config, w.case)),
    output:
        "results/ibu_consistency/theory/likely_{case}.csv",
    log:
        "logs/ibu_consistency/theory/likely_{case}.log",
    benchmark:
        "benchmarks/ibu_consistency/theory/likely_{case}.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        spec=lambda w: THEORY["section8"][w.case],
        settings=privest_studies.ibu_consistency.likely_settings(config),
        seed=config["seed"],
    script:
        "../../scripts/ibu_theory_likely.py"


rule ibu_theory_likely_table:
    """Section 8's table from the cases."""
    input:
        expand("results/ibu_consistency/theory/likely_{case}.csv", case=privest_studies.ibu_consistency.LIKELY_CASES),
    output:
        csv="results/ibu_consistency/tables/section8_likely.csv",
        md="results/ibu_consistency/tables/section8_likely.md",
    log:
        "logs/ibu_consistency/theory/section8_table.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/ibu_theory_likely_table.py"


rule ibu_theory:
    """Every output of the IBU paper's theoretical parts at the active scale (`snakemake ibu_theory`)."""
    input:
        rules.ibu_theory_surfaces.output,
        rules.ibu_theory_fig04.output,
        rules.ibu_theory_fig06.output,
        rules.ibu_theory_section7_6.output,
        rules.ibu_theory_likely_table.output,
    localrule: True
