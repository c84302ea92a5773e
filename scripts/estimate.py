"""Rule estimate: one estimator family (e.g. inv_m: [INV]_M normalised, projected and raw) on every point and run of
one experiment; NaN estimates and the reason where the family cannot run (the papers' "NA"). Progress lines (each
point or run done, elapsed, remaining) go to the job's log."""

from privest_studies import cost, experiment, files, jobs


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    _, built = experiment.mechanisms_from_arrays(files.load_npz(snakemake.input.mechanisms))
    reports = files.load_npz(snakemake.input.reports)
    family = snakemake.wildcards.family
    progress = cost.estimate_progress(spec, family, experiment.mechanism_k(built[0]), reports)
    estimates = experiment.estimate(spec, family, built, reports, snakemake.params.stopping, progress)
    files.save_npz(snakemake.output[0], **estimates)


jobs.run_or_exit(main, snakemake.log)
