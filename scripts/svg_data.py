"""Rule svg_data: one Adult column of the SW+EMS or geometric+IBU study on its numeric alphabet, read as an own study
reads it: the secrets, each kept person's number and theta, the alphabet file and the provenance."""

from privest_studies import files, jobs, own_data


def main() -> None:
    data, alphabet = snakemake.params.spec
    secrets, values, alphabet_file, provenance = own_data.load_with_values(data, alphabet,
                                                                           adult_files=list(snakemake.input))
    files.save_npz(snakemake.output.data, **own_data.empirical_data(secrets, alphabet_file["k"], values))
    files.save_json(snakemake.output.alphabet, alphabet_file)
    files.save_json(snakemake.output.provenance, provenance)


jobs.run_or_exit(main, snakemake.log)
