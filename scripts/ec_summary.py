"""Rule ec_summary: the estimator-comparison study's scores of every dataset in one table, their means per
(dataset, protocol, eps, method) with each method's rank, and the markdown page of who wins where."""

from privest_studies import estimator_comparison, files, jobs, standard_protocols


def main() -> None:
    files.concat_tables(snakemake.input.scores, snakemake.output.scores)
    rows = files.load_table(snakemake.output.scores).to_dict("records")
    lines = estimator_comparison.summary(rows)
    files.save_rows(lines, estimator_comparison.SUMMARY_COLUMNS, snakemake.output.csv)
    labels = {name: standard_protocols.dataset_label(name, files.load_json(path))
              for name, path in zip(estimator_comparison.DATASETS, snakemake.input.alphabets, strict=True)}
    files.write_text(snakemake.output.markdown,
                     estimator_comparison.summary_markdown(lines, snakemake.params.config, labels))


jobs.run_or_exit(main, snakemake.log)
