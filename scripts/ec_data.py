"""Rule ec_data: the two datasets of the estimator-comparison study not built elsewhere: the Zipf theta on {0..k-1},
and one categorical Adult column's categories and their empirical distribution (from the verified raw files)."""

from privest_studies import datasets, estimator_comparison, fetch, files, jobs, standard_protocols


def main() -> None:
    alphabet, theta = standard_protocols.zipf_alphabet(snakemake.params.zipf)
    files.save_json(snakemake.output.zipf_alphabet, alphabet)
    files.save_npz(snakemake.output.zipf, theta=theta)
    for key in ("data", "test"):
        fetch.verify(getattr(snakemake.input, key), snakemake.params.accepted[key])
    column = snakemake.params.column
    persons = datasets.read_adult([snakemake.input.data, snakemake.input.test])
    alphabet, theta = estimator_comparison.categorical_alphabet(persons[column].astype(str).str.strip(), column)
    files.save_json(snakemake.output.adult_alphabet, alphabet)
    files.save_npz(snakemake.output.adult, theta=theta)


jobs.run_or_exit(main, snakemake.log)
