"""Rule own_study_data: a study's CSV column (or latitude and longitude) on its alphabet: secrets and theta."""

from privest_studies import files, jobs, own_study


def main() -> None:
    params = snakemake.params
    alphabet = own_study.alphabet_of(params.alphabet)
    secrets = own_study.read_secrets(params.data["csv"], params.data, params.alphabet)
    files.save_npz(snakemake.output.data, **own_study.empirical_data(secrets, alphabet["k"]))
    files.save_json(snakemake.output.alphabet, alphabet)


jobs.run_or_exit(main, snakemake.log)
