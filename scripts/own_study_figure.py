"""Rule own_study_figure: one figure of one's own study, the error to the original distribution over the runs of each
point (privest_studies.own_figures): boxplots against eps, the mean with a band of +-1 s.d. against the number of
users n, or, for a comparison, against eps with one colour per mechanism; at most six lines a panel."""

from privest_studies import experiment, files, jobs, own_figures, plotting


def main() -> None:
    specs = [experiment.Experiment.from_dict(spec) for spec in snakemake.params.experiments]
    scores = files.load_table(snakemake.input.scores, dtypes={"note": str})
    fig = own_figures.draw(specs, files.load_json(snakemake.input.alphabet), scores, snakemake.wildcards.own_figure)
    plotting.save(fig, snakemake.output.pdf, snakemake.output.png)


jobs.run_or_exit(main, snakemake.log)
