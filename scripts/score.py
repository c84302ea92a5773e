"""Rule score: EMD and l2^2 of every estimate of one experiment (and of the noisy reports, where the experiment asks)
to the original distribution, one tidy row per (point, run, method)."""

from privest.alphabets import Alphabet
from privest_studies import experiment, files, jobs


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    alphabet_file = files.load_json(snakemake.input.alphabet)
    data = files.load_npz(snakemake.input.data)
    bounds = experiment.bounds_of(alphabet_file)  # a numeric alphabet: the scores carry the mean
    rows, columns = experiment.score(spec, Alphabet.from_dict(alphabet_file), data["theta"],
                                     files.NpzArrays(snakemake.input.reports),
                                     [files.load_npz(path) for path in snakemake.input.estimates],
                                     None if bounds is None else (*bounds, float(data["values"].mean())))
    files.save_rows(rows, columns, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
