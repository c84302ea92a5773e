"""Rule counts_mechanisms: GM, WM (the LP), EM and UM for every (n, alpha) the experiments use, in one npz.

Keys are privest.counts.mechanism_key(name, n, alpha); matrices are the paper's P[j, i] (column-stochastic).
"""

from privest import cli, counts, io


def main() -> None:
    arrays = {}
    for n, alpha in snakemake.params.pairs:
        for name, P in (("GM", counts.gm(n, alpha)), ("WM", counts.wm(n, alpha)), ("EM", counts.em(n, alpha)),
                        ("UM", counts.um(n))):
            arrays[counts.mechanism_key(name, n, alpha)] = P
    io.save_npz(snakemake.output[0], **arrays)


cli.run_or_exit(main, snakemake.log)
