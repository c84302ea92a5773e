"""Rule own_study_large_figure: an experiment on a large alphabet of one's own study, its runs averaged per
(protocol, method, eps) (privest_studies.large_domains.summary) and drawn against eps (privest_studies.large_figures):
the errors of the top items' frequencies and the precision, recall and NCR of the top items found."""

from privest_studies import files, jobs, large_domains, large_figures, own_large, own_study, plotting


def main() -> None:
    params, output = snakemake.params, snakemake.output
    study, spec = params.study, params.spec
    lines = large_domains.summary(files.load_table(snakemake.input.runs).to_dict("records"))
    files.save_rows(lines, large_domains.SUMMARY_COLUMNS, output.summary)
    table = files.load_table(output.summary)
    top = own_large.spec_of(spec)["top"]
    alphabet = files.load_json(snakemake.input.alphabet)
    stopping = {**own_study.STOPPING, **study.get("ibu", {})}
    fig = large_figures.draw(table, own_large.protocols_of(spec), top,
                             own_large.title(snakemake.wildcards.own_study, snakemake.wildcards.own_large, alphabet,
                                             top),
                             own_large.notes(spec, int(study["runs"]), stopping, int(table["capped_runs"].sum())),
                             lambda n: f"n = {n:,} records")
    plotting.save(fig, output.pdf, output.png)


jobs.run_or_exit(main, snakemake.log)
