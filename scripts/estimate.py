"""Rule estimate: one estimator family (e.g. inv_m: [INV]_M normalised, projected and raw) on every point and run of
one experiment; NaN estimates and the reason where the family cannot run (the papers' "NA")."""

from privest_studies import experiment, files, jobs


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    _, built = experiment.mechanisms_from_arrays(files.load_npz(snakemake.input.mechanisms))
    estimates = experiment.estimate(spec, snakemake.wildcards.family, built, files.load_npz(snakemake.input.reports),
                                    snakemake.params.stopping)
    files.save_npz(snakemake.output[0], **estimates)


jobs.run_or_exit(main, snakemake.log)
