"""The IBU consistency paper, section 7: IBU against INV-N and INV-P on Adult ages, Gowalla locations and synthetic
RAPPOR data.

Chain per experiment (every eps of its grid, every run, in one job per stage): mechanism -> perturb -> estimate (one
job per estimator family) -> score, then one tidy table for the study and the figures drawn from it. Experiments,
figures and synthetic datasets are declared in config.yaml under ibu_consistency; sizes under scales.
"""


wildcard_constraints:
    experiment="|".join(IBU_EXPERIMENTS),
    family="inv|ibu|rap",


rule ibu_synthetic:
    """A synthetic dataset of section 7.5: theta on {0..k-1} from the config (milliseconds: run in-process)."""
    output:
        data=f"{IBU_DIR}/data/{{dataset}}.npz",
        alphabet=f"{IBU_DIR}/data/{{dataset}}_alphabet.json",
    wildcard_constraints:
        dataset="|".join(IBU["synthetic"]),
    params:
        spec=lambda w: IBU["synthetic"][w.dataset],
    log:
        "logs/ibu_consistency/synthetic_{dataset}.log",
    localrule: True
    run:
        run_in_process(log, build_synthetic, params.spec, output.data, output.alphabet)


rule ibu_mechanism:
    """The mechanism matrices of one experiment, one per eps of its grid (milliseconds of work: run in-process)."""
    input:
        alphabet=lambda w: ibu_data(w.experiment) + "_alphabet.json",
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
    """Every run's reports through each mechanism of the grid: the dataset's own users, or users drawn from a
    synthetic theta; report counts (matrix mechanisms) or grouped bit vectors (RAPPOR)."""
    input:
        mechanisms=rules.ibu_mechanism.output[0],
        data=lambda w: ibu_data(w.experiment) + ".npz",
    output:
        f"{IBU_DIR}/{{experiment}}/reports.npz",
    params:
        runs=IBU_SCALE["runs"],
        users=lambda w: ibu_users(w.experiment),
        seed=SEED,
        seed_keys=lambda w: ["ibu_consistency", w.experiment],
    log:
        "logs/ibu_consistency/{experiment}/perturb.log",
    benchmark:
        "benchmarks/ibu_consistency/{experiment}/perturb.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/perturb.py"


rule ibu_estimate:
    """IBU on every eps and run of an experiment (GIBU on the grouped reports for RAPPOR)."""
    input:
        mechanisms=rules.ibu_mechanism.output[0],
        reports=rules.ibu_perturb.output[0],
    output:
        f"{IBU_DIR}/{{experiment}}/estimates_{{family}}.npz",
    wildcard_constraints:
        family="ibu",
    params:
        stopping=IBU["ibu"],
        runs=IBU_SCALE["runs"],
    log:
        "logs/ibu_consistency/{experiment}/estimate_{family}.log",
    benchmark:
        "benchmarks/ibu_consistency/{experiment}/estimate_{family}.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/estimate.py"


rule ibu_estimate_light:
    """The light estimator families on every eps and run of an experiment, in-process: inv (INV-N and INV-P from one
    factorisation per eps) and rap (RAPPOR's own estimator from the bit sums, normalised and projected: named INV-N
    and INV-P as in the paper's Figure 12)."""
    input:
        mechanisms=rules.ibu_mechanism.output[0],
        reports=rules.ibu_perturb.output[0],
    output:
        f"{IBU_DIR}/{{experiment}}/estimates_{{family}}.npz",
    wildcard_constraints:
        family="inv|rap",
    params:
        stopping=IBU["ibu"],
        runs=IBU_SCALE["runs"],
    log:
        "logs/ibu_consistency/{experiment}/estimate_{family}.log",
    localrule: True
    run:
        run_in_process(
            log, estimate_in_process, input.mechanisms, input.reports, wildcards.family, params.stopping,
            params.runs, output[0],
        )


rule ibu_score:
    """EMD of every estimate (and of the noisy reports, where Z = X) to the original distribution."""
    input:
        estimates=lambda w: expand(
            f"{IBU_DIR}/{w.experiment}/estimates_{{family}}.npz", family=IBU_EXPERIMENTS[w.experiment]["families"]
        ),
        reports=rules.ibu_perturb.output[0],
        data=lambda w: ibu_data(w.experiment) + ".npz",
        alphabet=lambda w: ibu_data(w.experiment) + "_alphabet.json",
    output:
        f"{IBU_DIR}/{{experiment}}/scores.csv",
    params:
        runs=IBU_SCALE["runs"],
        labels=lambda w: {
            "study": "ibu_consistency",
            "experiment": w.experiment,
            "mechanism": IBU_EXPERIMENTS[w.experiment]["mechanism"],
        },
    log:
        "logs/ibu_consistency/{experiment}/score.log",
    benchmark:
        "benchmarks/ibu_consistency/{experiment}/score.tsv"
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
        run_in_process(log, privest_studies.files.concat_tables, list(input), output[0])


