"""Rule estimate: one estimator family (e.g. inv_m: [INV]_M normalised, projected and raw) on every point and run of
one experiment; NaN estimates and the reason where the family cannot run (the papers' "NA"). Where the scale splits
the job (rule estimate_part), its parts' archives gathered into the same archive. Progress lines (each point or run
done, elapsed, remaining) go to the job's log, a few of them to the console."""

from privest_studies import cost, experiment, files, jobs


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    family = snakemake.wildcards.family
    if "parts" in snakemake.input.keys():
        estimates = experiment.gather(spec, family, [files.load_npz(path) for path in snakemake.input.parts])
    else:
        _, built = experiment.mechanisms_from_arrays(files.load_npz(snakemake.input.mechanisms))
        reports = files.load_npz(snakemake.input.reports)
        progress = cost.estimate_progress(spec, family, experiment.mechanism_k(built[0]), reports)
        estimates = experiment.estimate(spec, family, built, reports, snakemake.params.stopping, progress)
    files.save_npz(snakemake.output[0], **estimates)


jobs.run_or_exit(main, snakemake.log)
