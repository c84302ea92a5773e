"""Rule fw_mechanism_tables: Tables 4-8 of the free-will paper regenerated from the config's mechanism sets (a CSV
and its markdown each)."""

from privest_studies import files, free_will, jobs


def main() -> None:
    paths = iter(snakemake.output)
    for table in snakemake.params.tables:
        files.save_rows(table["rows"], free_will.MECHANISM_TABLE_COLUMNS, next(paths))
        files.write_text(next(paths), table["markdown"])


jobs.run_or_exit(main, snakemake.log)