rule ibu_fig01:
    """Figure 1: the original, noisy and estimated distributions of Adult ages (run 0), one panel per method."""
    input:
        data=ibu_data(IBU["fig01"]["experiment"]) + ".npz",
        mechanisms=f"{IBU_DIR}/{IBU['fig01']['experiment']}/mechanisms.npz",
        reports=f"{IBU_DIR}/{IBU['fig01']['experiment']}/reports.npz",
        estimates=ibu_experiment_files("fig01", "estimates_inv.npz", "estimates_ibu.npz"),
        alphabet=ibu_data(IBU["fig01"]["experiment"]) + "_alphabet.json",
    output:
        [
            reported(path)
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
    """Figures 9, 10 and 12, one file per panel: boxplots over runs of each method's EMD against eps (one job: each
    panel takes a fraction of a second once matplotlib and pandas are loaded)."""
    input:
        table=rules.ibu_aggregate.output[0],
        alphabets=[ibu_data(panel["experiment"]) + "_alphabet.json" for panel in ibu_boxplot_panels()],
    output:
        [
            reported(f"{IBU_DIR}/figures/{panel['figure']}.{ext}")
            for panel in ibu_boxplot_panels()
            for ext in ("pdf", "png")
        ],
    params:
        panels=ibu_boxplot_panels(),
        stopping=IBU["ibu"],
        runs=IBU_SCALE["runs"],
    log:
        "logs/ibu_consistency/boxplots.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fig_boxplot.py"


rule ibu_fig07:
    """Figure 7: the check-ins of the planar region on its grid (the region used is printed on the figure)."""
    input:
        data=DATASET["planar"] + ".npz",
        alphabet=DATASET["planar"] + "_alphabet.json",
    output:
        [
            reported(path)
            for path in expand(f"{IBU_DIR}/figures/fig07.{{ext}}", ext=["pdf", "png"])
        ],
    log:
        "logs/ibu_consistency/fig07.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fig_ibu_checkins.py"


rule ibu_fig08:
    """Figure 8: original, noisy, INV-P, INV-N and IBU on the planar grid (run 0 at one eps), each with its EMD, and
    the table of our EMDs beside the paper's."""
    input:
        data=ibu_data(IBU["fig08"]["experiment"]) + ".npz",
        alphabet=ibu_data(IBU["fig08"]["experiment"]) + "_alphabet.json",
        reports=f"{IBU_DIR}/{IBU['fig08']['experiment']}/reports.npz",
        estimates=ibu_experiment_files("fig08", "estimates_inv.npz", "estimates_ibu.npz"),
        scores=f"{IBU_DIR}/{IBU['fig08']['experiment']}/scores.csv",
    output:
        figures=[
            reported(path)
            for path in expand(f"{IBU_DIR}/figures/fig08{{panel}}.{{ext}}", panel=list("abcde"), ext=["pdf", "png"])
        ],
        table=f"{IBU_DIR}/tables/fig08_emd.csv",
        markdown=f"{IBU_DIR}/tables/fig08_emd.md",
    params:
        experiment=IBU["fig08"]["experiment"],
        eps=IBU["fig08"]["eps"],
        published=IBU["fig08"]["published"],
        published_region=ibu_published_region(),
        published_checkins=IBU["fig08"]["published_checkins"],
        stopping=IBU["ibu"],
    log:
        "logs/ibu_consistency/fig08.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fig_ibu_grid_estimates.py"


rule ibu_fig11:
    """Figure 11: IBU's estimate from RAPPOR reports beside the original distribution, one panel per experiment."""
    input:
        alphabets=ibu_data_files("fig11", "_alphabet.json"),
        data=ibu_data_files("fig11", ".npz"),
        reports=ibu_experiment_files("fig11", "reports.npz"),
        estimates=ibu_experiment_files("fig11", "estimates_ibu.npz"),
    output:
        [
            reported(path)
            for path in expand(
                f"{IBU_DIR}/figures/fig11{{panel}}.{{ext}}",
                panel=[chr(ord("a") + i) for i in range(len(IBU["fig11"]["experiments"]))],
                ext=["pdf", "png"],
            )
        ],
    params:
        eps=IBU["fig11"]["eps"],
        stopping=IBU["ibu"],
    log:
        "logs/ibu_consistency/fig11.log",
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fig_ibu_rappor_estimates.py"
