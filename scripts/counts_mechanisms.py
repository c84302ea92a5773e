"""Rule counts_mechanisms: GM, WM (the LP), EM and UM for every (n, alpha) the experiments use, in one npz.

Keys are privest.counts.mechanism_key(name, n, alpha); matrices are the paper's P[j, i] (column-stochastic).
"""

from privest import counts
from privest_studies import files, jobs


def main() -> None:
    arrays = {}
    for n, alpha in snakemake.params.pairs:
        for name, P in (("GM", counts.gm(n, alpha)), ("WM", counts.wm(n, alpha)), ("EM", counts.em(n, alpha)),
                        ("UM", counts.um(n))):
            arrays[counts.mechanism_key(name, n, alpha)] = P
    files.save_npz(snakemake.output[0], **arrays)


jobs.run_or_exit(main, snakemake.log)
