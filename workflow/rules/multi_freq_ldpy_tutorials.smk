"""Beyond the papers (issue 49): multi-freq-ldpy's three tutorial grids (privest_studies.multi_freq_ldpy_tutorials),
the peer's unbiased estimator (Norm-Mul) and GIBU side by side, scored by the tutorials' MSE and by EMD.

The single-attribute and longitudinal protocols that are kinds of the one chain run there, an experiment each
(results/multi_freq_ldpy_tutorials/<grid>_<protocol>/, workflow/rules/experiment.smk); SHE, dBitFlipPM and the
multidimensional solutions run in mt_estimate jobs (the module's docstring says why). Below: the data, those jobs, the
study's table of every run with its summary, and one figure per grid (and multidimensional data set).
Config: multi_freq_ldpy_tutorials; sizes: scales.SCALE.multi_freq_ldpy_tutorials.
"""

MT = config["multi_freq_ldpy_tutorials"]
# What the study's jobs read of the config: its own keys, the seed and the active scale's sizes, so that no other
# change reruns them.
MT_CONFIG = {
    "seed": config["seed"],
    "scale": config["scale"],
    "scales": {
        config["scale"]: {"multi_freq_ldpy_tutorials": config["scales"][config["scale"]]["multi_freq_ldpy_tutorials"]}
    },
    "multi_freq_ldpy_tutorials": MT,
}
MT_RESULTS = privest_studies.multi_freq_ldpy_tutorials.RESULTS
MT_JOBS = privest_studies.multi_freq_ldpy_tutorials.own_jobs(config)


rule mt_data:
    """The ages of Adult's complete persons (label-encoded, the chain's dataset), six Adult columns and the synthetic
    tuples of MS-FIMU's shape."""
    input:
        data="data/raw/adult.data",
        test="data/raw/adult.test",
    output:
        ages=f"{MT_RESULTS}/data/ages.npz",
        ages_alphabet=f"{MT_RESULTS}/data/ages_alphabet.json",
        adult=privest_studies.multi_freq_ldpy_tutorials.MULTIDIM_DATA["adult"],
        synthetic=privest_studies.multi_freq_ldpy_tutorials.MULTIDIM_DATA["synthetic"],
    log:
        "logs/multi_freq_ldpy_tutorials/data.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        seed=config["seed"],
        multidim=MT["multidim"],
        accepted={key: privest_studies.fetch.sources(DATA, f"adult.{key}")["accepted"] for key in ("data", "test")},
    script:
        "../../scripts/mt_data.py"


rule mt_estimate:
    """One protocol or multidimensional solution outside the chain: every (eps, run), both estimators, scored."""
    input:
        data=lambda w: privest_studies.multi_freq_ldpy_tutorials.own_data(w.job),
    output:
        f"{MT_RESULTS}/own/{{job}}.csv",
    log:
        "logs/multi_freq_ldpy_tutorials/estimate_{job}.log",
    benchmark:
        "benchmarks/multi_freq_ldpy_tutorials/estimate_{job}.tsv"
    wildcard_constraints:
        job="|".join(MT_JOBS),
    conda:
        "../../envs/privest.yaml"
    params:
        config=MT_CONFIG,
    script:
        "../../scripts/mt_estimate.py"


rule mt_summary:
    """Every run of the three grids in one table (the chain's scores and the mt_estimate jobs'), its means per
    (grid, data set, protocol, eps, method), and the page of norm-mul against GIBU."""
    input:
        # rule aggregate's table of the chain's experiments
        scores=f"{MT_RESULTS}/tables/scores.csv",
        own=[f"{MT_RESULTS}/own/{job}.csv" for job in MT_JOBS],
        alphabet=f"{MT_RESULTS}/data/ages_alphabet.json",
    output:
        runs=f"{MT_RESULTS}/tables/runs.csv",
        csv=f"{MT_RESULTS}/tables/summary.csv",
        markdown=f"{MT_RESULTS}/tables/summary.md",
    log:
        "logs/multi_freq_ldpy_tutorials/summary.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        config=MT_CONFIG,
    script:
        "../../scripts/mt_summary.py"


rule mt_figures:
    """One figure per grid (the multidimensional one per data set): MSE (the tutorials' figure) and EMD against eps,
    log y, the peer's estimator solid and GIBU dashed."""
    input:
        summary=rules.mt_summary.output.csv,
        alphabet=f"{MT_RESULTS}/data/ages_alphabet.json",
    output:
        [
            reported(path)
            for path in expand(
                f"{MT_RESULTS}/figures/{{name}}.{{ext}}",
                name=["single", "longitudinal", "multidim_adult", "multidim_synthetic"],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/multi_freq_ldpy_tutorials/figures.log",
    benchmark:
        "benchmarks/multi_freq_ldpy_tutorials/figures.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        config=MT_CONFIG,
    script:
        "../../scripts/mt_figures.py"


rule multi_freq_ldpy_tutorials:
    """Every output of the multi-freq-ldpy tutorials study at the active scale (`snakemake
    multi_freq_ldpy_tutorials`)."""
    input:
        rules.mt_summary.output,
        rules.mt_figures.output,
    localrule: True
