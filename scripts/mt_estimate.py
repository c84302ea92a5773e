"""Rule mt_estimate: one protocol or multidimensional solution of the multi-freq-ldpy tutorials study that the chain
does not run (SHE, dBitFlipPM, SPL, SMP, RS+FD): every (eps, run), the peer's estimator and GIBU, scored."""

from privest_studies import files, jobs
from privest_studies import multi_freq_ldpy_tutorials as mt


def main() -> None:
    rows = mt.run_job(snakemake.wildcards.job, files.load_npz(snakemake.input.data), snakemake.params.config)
    files.save_rows(rows, mt.RUN_COLUMNS, snakemake.output[0])


jobs.run_or_exit(main, snakemake.log)
