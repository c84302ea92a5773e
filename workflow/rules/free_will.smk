"""The free-will privacy paper: [e]_R, [e]_M and GIBU on mixtures of k-RR, RAPPOR, geometric and Shokri mechanisms.

Each mechanism set of Tables 4-8 (config free_will.mechanism_sets) is an experiment of the one chain of
workflow/rules/experiment.smk (the whole set at every n, users split equally, every n and run in one job per stage)
into results/free_will/<mechanism set>/; the study's tidy table is results/free_will/tables/scores.csv. Below: the
alphabets and their theta, the cached Shokri LPs, Figures 2-14, the numbers of Tables 1-2 and of the findings
computed from the table, Tables 4-8 regenerated from the config, and the two checks of section 5 (eq. 11,
Propositions 2-3). Every rule here writes numbers; rule reproduction judges them.
"""

FW = config["free_will"]


wildcard_constraints:
    alphabet="|".join(FW["alphabets"]),
    Q="[0-9]+(\\.[0-9]+)?",


rule fw_alphabet:
    """An alphabet of secrets and its theta: Binomial on {0..k-1}, or a region's Gowalla check-ins."""
    input:
        unpack(fw_alphabet_inputs),
    output:
        alphabet="results/free_will/alphabets/{alphabet}_alphabet.json",
        theta="results/free_will/alphabets/{alphabet}.npz",
    log:
        "logs/free_will/alphabet_{alphabet}.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        spec=lambda w: FW["alphabets"][w.alphabet],
    script:
        "../../scripts/fw_alphabet.py"


rule fw_shokri:
    """Shokri et al.'s optimal mechanism for one (alphabet, Q): an LP, the expensive step, solved once and cached.
    The LP is degenerate (the solver picks one of many optimal mechanisms), so the cache depends on the solver: the
    source of privest's LP code and HiGHS's version (params.solver)."""
    input:
        alphabet="results/free_will/alphabets/{alphabet}_alphabet.json",
    output:
        "results/free_will/shokri/{alphabet}_Q{Q}.npz",
    log:
        "logs/free_will/shokri_{alphabet}_Q{Q}.log",
    benchmark:
        "benchmarks/free_will/shokri_{alphabet}_Q{Q}.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        options=FW["shokri"],
        solver=privest_studies.free_will.shokri_solver(),
    script:
        "../../scripts/fw_shokri.py"


rule fw_tables:
    """The numbers of Tables 1 and 2 (measured ratios to GIBU with their intervals, beside the paper's verdicts), the
    per-point summary and the numbers behind the paper's qualitative findings (paired differences and ratios with
    their intervals). Numbers only: rule reproduction judges them."""
    input:
        "results/free_will/tables/scores.csv",
    output:
        summary="results/free_will/tables/summary.csv",
        table01=["results/free_will/tables/table01.csv", "results/free_will/tables/table01.md"],
        table02=["results/free_will/tables/table02.csv", "results/free_will/tables/table02.md"],
        findings=["results/free_will/tables/findings.csv", "results/free_will/tables/findings.md"],
    log:
        "logs/free_will/tables.log",
    benchmark:
        "benchmarks/free_will/tables.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        tables=FW["tables"],
        level=config["report"]["level"],
        findings=FW["findings"],
    script:
        "../../scripts/fw_tables.py"


rule fw_mechanism_tables:
    """Tables 4-8 regenerated from the config's mechanism sets, so config and tables cannot drift."""
    output:
        expand(
            "results/free_will/tables/{table}.{ext}",
            table=["table04", "table05", "table06", "table07", "table08"],
            ext=["csv", "md"],
        ),
    log:
        "logs/free_will/mechanism_tables.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        tables=lambda w, output: privest_studies.free_will.mechanism_tables(config, list(output)),
    script:
        "../../scripts/fw_mechanism_tables.py"


