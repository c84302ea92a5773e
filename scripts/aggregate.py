"""Rule aggregate: one tidy table of every score of a study (the experiments' tables, concatenated)."""

from privest_studies import files, jobs

jobs.run_or_exit(lambda: files.concat_tables(list(snakemake.input), snakemake.output[0]), snakemake.log)
