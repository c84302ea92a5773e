"""The IBU consistency paper: IBU against INV-N and INV-P on Adult ages and Gowalla locations.

Chain per experiment (every eps of its grid, every run, in one job per stage): mechanism -> perturb -> estimate (one
job per estimator family) -> score, then one tidy table for the study and the figures drawn from it.
"""


wildcard_constraints:
    experiment="|".join(IBU_EXPERIMENTS),
    family="inv|ibu",


rule ibu_mechanism:
    """The mechanism matrices of one experiment, one per eps of its grid (milliseconds of work: run in-process)."""
    input:
        alphabet=lambda w: ibu_dataset(w) + "_alphabet.json",
    output:
        f"{IBU_DIR}/{{experiment}}/mechanisms.npz",
    params:
        kind=lambda w: IBU_EXPERIMENTS[w.experiment]["mechanism"],
        eps=lambda w: ibu_eps(w.experiment),
    log:
        "logs/ibu_consistency/{experiment}/mechanism.log",
    localrule: True
    run:
        run_in_process(log, build_mechanisms, input.alphabet, params.kind, params.eps, output[0])


rule ibu_perturb:
    """Every run's reports of the dataset's users through each mechanism (report counts per eps and run)."""
    input:
        mechanisms=rules.ibu_mechanism.output[0],
        data=lambda w: ibu_dataset(w) + ".npz",
    output:
        f"{IBU_DIR}/{{experiment}}/reports.npz",
    params:
        runs=IBU_SCALE["runs"],
        seed=SEED,
        seed_keys=lambda w: ["ibu_consistency", w.experiment],
    log:
        "logs/ibu_consistency/{experiment}/perturb.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/perturb.py"


rule ibu_estimate:
    """One estimator family (inv: INV-N and INV-P; ibu: IBU) on every eps and run of an experiment."""
    input:
        mechanisms=rules.ibu_mechanism.output[0],
        reports=rules.ibu_perturb.output[0],
    output:
        f"{IBU_DIR}/{{experiment}}/estimates_{{family}}.npz",
    params:
        stopping=IBU["ibu"],
    log:
        "logs/ibu_consistency/{experiment}/estimate_{family}.log",
    benchmark:
        "benchmarks/ibu_consistency/{experiment}/estimate_{family}.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/estimate.py"


rule ibu_score:
    """EMD of every estimate (and of the noisy reports, where Z = X) to the original distribution."""
    input:
        estimates=lambda w: expand(
            f"{IBU_DIR}/{w.experiment}/estimates_{{family}}.npz", family=IBU_EXPERIMENTS[w.experiment]["families"]
        ),
        mechanisms=rules.ibu_mechanism.output[0],
        reports=rules.ibu_perturb.output[0],
        data=lambda w: ibu_dataset(w) + ".npz",
        alphabet=lambda w: ibu_dataset(w) + "_alphabet.json",
    output:
        f"{IBU_DIR}/{{experiment}}/scores.csv",
    params:
        labels=lambda w: {
            "study": "ibu_consistency",
            "experiment": w.experiment,
            "mechanism": IBU_EXPERIMENTS[w.experiment]["mechanism"],
        },
    log:
        "logs/ibu_consistency/{experiment}/score.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/score.py"


rule ibu_aggregate:
    """One tidy table of every score of the study (a concatenation: run in-process)."""
    input:
        expand(f"{IBU_DIR}/{{experiment}}/scores.csv", experiment=IBU_EXPERIMENTS),
    output:
        f"{IBU_DIR}/tables/scores.csv",
    log:
        "logs/ibu_consistency/aggregate.log",
    localrule: True
    run:
        run_in_process(log, privest.io.concat_tables, list(input), output[0])


rule ibu_fig01:
    """Figure 1: the original, noisy and estimated distributions of Adult ages (run 0), one panel per method."""
    input:
        data=DATASET["ages"] + ".npz",
        mechanisms=f"{IBU_DIR}/{IBU['fig01']['experiment']}/mechanisms.npz",
        reports=f"{IBU_DIR}/{IBU['fig01']['experiment']}/reports.npz",
        estimates=expand(
            f"{IBU_DIR}/{IBU['fig01']['experiment']}/estimates_{{family}}.npz", family=["inv", "ibu"]
        ),
        alphabet=DATASET["ages"] + "_alphabet.json",
    output:
        [
            report(path, caption="../report/ibu_fig01.rst", category="IBU consistency", subcategory="Figure 1")
            for path in expand(f"{IBU_DIR}/figures/fig01{{panel}}.{{ext}}", panel=list("abc"), ext=["pdf", "png"])
        ],
    params:
        methods=["INV-N", "INV-P", "IBU"],
        eps=IBU["fig01"]["eps"],
        stopping=IBU["ibu"],
    log:
        "logs/ibu_consistency/fig01.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fig_estimates.py"


rule ibu_boxplot:
    """Figure 9 panels: boxplots over runs of each method's EMD against eps."""
    input:
        rules.ibu_aggregate.output[0],
    output:
        [
            report(
                f"{IBU_DIR}/figures/{{figure}}.{ext}",
                caption="../report/ibu_boxplot.rst",
                category="IBU consistency",
                subcategory="Figure 9",
            )
            for ext in ("pdf", "png")
        ],
    wildcard_constraints:
        figure="|".join(IBU["boxplots"]),
    params:
        experiment=lambda w: IBU["boxplots"][w.figure],
        stopping=IBU["ibu"],
        runs=IBU_SCALE["runs"],
    log:
        "logs/ibu_consistency/{figure}.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fig_boxplot.py"