rule fw_figures:
    """Figures 2-14: EMD against the number of users n, mean +- 1 s.d. over runs, one line per method; the mechanism
    set of each panel: config free_will.figures."""
    input:
        scores="results/free_will/tables/scores.csv",
        mechanisms=expand("results/free_will/{mechanism_set}/mechanisms.npz", mechanism_set=FW["mechanism_sets"]),
        alphabets=expand("results/free_will/alphabets/{alphabet}_alphabet.json", alphabet=FW["alphabets"]),
    output:
        [
            reported(path)
            for path in expand(
                "results/free_will/figures/{panel}.{ext}",
                panel=[
                    "fig02a",
                    "fig02b",
                    "fig03",
                    "fig04",
                    "fig05",
                    "fig06",
                    "fig07a",
                    "fig07b",
                    "fig08a",
                    "fig08b",
                    "fig09a",
                    "fig09b",
                    "fig10a",
                    "fig10b",
                    "fig11a",
                    "fig11b",
                    "fig12a",
                    "fig12b",
                    "fig13a",
                    "fig13b",
                    "fig14a",
                    "fig14b",
                ],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/free_will/figures.log",
    benchmark:
        "benchmarks/free_will/figures.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        figures=FW["figures"],
        panels=lambda w, output: privest_studies.free_will.figure_panels(config, list(output)),
        sets=FW["mechanism_sets"],
        stopping=FW["ibu"],
        runs=config["scales"][config["scale"]]["free_will"]["runs"],
        shokri_Q=config["scales"][config["scale"]]["free_will"].get("shokri_Q", {}),
        scale=config["scale"],
    script:
        "../../scripts/fw_figures.py"


rule fw_propositions:
    """Propositions 2 and 3: the closed-form l2^2 bounds beside the simulated mean squared error of the raw [INV]_M
    (k-RR) and [RAP]_M estimates against n, with its interval, and the exact expectation."""
    input:
        scores="results/free_will/tables/scores.csv",
        mechanisms=[f"results/free_will/{p['mechanism_set']}/mechanisms.npz" for p in FW["propositions"]],
        thetas=[
            f"results/free_will/alphabets/{FW['mechanism_sets'][p['mechanism_set']]['alphabet']}.npz"
            for p in FW["propositions"]
        ],
    output:
        figure=[reported(path) for path in expand("results/free_will/figures/propositions.{ext}", ext=["pdf", "png"])],
        table="results/free_will/tables/propositions.csv",
    log:
        "logs/free_will/propositions.log",
    benchmark:
        "benchmarks/free_will/propositions.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        panels=FW["propositions"],
        runs=config["scales"][config["scale"]]["free_will"]["runs"],
        level=config["report"]["level"],
    script:
        "../../scripts/fw_propositions.py"


rule fw_noninformative:
    """Eq. (11): half the users on A, half on A'; [IBU]_M cannot recover theta from the non-informative A[n], GIBU
    can."""
    output:
        figure=[
            reported(path)
            for path in expand("results/free_will/figures/eq11_noninformative.{ext}", ext=["pdf", "png"])
        ],
        table="results/free_will/tables/eq11_noninformative.csv",
    log:
        "logs/free_will/noninformative.log",
    benchmark:
        "benchmarks/free_will/noninformative.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        example=FW["noninformative"],
        n=config["scales"][config["scale"]]["free_will"]["n"],
        runs=config["scales"][config["scale"]]["free_will"]["runs"],
        stopping=FW["ibu"],
        seed=config["seed"],
    script:
        "../../scripts/fw_noninformative.py"


rule free_will:
    """Every output of the free-will study at the active scale (`snakemake free_will`)."""
    input:
        rules.fw_tables.output,
        rules.fw_mechanism_tables.output,
        rules.fw_figures.output,
        rules.fw_propositions.output,
        rules.fw_noninformative.output,
        "results/free_will/tables/scores.csv",
    localrule: True
