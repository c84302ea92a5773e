"""Rule sp_zipf: the synthetic dataset of the standard-protocols study, Zipf theta on {0..k-1}, and its alphabet."""

from privest_studies import files, jobs, standard_protocols


def main() -> None:
    alphabet, theta = standard_protocols.zipf_alphabet(snakemake.params.spec)
    files.save_json(snakemake.output.alphabet, alphabet)
    files.save_npz(snakemake.output.data, theta=theta)


jobs.run_or_exit(main, snakemake.log)
