"""Print what a run of the pipeline cost per rule (privest_studies.run_cost): jobs, wall and CPU time, peak memory.

    .venv/bin/python benchmarks/run_summary.py [--directory DIR] [--out FILE.md]

DIR is the working directory of the run (default: the current one).
"""

import argparse
from pathlib import Path

from privest_studies import run_cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--directory", type=Path, default=Path.cwd())
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    text = run_cost.markdown(run_cost.per_rule(args.directory))
    if args.out:
        args.out.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
