"""Rule ibu_synthetic: a synthetic dataset of the IBU paper's section 7.5, theta on {0..k-1} and its alphabet (no
users: every run draws its own)."""

from privest_studies import files, ibu_consistency, jobs


def main() -> None:
    spec = snakemake.params.spec
    files.save_npz(snakemake.output.data, theta=ibu_consistency.synthetic_theta(spec))
    files.save_json(snakemake.output.alphabet, ibu_consistency.synthetic_alphabet(spec))


jobs.run_or_exit(main, snakemake.log)
