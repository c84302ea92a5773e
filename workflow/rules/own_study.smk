"""A researcher's own studies (config key studies; docs/site/guide/own-study.md): their data on their alphabet, then the
one chain of workflow/rules/experiment.smk for each experiment (results/<study>/<experiment>/, the tidy table
results/<study>/tables/scores.csv), then one figure per experiment and a summary table. `snakemake own_studies`.
"""

import time

OWN = config["studies"]
OWN_FIGURES = privest_studies.own_study.figures(config)
OWN_COLUMNS = privest_studies.own_study.column_experiments(config)
OWN_LARGE = privest_studies.own_study.large_experiments(config)
OWN_STARTED = time.time()  # the run's start: its end lists the capped estimates of the summaries it wrote


wildcard_constraints:
    own_study="|".join(OWN) or "^$",
    own_figure="|".join(name for figures in OWN_FIGURES.values() for name in figures) or "^$",
    own_columns="|".join(name for columns in OWN_COLUMNS.values() for name in columns) or "^$",
    own_large="|".join(name for large in OWN_LARGE.values() for name in large) or "^$",


rule own_study_data:
    """A study's CSV column (or its latitude and longitude, or a column of the raw Adult files) on its alphabet: the
    secrets and their distribution, and the records read, kept and dropped (blank, not a number, outside)."""
    input:
        lambda w: privest_studies.own_data.input_files(OWN[w.own_study]["data"]),
    output:
        data="results/{own_study}/data.npz",
        alphabet="results/{own_study}/data_alphabet.json",
        provenance="results/{own_study}/data_provenance.json",
        table=report(
            "results/{own_study}/tables/data.csv",
            caption="../report/own_study_data.rst",
            category="{own_study}",
        ),
    log:
        "logs/{own_study}/data.log",
    conda:
        "../../envs/privest.yaml"
    resources:
        mem_mb=lambda w, attempt: attempt
        * privest_studies.own_study.data_megabytes(OWN[w.own_study], OWN_SIZES.get(w.own_study)),
    params:
        data=lambda w: OWN[w.own_study]["data"],
        alphabet=lambda w: OWN[w.own_study]["alphabet"],
        # A replaced CSV reruns the job even if its mtime is older than the results (own_data.stamp).
        file_stamp=lambda w: privest_studies.own_data.stamp(OWN[w.own_study]["data"]),
    script:
        "../../scripts/own_study_data.py"


rule own_study_figure:
    """One figure of an experiment of one's own study: the error to the original distribution (the EMD in the
    alphabet's unit, total variation on categories) as boxplots over runs against eps, the mean +- 1 s.d. against the
    number of users n, or a comparison's mechanisms side by side against eps; at most six lines a panel."""
    input:
        scores="results/{own_study}/tables/scores.csv",
        alphabet=lambda w: EXPERIMENTS[w.own_study][OWN_FIGURES[w.own_study][w.own_figure][0]].alphabet_file,
    output:
        pdf="results/{own_study}/figures/{own_figure}.pdf",
        png=report(
            "results/{own_study}/figures/{own_figure}.png",
            caption="../report/own_study.rst",
            category="{own_study}",
            subcategory="{own_figure}",
        ),
    log:
        "logs/{own_study}/figure_{own_figure}.log",
    conda:
        "../../envs/privest.yaml"
    params:
        experiments=lambda w: [
            EXPERIMENTS[w.own_study][name].to_dict() for name in OWN_FIGURES[w.own_study][w.own_figure]
        ],
    script:
        "../../scripts/own_study_figure.py"


rule own_study_columns:
    """A multi-column experiment of one's own study (privest_studies/own_columns.py): the CSV's columns read jointly
    (a record dropped whole, or refused, as each column's policy says; the records read, kept and dropped in a table),
    every record's tuple reported by the multidimensional solution at each eps in every run, each attribute estimated
    from its own column and scored (EMD in the column's unit, TV on categories); one figure, a panel per column."""
    input:
        lambda w: OWN[w.own_study]["data"]["csv"],
    output:
        data=report(
            "results/{own_study}/{own_columns}/column_data.csv",
            caption="../report/own_study_column_data.rst",
            category="{own_study}",
        ),
        provenance="results/{own_study}/{own_columns}/column_data_provenance.json",
        scores="results/{own_study}/{own_columns}/column_scores.csv",
        pdf="results/{own_study}/figures/{own_columns}.pdf",
        png=report(
            "results/{own_study}/figures/{own_columns}.png",
            caption="../report/own_study_columns.rst",
            category="{own_study}",
        ),
    log:
        "logs/{own_study}/columns_{own_columns}.log",
    conda:
        "../../envs/privest.yaml"
    params:
        study=lambda w: OWN[w.own_study],
        spec=lambda w: OWN_COLUMNS[w.own_study][w.own_columns],
        seed=config["seed"],
        # A replaced CSV reruns the job even if its mtime is older than the results (own_data.stamp).
        file_stamp=lambda w: privest_studies.own_data.stamp(OWN[w.own_study]["data"]),
    script:
        "../../scripts/own_study_columns.py"


