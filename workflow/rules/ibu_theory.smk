"""The IBU consistency paper, theoretical parts: the log-likelihood surfaces (Figures 3 and 5, sections 4-5), RAPPOR's
strict concavity (Figure 4), a non-identifiable mechanism (Figure 6, section 6.4), INV's error (section 7.6) and
likely subsets (section 8). Parameters in config ibu_consistency.theory, sizes in scales.SCALE.ibu_consistency.theory.
"""


wildcard_constraints:
    case="|".join(THEORY_CASES),


rule ibu_theory_surfaces:
    """Figures 3 and 5: L over the 2-simplex for each (mechanism, observations) panel, its flat directions and MLEs."""
    output:
        figures=[
            reported(path)
            for path in theory_surface_figures()
        ],
        table=f"{IBU_DIR}/tables/surfaces_concavity.csv",
    params:
        surfaces=THEORY["surfaces"],
        resolution=THEORY["resolution"],
        stopping=THEORY["fig06"]["ibu"],
    log:
        "logs/ibu_consistency/theory/surfaces.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/theory_surfaces.py"


rule ibu_theory_fig04:
    """Figure 4: Theorem 4.4's lower bound against n, and the simulated probability that B has full rank."""
    output:
        figure=[
            reported(f"{IBU_DIR}/figures/fig04.{ext}")
            for ext in ("pdf", "png")
        ],
        table=f"{IBU_DIR}/tables/fig04_rappor.csv",
    params:
        spec=THEORY["fig04"],
        runs=THEORY_SCALE["fig04_runs"],
        seed=SEED,
    log:
        "logs/ibu_consistency/theory/fig04.log",
    benchmark:
        "benchmarks/ibu_consistency/theory/fig04.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/theory_rappor.py"


rule ibu_theory_fig06:
    """Figure 6: IBU's fixed points from several starts on q = theta M of the remapped planar geometric mechanism."""
    input:
        data="results/data/checkins_sf_square.npz",
        alphabet="results/data/checkins_sf_square_alphabet.json",
    output:
        figures=[
            reported(path)
            for path in theory_fig06_figures()
        ],
        table=f"{IBU_DIR}/tables/fig06_fixed_points.csv",
    params:
        spec=THEORY["fig06"],
        seed=SEED,
    log:
        "logs/ibu_consistency/theory/fig06.log",
    benchmark:
        "benchmarks/ibu_consistency/theory/fig06.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/theory_nonidentifiable.py"


rule ibu_theory_section7_6:
    """Section 7.6: INV's squared error under k-RR and the geometric mechanism: bounds, exact value, simulation."""
    input:
        data="results/data/ages.npz",
    output:
        csv=f"{IBU_DIR}/tables/section7_6.csv",
        md=f"{IBU_DIR}/tables/section7_6.md",
    params:
        spec=THEORY["section7_6"],
        runs=THEORY_SCALE["section7_6_runs"],
        seed=SEED,
    log:
        "logs/ibu_consistency/theory/section7_6.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/theory_inv_error.py"


rule ibu_theory_likely:
    """Section 8, one case: IBU (plain and accelerated) on the likely subset and on the whole alphabet, timed."""
    input:
        unpack(theory_likely_inputs),
    output:
        f"{IBU_DIR}/theory/likely_{{case}}.csv",
    params:
        spec=lambda w: THEORY["section8"][w.case],
        settings=THEORY_SETTINGS,
        seed=SEED,
    log:
        "logs/ibu_consistency/theory/likely_{case}.log",
    benchmark:
        "benchmarks/ibu_consistency/theory/likely_{case}.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/theory_likely.py"


rule ibu_theory_likely_table:
    """Section 8's table from the cases (a concatenation: run in-process)."""
    input:
        expand(f"{IBU_DIR}/theory/likely_{{case}}.csv", case=THEORY_CASES),
    output:
        csv=f"{IBU_DIR}/tables/section8_likely.csv",
        md=f"{IBU_DIR}/tables/section8_likely.md",
    log:
        "logs/ibu_consistency/theory/section8_table.log",
    localrule: True
    run:
        run_in_process(log, build_likely_table, list(input), output.csv, output.md)
