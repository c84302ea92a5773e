"""Rule own_study_columns: a multi-column experiment of one's own study (privest_studies.own_columns): the columns
read jointly, the tuples reported, each attribute estimated and scored; the scores table and the figure."""

from privest_studies import files, jobs, own_columns, own_figures, own_study, plotting


def main() -> None:
    params, output, label = snakemake.params, snakemake.output, snakemake.wildcards.own_columns
    study, spec = params.study, params.spec
    stopping = {**own_study.STOPPING, **study.get("ibu", {})}
    secrets, alphabets = own_columns.load(study["data"], spec["columns"])
    runs = int(study["runs"])
    rows = own_columns.scores(snakemake.wildcards.own_study, label, spec, secrets, alphabets, runs,
                              int(params.seed), stopping)
    files.save_rows(rows, own_columns.SCORE_COLUMNS, output.scores)
    fig = own_figures.draw_columns(rows, alphabets, spec, label, snakemake.wildcards.own_study, secrets.shape[0],
                                   runs, stopping)
    plotting.save(fig, output.pdf, output.png)


jobs.run_or_exit(main, snakemake.log)