rule own_study_column_summary:
    """The multi-column experiments of one's own study summarised: per experiment, protocol, eps, column and method
    the mean error over runs with its interval (Student t at report.level) and standard deviation, and the runs the
    iteration cap stopped; a CSV and a markdown table beside the figures' tables."""
    input:
        lambda w: expand(
            "results/{own_study}/{own_columns}/column_scores.csv",
            own_study=w.own_study,
            own_columns=list(OWN_COLUMNS[w.own_study]),
        ),
    output:
        csv="results/{own_study}/tables/column_summary.csv",
        markdown="results/{own_study}/tables/column_summary.md",
    log:
        "logs/{own_study}/column_summary.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        level=config["report"]["level"],
    script:
        "../../scripts/own_study_column_summary.py"


rule own_study_large:
    """An experiment of one's own study on a large alphabet (privest_studies/own_large.py): every record's item
    reported by each sketch oracle and heavy-hitter protocol at each eps in every run; the heavy hitters find their
    top items, the sketches estimate the true top items' and the found items' frequencies; all scored on the top items
    (errors, precision, recall, NCR)."""
    input:
        data="results/{own_study}/data.npz",
        alphabet="results/{own_study}/data_alphabet.json",
    output:
        "results/{own_study}/{own_large}/large_runs.csv",
    log:
        "logs/{own_study}/large_{own_large}.log",
    benchmark:
        "benchmarks/{own_study}/large_{own_large}.tsv"
    conda:
        "../../envs/privest.yaml"
    params:
        study=lambda w: OWN[w.own_study],
        spec=lambda w: OWN_LARGE[w.own_study][w.own_large],
        seed=config["seed"],
    script:
        "../../scripts/own_study_large.py"


rule own_study_large_figure:
    """An experiment on a large alphabet, its runs averaged per (protocol, method, eps) in a table, and its figure:
    the errors of the top items' frequencies and the precision, recall and NCR of the top items found against eps."""
    input:
        runs="results/{own_study}/{own_large}/large_runs.csv",
        alphabet="results/{own_study}/data_alphabet.json",
    output:
        summary="results/{own_study}/tables/{own_large}_summary.csv",
        pdf="results/{own_study}/figures/{own_large}.pdf",
        png=report(
            "results/{own_study}/figures/{own_large}.png",
            caption="../report/own_study_large.rst",
            category="{own_study}",
        ),
    log:
        "logs/{own_study}/large_figure_{own_large}.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        study=lambda w: OWN[w.own_study],
        spec=lambda w: OWN_LARGE[w.own_study][w.own_large],
    script:
        "../../scripts/own_study_large_figure.py"


rule own_study_summary:
    """Mean and standard deviation of the error over runs per experiment, point and method, the methods' rank at each
    point of a figure and the best; and the estimates that the iteration cap stopped (listed at the end of the run)."""
    input:
        "results/{own_study}/tables/scores.csv",
    output:
        summary="results/{own_study}/tables/summary.csv",
        capped="results/{own_study}/tables/capped.csv",
    log:
        "logs/{own_study}/summary.log",
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        figures=lambda w: OWN_FIGURES[w.own_study],
    script:
        "../../scripts/own_study_summary.py"


rule own_studies:
    """Every configured study of your own (`snakemake --configfile my_study.yaml --cores all own_studies`)."""
    input:
        privest_studies.own_study.figure_files(config),
        expand("results/{own_study}/tables/summary.csv", own_study=[name for name in OWN if OWN_FIGURES[name]]),
        expand(
            "results/{own_study}/tables/column_summary.csv",
            own_study=[name for name in OWN if OWN_COLUMNS[name]],
        ),
    localrule: True


# The end of a successful run: the estimates the iteration cap stopped, of every own study whose summary it wrote
# (results/<study>/tables/capped.csv). The workflow's one onsuccess handler.
onsuccess:
    for line in privest_studies.own_study.capped_report(list(OWN), OWN_STARTED):
        logger.warning(line)
