"""The free-will privacy paper: [e]_R, [e]_M and GIBU on mixtures of k-RR, RAPPOR, geometric and Shokri mechanisms.

Chain per mechanism set (Tables 4-8; every n and run in one job per stage): mechanisms (with the cached Shokri LPs)
-> perturb (the reports every estimator shares) -> estimate (one job per estimator family) -> score; then one tidy
table of the study, Figures 2-14, Tables 1-2 and the findings computed from it, Tables 4-8 regenerated from the config,
and the two checks of section 5 (the non-informative example of eq. 11, the bounds of Propositions 2-3).
"""


wildcard_constraints:
    mechanism_set="|".join(FW_SETS),
    estimator="|".join(privest_studies.free_will.FAMILIES),
    alphabet="|".join(FW["alphabets"]),
    Q="[0-9]+(\\.[0-9]+)?",


rule fw_alphabet:
    """An alphabet of secrets and its theta: Binomial on {0..k-1}, or a region's Gowalla check-ins (in-process)."""
    input:
        unpack(fw_alphabet_inputs),
    output:
        alphabet=f"{FW_DIR}/alphabets/{{alphabet}}.json",
        theta=f"{FW_DIR}/alphabets/{{alphabet}}_theta.npz",
    log:
        "logs/free_will/alphabet_{alphabet}.log",
    localrule: True
    run:
        run_in_process(log, build_fw_alphabet, wildcards.alphabet, input, output.alphabet, output.theta)


rule fw_shokri:
    """Shokri et al.'s optimal mechanism for one (alphabet, Q): an LP, the expensive step, solved once and cached.
    The LP is degenerate (the solver picks one of many optimal mechanisms), so the cache depends on the solver code."""
    input:
        alphabet=f"{FW_DIR}/alphabets/{{alphabet}}.json",
        solver_code=f"{workflow.basedir}/privest/shokri.py",
    output:
        f"{FW_DIR}/shokri/{{alphabet}}_Q{{Q}}.npz",
    params:
        options=FW["shokri"],
    log:
        "logs/free_will/shokri_{alphabet}_Q{Q}.log",
    benchmark:
        "benchmarks/free_will/shokri_{alphabet}_Q{Q}.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_shokri.py"


rule fw_mechanisms:
    """The mechanisms of one set (Tables 4-8) at the active scale (in-process: the LPs are cached by fw_shokri)."""
    input:
        alphabet=lambda w: f"{FW_DIR}/alphabets/{FW_SETS[w.mechanism_set]['alphabet']}.json",
        shokri=fw_shokri_files,
    output:
        f"{FW_DIR}/{{mechanism_set}}/mechanisms.npz",
    params:
        members=lambda w: [[m.kind, m.parameter] for m in fw_members(w.mechanism_set)],
    log:
        "logs/free_will/{mechanism_set}/mechanisms.log",
    localrule: True
    run:
        run_in_process(log, build_fw_mechanisms, wildcards.mechanism_set, input.alphabet, list(input.shokri), output[0])


rule fw_perturb:
    """Every (n, run): n users drawn from theta, split equally over the set's mechanisms, each reporting once."""
    input:
        mechanisms=rules.fw_mechanisms.output[0],
        theta=lambda w: f"{FW_DIR}/alphabets/{FW_SETS[w.mechanism_set]['alphabet']}_theta.npz",
    output:
        f"{FW_DIR}/{{mechanism_set}}/reports.npz",
    params:
        n=FW_SCALE["n"],
        runs=FW_SCALE["runs"],
        seed=SEED,
        seed_keys=lambda w: ["free_will", w.mechanism_set],
    log:
        "logs/free_will/{mechanism_set}/perturb.log",
    benchmark:
        "benchmarks/free_will/{mechanism_set}/perturb.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_perturb.py"


rule fw_estimate:
    """One estimator family (e.g. inv_m: [INV]_M normalised, projected and raw) on every n and run of a set."""
    input:
        mechanisms=rules.fw_mechanisms.output[0],
        reports=rules.fw_perturb.output[0],
    output:
        f"{FW_DIR}/{{mechanism_set}}/estimates_{{estimator}}.npz",
    params:
        stopping=FW["ibu"],
    log:
        "logs/free_will/{mechanism_set}/estimate_{estimator}.log",
    benchmark:
        "benchmarks/free_will/{mechanism_set}/estimate_{estimator}.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_estimate.py"


rule fw_score:
    """EMD (and l2^2) of every estimate of a set to theta, one tidy row per (n, run, method)."""
    input:
        estimates=lambda w: expand(
            f"{FW_DIR}/{w.mechanism_set}/estimates_{{estimator}}.npz", estimator=FW_SETS[w.mechanism_set]["families"]
        ),
        reports=rules.fw_perturb.output[0],
        alphabet=lambda w: f"{FW_DIR}/alphabets/{FW_SETS[w.mechanism_set]['alphabet']}.json",
        theta=lambda w: f"{FW_DIR}/alphabets/{FW_SETS[w.mechanism_set]['alphabet']}_theta.npz",
    output:
        f"{FW_DIR}/{{mechanism_set}}/scores.csv",
    params:
        labels=lambda w: {"study": "free_will", "mechanism_set": w.mechanism_set,
                          "alphabet": FW_SETS[w.mechanism_set]["alphabet"]},
    log:
        "logs/free_will/{mechanism_set}/score.log",
    benchmark:
        "benchmarks/free_will/{mechanism_set}/score.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_score.py"


