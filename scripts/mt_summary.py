"""Rule mt_summary: every run of the multi-freq-ldpy tutorials study in one table (the chain's scores and the
mt_estimate jobs'), the means per (grid, data set, protocol, eps, method) and the markdown page."""

from privest_studies import files, jobs
from privest_studies import multi_freq_ldpy_tutorials as mt


def main() -> None:
    config = snakemake.params.config
    k = int(files.load_json(snakemake.input.alphabet)["k"])
    rows = mt.chain_rows(files.load_table(snakemake.input.scores, dtypes={"note": str}), k)
    for path in snakemake.input.own:
        rows += files.load_table(path).to_dict("records")
    files.save_rows(rows, mt.RUN_COLUMNS, snakemake.output.runs)
    lines = mt.summary(rows, config)
    files.save_rows(lines, mt.SUMMARY_COLUMNS, snakemake.output.csv)
    files.write_text(snakemake.output.markdown, mt.summary_markdown(lines, config))


jobs.run_or_exit(main, snakemake.log)
