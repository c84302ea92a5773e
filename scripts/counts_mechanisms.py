"""Rule counts_mechanisms: GM, WM and WM (CM) (the LPs), EM and UM for every (n, alpha) the experiments use, in one npz.

Keys are privest.counts.mechanism_key(name, n, alpha); matrices are the paper's P[j, i] (column-stochastic).
"""

from privest import counts
from privest_studies import files, jobs


def main() -> None:
    arrays = {}
    for n, alpha in snakemake.params.pairs:
        for name in counts.MECHANISMS:
            arrays[counts.mechanism_key(name, n, alpha)] = counts.by_name(name, n, alpha)
    files.save_npz(snakemake.output[0], **arrays)


jobs.run_or_exit(main, snakemake.log)
