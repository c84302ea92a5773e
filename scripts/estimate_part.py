"""Rule estimate_part: one estimator family on one point and block of runs of an experiment (a part of a split
estimate job); rule estimate gathers the parts. Progress lines go to the job's log, a few to the console."""

from privest_studies import cost, experiment, files, jobs


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    _, built = experiment.mechanisms_from_arrays(files.load_npz(snakemake.input.mechanisms))
    reports = files.NpzArrays(snakemake.input.reports)  # this part's point only
    family, part = snakemake.wildcards.family, experiment.Part.from_name(snakemake.wildcards.part)
    progress = cost.estimate_progress(spec, family, experiment.mechanism_k(built[0]), reports, part=part)
    estimates = experiment.estimate_part(spec, family, built, reports, snakemake.params.stopping, part, progress)
    files.save_npz(snakemake.output[0], **estimates)


jobs.run_or_exit(main, snakemake.log)