rule fw_aggregate:
    """One tidy table of every score of the study (a concatenation: in-process)."""
    input:
        expand(f"{FW_DIR}/{{mechanism_set}}/scores.csv", mechanism_set=FW_SETS),
    output:
        f"{FW_DIR}/tables/scores.csv",
    log:
        "logs/free_will/aggregate.log",
    localrule: True
    run:
        run_in_process(log, privest_studies.files.concat_tables, list(input), output[0])


rule fw_tables:
    """Tables 1 and 2 (measured ratios to GIBU, our verdict beside the paper's), the per-point summary and the
    paper's qualitative findings tested on the scores."""
    input:
        rules.fw_aggregate.output[0],
    output:
        summary=f"{FW_DIR}/tables/summary.csv",
        table01=[f"{FW_DIR}/tables/table01.csv", f"{FW_DIR}/tables/table01.md"],
        table02=[f"{FW_DIR}/tables/table02.csv", f"{FW_DIR}/tables/table02.md"],
        findings=[f"{FW_DIR}/tables/findings.csv", f"{FW_DIR}/tables/findings.md"],
    params:
        tables=FW["tables"],
        verdict=FW["verdict"],
        findings=FW["findings"],
    log:
        "logs/free_will/tables.log",
    benchmark:
        "benchmarks/free_will/tables.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_tables.py"


rule fw_mechanism_tables:
    """Tables 4-8 regenerated from the config's mechanism sets, so config and tables cannot drift (in-process)."""
    output:
        fw_mechanism_table_files(),
    params:
        sets=FW_SETS,
        titles=FW["mechanism_tables"],
        shokri_Q=FW_SCALE.get("shokri_Q", {}),
    log:
        "logs/free_will/mechanism_tables.log",
    localrule: True
    run:
        run_in_process(log, build_fw_mechanism_tables, list(output))


rule fw_figures:
    """Figures 2-14: EMD against the number of users n, mean +- 1 s.d. over runs, one line per method."""
    input:
        scores=rules.fw_aggregate.output[0],
        mechanisms=expand(f"{FW_DIR}/{{mechanism_set}}/mechanisms.npz", mechanism_set=FW_SETS),
        alphabets=expand(f"{FW_DIR}/alphabets/{{alphabet}}.json", alphabet=FW["alphabets"]),
    output:
        [
            reported(path)
            for path in fw_figure_files()
        ],
    params:
        figures=FW["figures"],
        panels=fw_panels(),
        sets=FW_SETS,
        stopping=FW["ibu"],
        runs=FW_SCALE["runs"],
        shokri_Q=FW_SCALE.get("shokri_Q", {}),
        scale=config["scale"],
    log:
        "logs/free_will/figures.log",
    benchmark:
        "benchmarks/free_will/figures.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_figures.py"


rule fw_propositions:
    """Propositions 2 and 3: the closed-form l2^2 bounds beside the simulated mean squared error of the raw [INV]_M
    (k-RR) and [RAP]_M estimates against n."""
    input:
        scores=rules.fw_aggregate.output[0],
        mechanisms=lambda w: [f"{FW_DIR}/{p['mechanism_set']}/mechanisms.npz" for p in FW["propositions"]],
        thetas=lambda w: [f"{FW_DIR}/alphabets/{FW_SETS[p['mechanism_set']]['alphabet']}_theta.npz"
                          for p in FW["propositions"]],
    output:
        figure=[
            reported(f"{FW_DIR}/figures/propositions.{ext}")
            for ext in ("pdf", "png")
        ],
        table=f"{FW_DIR}/tables/propositions.csv",
    params:
        panels=FW["propositions"],
        runs=FW_SCALE["runs"],
    log:
        "logs/free_will/propositions.log",
    benchmark:
        "benchmarks/free_will/propositions.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_propositions.py"


rule fw_noninformative:
    """Eq. (11): half the users on A, half on A'; [IBU]_M cannot recover theta from the non-informative A[n], GIBU
    can."""
    output:
        figure=[
            reported(f"{FW_DIR}/figures/eq11_noninformative.{ext}")
            for ext in ("pdf", "png")
        ],
        table=f"{FW_DIR}/tables/eq11_noninformative.csv",
    params:
        example=FW["noninformative"],
        n=FW_SCALE["n"],
        runs=FW_SCALE["runs"],
        stopping=FW["ibu"],
        seed=SEED,
    log:
        "logs/free_will/noninformative.log",
    benchmark:
        "benchmarks/free_will/noninformative.tsv"
    conda:
        "../../envs/privest.yaml"
    script:
        "../../scripts/fw_noninformative.py"


rule free_will:
    """Every output of the free-will study at the active scale (`snakemake free_will`)."""
    input:
        free_will_targets(),
    localrule: True
