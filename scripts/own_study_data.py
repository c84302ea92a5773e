"""Rule own_study_data: a study's CSV column (or latitude and longitude, or an Adult column) on its alphabet: the
secrets and theta, the alphabet file, the provenance and the table of records read, kept and dropped."""

from privest_studies import files, jobs, own_data


def main() -> None:
    params, output = snakemake.params, snakemake.output
    secrets, values, alphabet, provenance = own_data.load_with_values(params.data, params.alphabet,
                                                                      adult_files=list(snakemake.input))
    files.save_npz(output.data, **own_data.empirical_data(secrets, alphabet["k"], values))
    files.save_json(output.alphabet, alphabet)
    files.save_json(output.provenance, provenance)
    files.save_rows(own_data.table_rows(provenance), own_data.TABLE_COLUMNS, output.table)


jobs.run_or_exit(main, snakemake.log)
