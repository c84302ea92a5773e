"""Rule scale_record: docs/<scale>-scale/, the committed record of a whole run: its reproduction report and tables,
small copies of the gallery's figures, what changed against the other scale's record, and the run's cost per rule."""

import shutil
from pathlib import Path

import pandas as pd

from privest_studies import files, jobs, plotting, rendering, run_cost


def main() -> None:
    for key in ("markdown", "table", "numbers"):
        with files.atomic_path(snakemake.output[key]) as tmp:
            shutil.copyfile(snakemake.input[key], tmp)
    for source, target in zip(snakemake.input.figures, snakemake.output.gallery, strict=True):
        plotting.thumbnail(source, target, snakemake.params.width)
    other = Path(snakemake.params.other)
    first, second = snakemake.params.scales
    if (other / "reproduction.csv").is_file() and (other / "reproduction_numbers.csv").is_file():
        changes = rendering.scale_changes(
            pd.read_csv(other / "reproduction.csv"), pd.read_csv(snakemake.input.table),
            pd.read_csv(other / "reproduction_numbers.csv"), pd.read_csv(snakemake.input.numbers), (first, second))
    else:
        changes = f"No record of the {first} scale in {other}/ to compare with.\n"
    files.write_text(snakemake.output.changes, f"# What changed from the {first} to the {second} scale\n\n{changes}")
    files.write_text(snakemake.output.cost, f"# The cost of the {second}-scale run, per rule\n\nFrom the benchmark "
                     f"file of each job (Snakemake's `benchmark:`), as `benchmarks/run_summary.py` prints it.\n\n"
                     + run_cost.wall_time(run_cost.invocations(Path.cwd())) + "\n\n"
                     + run_cost.markdown(run_cost.per_rule(Path.cwd())))


jobs.run_or_exit(main, snakemake.log)
