"""Rule own_study_data: a study's CSV column (or latitude and longitude, or an Adult column) on its alphabet: the
secrets and theta (a large alphabet: the items), the alphabet file, the provenance and the table of records read,
kept and dropped."""

from privest_studies import files, jobs, own_data, own_items


def main() -> None:
    params, output = snakemake.params, snakemake.output
    secrets, values, alphabet, provenance = own_data.load_with_values(params.data, params.alphabet,
                                                                      adult_files=list(snakemake.input))
    large = alphabet["kind"] == "large"  # items of a domain up to 2^64: no distribution to store
    files.save_npz(output.data, **(own_items.data_file(secrets) if large else
                                   own_data.empirical_data(secrets, alphabet["k"], values)))
    files.save_json(output.alphabet, alphabet)
    files.save_json(output.provenance, provenance)
    files.save_rows(own_data.table_rows(provenance), own_data.TABLE_COLUMNS, output.table)


jobs.run_or_exit(main, snakemake.log)
