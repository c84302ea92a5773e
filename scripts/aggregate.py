"""Rule *_aggregate: concatenate the per-point score tables of a study into one tidy table."""

import pandas as pd

from privest import cli, io


def main() -> None:
    io.save_table(pd.concat([io.load_table(path) for path in snakemake.input], ignore_index=True), snakemake.output[0])


cli.run_or_exit(main, snakemake.log)
