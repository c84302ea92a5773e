"""Rule fw_tables: from the study's scores, the per-point summary (mean and s.d. over runs), Tables 1 and 2 (each
cell the measured EMD ratio to GIBU at the largest n with its 95% interval, our verdict from the config's rule beside
the paper's and whether they agree, and the agreement for other thresholds), and the paper's qualitative findings
tested on the paired per-run differences."""

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
    columns = ["row", "column", "mechanism_set", "alphabet", "n", "method", "runs", "ratio", "ratio_low",
               "ratio_high", "verdict", "paper", "agreement"]
    rule, interval = snakemake.params.verdict, snakemake.params.interval
    for name in ("table01", "table02"):
        spec = snakemake.params.tables[name]
        lines = free_will_verdicts.verdict_table(scores, spec, rule, alphabets, interval["level"])
        sensitivity = free_will_verdicts.threshold_sensitivity(lines, rule, interval["thresholds"])
        csv_path, md_path, thresholds_path = snakemake.output[name]
        files.save_rows(lines, columns, csv_path)
        files.save_rows(sensitivity, list(sensitivity[0]), thresholds_path)
        files.write_text(md_path, free_will_verdicts.verdict_markdown(spec["title"], lines, rule, sensitivity))
    spec = snakemake.params.findings
    lines = free_will_verdicts.check_findings(scores, spec["checks"], spec["z"])
    csv_path, md_path = snakemake.output.findings
    files.save_rows(lines, list(lines[0]) if lines else ["check"], csv_path)
    files.write_text(md_path, free_will_verdicts.findings_markdown(lines))


jobs.run_or_exit(main, snakemake.log)
