"""Rule fw_tables: from the study's scores, the per-point summary (mean and s.d. over runs), the numbers of Tables 1
and 2 (each cell the measured EMD ratio to GIBU at the largest n with its interval, beside the paper's verdict) and
the numbers behind the paper's qualitative findings (paired per-run differences and ratios with their intervals).
Numbers only: the reproduction report judges them (privest_studies/reproduction/checks_free_will.py)."""

from privest_studies import files, free_will_verdicts, jobs


def summarise(table):
    """Mean and s.d. over runs of EMD and l2^2 per (mechanism set, n, method), IBU's iterations and cap share."""
    grouped = table.groupby(["mechanism_set", "alphabet", "n", "method"], sort=True)
    summary = grouped.agg(runs=("run", "size"), emd_mean=("emd", "mean"), emd_sd=("emd", "std"),
                          l2sq_mean=("l2sq", "mean"), l2sq_sd=("l2sq", "std"),
                          iterations_mean=("iterations", "mean"), capped_share=("capped", "mean"))
    return summary.reset_index()


def main() -> None:
    table = files.load_table(snakemake.input[0], dtypes={"note": str})
    files.save_table(summarise(table), snakemake.output.summary)
    scores = free_will_verdicts.emd_by_run(table.to_dict("records"))
    alphabets = dict(zip(table["mechanism_set"], table["alphabet"], strict=True))
    level = snakemake.params.level
    for name in ("table01", "table02"):
        spec = snakemake.params.tables[name]
        lines = free_will_verdicts.ratio_table(scores, spec, alphabets, level)
        csv_path, md_path = snakemake.output[name]
        files.save_rows(lines, free_will_verdicts.RATIO_COLUMNS, csv_path)
        files.write_text(md_path, free_will_verdicts.ratio_markdown(spec["title"], lines))
    lines = free_will_verdicts.finding_numbers(scores, snakemake.params.findings["checks"], level)
    csv_path, md_path = snakemake.output.findings
    files.save_rows(lines, free_will_verdicts.FINDING_COLUMNS, csv_path)
    files.write_text(md_path, free_will_verdicts.findings_markdown(lines))


jobs.run_or_exit(main, snakemake.log)
