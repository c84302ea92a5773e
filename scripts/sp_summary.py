"""Rule sp_summary: mean EMD and squared l2 error over runs per dataset, n and method of the standard-protocols study
(CSV), and the same as a markdown page with GIBU's ratio to the best per-protocol estimator."""

from privest_studies import files, jobs, standard_protocols


def main() -> None:
    config = snakemake.params.config
    rows = files.load_table(snakemake.input.scores, dtypes={"note": str}).to_dict("records")
    lines = standard_protocols.summary(rows, config["standard_protocols"]["methods"])
    files.save_rows(lines, standard_protocols.SUMMARY_COLUMNS, snakemake.output.csv)
    labels = {name: standard_protocols.dataset_label(name, files.load_json(path))
              for name, path in zip(standard_protocols.DATASETS, snakemake.input.alphabets, strict=True)}
    files.write_text(snakemake.output.markdown, standard_protocols.summary_markdown(lines, config, labels))


jobs.run_or_exit(main, snakemake.log)
