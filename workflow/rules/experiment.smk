"""The one experiment chain of every study: mechanisms -> perturb -> estimate (one job per estimator family) -> score
-> aggregate, each job over every point and run of one experiment. Where the scale says so for the study (config
scales.<scale>.estimate.runs_per_job), an iterative family on RAPPOR or protocol points runs as one estimate_part
job per point and block of runs, and rule estimate gathers them into the same archive.

An experiment (privest_studies.experiment.Experiment) is built from the config by its study's module: the IBU
paper's (one mechanism per eps point: privest_studies.ibu_consistency) and the free-will paper's mechanism sets (a
mixture per n point: privest_studies.free_will). Files: results/{study}/{experiment}/.
"""


wildcard_constraints:
    study="|".join(EXPERIMENTS),
    experiment="|".join(name for study in EXPERIMENTS.values() for name in study),
    family="|".join(privest_studies.experiment.FAMILIES),


rule chain_inputs:
    """Every dataset, alphabet and cached Shokri LP the experiment chains read, and nothing else (`snakemake
    chain_inputs`): `make reproduce` builds them first, so that when the rest of the run starts the cost model knows
    every dataset's size and the chains' longest jobs go first (chain_priority)."""
    input:
        chain_input_files(),
    localrule: True


rule mechanisms:
    """The distinct mechanisms of one experiment, one matrix each (RAPPOR: its eps only), Shokri's from the LP cache."""
    input:
        unpack(mechanisms_inputs),
    output:
        "results/{study}/{experiment}/mechanisms.npz",
    log:
        "logs/{study}/{experiment}/mechanisms.log",
    priority: chain_priority
    conda:
        "../../envs/privest.yaml"
    resources:
        # k x k float64 matrices: privest_studies.cost.mechanisms_megabytes.
        mem_mb=lambda w, attempt: attempt
        * privest_studies.cost.mechanisms_megabytes_of(EXPERIMENTS[w.study][w.experiment]),
    params:
        experiment=experiment_spec,
    script:
        "../../scripts/mechanisms.py"


rule perturb:
    """Every (point, run): the users split over the point's mechanisms, each reporting once."""
    input:
        mechanisms=rules.mechanisms.output[0],
        data=lambda w: EXPERIMENTS[w.study][w.experiment].data_file,
    output:
        "results/{study}/{experiment}/reports.npz",
    log:
        "logs/{study}/{experiment}/perturb.log",
    benchmark:
        "benchmarks/{study}/{experiment}/perturb.tsv"
    priority: chain_priority
    conda:
        "../../envs/privest.yaml"
    resources:
        # privest_studies.cost's model of the job's memory (MB), so that a run never starts two jobs that do not fit
        # together (`--resources mem_mb=...`; `make reproduce` gives the machine's available memory).
        mem_mb=lambda w, attempt: attempt
        * privest_studies.cost.job_megabytes_of(EXPERIMENTS[w.study][w.experiment], None),
    params:
        experiment=experiment_spec,
        seed=config["seed"],
    script:
        "../../scripts/perturb.py"


rule estimate_part:
    """One estimator family on one point and block of runs of an experiment (a split estimate job)."""
    input:
        mechanisms=rules.mechanisms.output[0],
        reports=rules.perturb.output[0],
    output:
        "results/{study}/{experiment}/parts/estimates_{family}_{part}.npz",
    log:
        "logs/{study}/{experiment}/estimate_{family}_{part}.log",
    benchmark:
        "benchmarks/{study}/{experiment}/estimate_{family}_{part}.tsv"
    wildcard_constraints:
        part=r"point\d+_runs\d+-\d+",
    priority: chain_priority
    conda:
        "../../envs/privest.yaml"
    resources:
        mem_mb=lambda w, attempt: attempt
        * privest_studies.cost.job_megabytes_of(EXPERIMENTS[w.study][w.experiment], w.family),
    params:
        experiment=experiment_spec,
        stopping=lambda w: EXPERIMENTS[w.study][w.experiment].stopping_rule,
    script:
        "../../scripts/estimate_part.py"


rule estimate:
    """One estimator family on every point and run of an experiment, or its parts gathered where it is split."""
    input:
        unpack(estimate_inputs),
    output:
        "results/{study}/{experiment}/estimates_{family}.npz",
    log:
        "logs/{study}/{experiment}/estimate_{family}.log",
    benchmark:
        "benchmarks/{study}/{experiment}/estimate_{family}.tsv"
    priority: chain_priority
    conda:
        "../../envs/privest.yaml"
    resources:
        mem_mb=lambda w, attempt: attempt
        * privest_studies.cost.job_megabytes_of(EXPERIMENTS[w.study][w.experiment], w.family),
    params:
        experiment=experiment_spec,
        stopping=lambda w: EXPERIMENTS[w.study][w.experiment].stopping_rule,
    script:
        "../../scripts/estimate.py"


rule score:
    """EMD and l2^2 of every estimate of an experiment to the original distribution, one tidy row per (point, run,
    method)."""
    input:
        estimates=lambda w: expand(
            "results/{{study}}/{{experiment}}/estimates_{family}.npz",
            family=EXPERIMENTS[w.study][w.experiment].families,
        ),
        reports=rules.perturb.output[0],
        data=lambda w: EXPERIMENTS[w.study][w.experiment].data_file,
        alphabet=lambda w: EXPERIMENTS[w.study][w.experiment].alphabet_file,
    output:
        "results/{study}/{experiment}/scores.csv",
    log:
        "logs/{study}/{experiment}/score.log",
    benchmark:
        "benchmarks/{study}/{experiment}/score.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        experiment=experiment_spec,
    script:
        "../../scripts/score.py"


rule aggregate:
    """One tidy table of every score of a study."""
    input:
        lambda w: expand("results/{{study}}/{experiment}/scores.csv", experiment=EXPERIMENTS[w.study]),
    output:
        "results/{study}/tables/scores.csv",
    log:
        "logs/{study}/aggregate.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/aggregate.py"
