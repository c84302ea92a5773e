"""Rule own_study_columns: a multi-column experiment of one's own study (privest_studies.own_columns): the columns
read jointly (records dropped whole or refused, as each column's policy says), the tuples reported, each attribute
estimated and scored; the table of records read, kept and dropped, the provenance, the scores table and the figure."""

from privest_studies import files, jobs, own_columns, own_figures, own_study, plotting


def main() -> None:
    params, output, label = snakemake.params, snakemake.output, snakemake.wildcards.own_columns
    study, spec = params.study, params.spec
    stopping = {**own_study.STOPPING, **study.get("ibu", {})}
    secrets, alphabets, provenance = own_columns.load(study["data"], spec["columns"])
    files.save_json(output.provenance, provenance)
    files.save_rows(own_columns.table_rows(provenance), own_columns.TABLE_COLUMNS, output.data)
    runs = int(study["runs"])
    rows = own_columns.scores(snakemake.wildcards.own_study, label, spec, secrets, alphabets, runs,
                              int(params.seed), stopping)
    files.save_rows(rows, own_columns.SCORE_COLUMNS, output.scores)
    fig = own_figures.draw_columns(rows, alphabets, spec, label, snakemake.wildcards.own_study,
                                   own_columns.kept_text(provenance), runs, stopping)
    plotting.save(fig, output.pdf, output.png)


jobs.run_or_exit(main, snakemake.log)
