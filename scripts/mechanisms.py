"""Rule mechanisms: the distinct mechanisms of one experiment on its alphabet (Shokri's from their cached LPs)."""

from privest.alphabets import Alphabet
from privest_studies import experiment, files, jobs


def main() -> None:
    spec = experiment.Experiment.from_dict(snakemake.params.experiment)
    alphabet_file = files.load_json(snakemake.input.alphabet)
    shokri = {float(solution["Q"]): solution["A"] for solution in map(files.load_npz, snakemake.input.shokri)}
    built = experiment.build_mechanisms(spec.members, Alphabet.from_dict(alphabet_file), shokri,
                                        experiment.bounds_of(alphabet_file))
    files.save_npz(snakemake.output[0], **experiment.mechanisms_to_arrays(spec.members, built))


jobs.run_or_exit(main, snakemake.log)
