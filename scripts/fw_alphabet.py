"""Rule fw_alphabet: an alphabet of the free-will study and its theta (Binomial on {0..k-1}, or a region's
check-ins)."""

from privest_studies import files, free_will, jobs


def main() -> None:
    region_data, region_alphabet = snakemake.input.get("data"), snakemake.input.get("alphabet")
    alphabet, theta = free_will.alphabet(
        snakemake.params.spec,
        files.load_npz(region_data)["theta"] if region_data else None,
        files.load_json(region_alphabet) if region_alphabet else None,
    )
    files.save_json(snakemake.output.alphabet, alphabet)
    files.save_npz(snakemake.output.theta, theta=theta)


jobs.run_or_exit(main, snakemake.log)
