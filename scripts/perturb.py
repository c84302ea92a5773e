"""Rule perturb: every (point, run) of one experiment: the users (the dataset's own, or drawn from its theta), split
over the point's mechanisms, each reporting once; the report counts (or RAPPOR groups) every estimator then shares."""

from privest_studies import experiment, files, jobs


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    _, built = experiment.mechanisms_from_arrays(files.load_npz(snakemake.input.mechanisms))
    reports = experiment.perturb(spec, built, files.load_npz(snakemake.input.data), snakemake.params.seed)
    files.save_npz(snakemake.output[0], **reports)


jobs.run_or_exit(main, snakemake.log)
