"""Time every LP the pipeline solves: Shokri's mechanism for each (alphabet, Q) of rule fw_shokri and the count
paper's LPs of the constrained_counts rules, grouped by rule, at the scale of config.yaml (quick unless --scale).

Two modes:

- ``bench_lp.py run ITEM``: solve one item in this process with the privest on sys.path and print one JSON line
  (wall and CPU seconds, the CPU of child processes included: pulp's CBC ran as one), the LPs solved and, for
  Shokri, the rounds and the adversary loss. Items: ``shokri:<alphabet>:<Q>`` and ``counts:<rule>``; ``list``
  prints them all.
- ``bench_lp.py compare --before PYTHON:TREE --after PYTHON:TREE``: every item in a fresh process of each, the two
  in turn (before, after, before, after ...), ``--repeats`` times, and a markdown table of the medians and ratios.
  A TREE is a checkout of privest (its privest is imported: cwd and PYTHONPATH), PYTHON the interpreter of its
  environment, e.g. ``--before /work/main/.venv/bin/python:/work/main`` for the code before a change.

The API used (``solve_shokri(distances, Q, nearest=...)``, ``counts.optimal``, ``counts.wm``) is the same before and
after the move from pulp's CBC to HiGHS, so one script times both.
"""

import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def config(scale: str | None = None) -> dict:
    import yaml

    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["scale"] = scale or cfg["scale"]
    return cfg


def items(cfg: dict) -> list[str]:
    fw = cfg["free_will"]
    out = []
    for alphabet in ("linear", "planar"):
        spec = fw["mechanism_sets"][f"shokri_{alphabet}"]
        out += [f"shokri:{alphabet}:{Q:g}" for entry in spec["mechanisms"] for Q in entry["Q"]]
    rules = ("counts_optimal", "counts_flowchart", "counts_properties", "counts_combinations_a",
             "counts_combinations_b", "counts_scores", "counts_published", "counts_mechanisms")
    return out + [f"counts:{rule}" for rule in rules]


def count_lps(cfg: dict, rule: str) -> int:
    """Solve the LPs of one constrained_counts rule (as its script does; closed forms skipped); return how many."""
    from privest import counts
    from privest_studies.constrained_counts import mechanism_pairs

    study = cfg["constrained_counts"]
    scale = cfg["scales"][cfg["scale"]]["constrained_counts"]
    solved = 0

    def lp(n, alpha, objective="L0", names=()):
        nonlocal solved
        solved += 1
        return counts.optimal(n, alpha, objective, names)

    def wm(n, alpha):
        nonlocal solved
        solved += 1
        return counts.wm(n, alpha)

    if rule == "counts_optimal":
        for panel in study["optimal"]["panels"]:
            lp(panel["n"], study["optimal"]["alpha"], panel["objective"])
            lp(panel["n"], study["optimal"]["alpha"], panel["objective"], counts.PROPERTIES)
    elif rule == "counts_flowchart":
        for n, alpha in itertools.product(scale["flowchart"]["n"], scale["flowchart"]["alpha"]):
            wm(n, alpha)
            lp(n, alpha, "L0", ("WH",))
            for size in range(len(counts.PROPERTIES) + 1):
                for names in itertools.combinations(counts.PROPERTIES, size):
                    lp(n, alpha, "L0", names)
    elif rule == "counts_properties":
        for n, alpha in itertools.product(scale["properties"]["n"], scale["properties"]["alpha"]):
            wm(n, alpha)
    elif rule.startswith("counts_combinations_"):
        a = rule.endswith("_a")
        ns = scale["fig08"]["n"] if a else [study["fig08"]["n"]]
        alphas = [study["fig08"]["alpha"]] if a else scale["fig08"]["alpha"]
        for n, alpha, combination in itertools.product(ns, alphas, counts.COMBINATIONS):
            lp(n, alpha, "L0", ("WH", *combination))
    elif rule == "counts_scores":
        for alpha, n in itertools.product(study["fig09"]["alpha"], scale["fig09"]["n"]):
            wm(n, alpha)
            lp(n, alpha, "L0", ("WH", "S"))
    elif rule == "counts_published":
        for n, alpha in itertools.product(scale["properties"]["n"], scale["properties"]["alpha"]):
            lp(n, alpha, "L0")
        wm(study["fig07"]["n"], study["fig07"]["alpha"])
    elif rule == "counts_mechanisms":
        for n, alpha in mechanism_pairs(cfg):
            wm(n, alpha)
    else:
        raise ValueError(f"unknown rule {rule!r}")
    return solved


def run(item: str, scale: str | None) -> dict:
    cfg = config(scale)
    started, cpu = time.perf_counter(), time.process_time()
    record = {"item": item}
    if item.startswith("shokri:"):
        from privest import alphabets, shokri

        _, alphabet, Q = item.split(":")
        spec = dict(cfg["free_will"]["alphabets"][alphabet])
        if spec["kind"] == "planar":
            region = cfg["regions"][spec["region"]]
            spec = {"kind": "planar", "columns": region["columns"], "rows": region["rows"],
                    "cell_km": region["cell_km"]}
        options = {key: value for key, value in cfg["free_will"]["shokri"].items() if key != "solver"}
        solution = shokri.solve_shokri(alphabets.Alphabet.from_dict(spec).distances(), float(Q), **options)
        record.update(lps=1, rounds=solution.rounds, objective=solution.objective, optimum=solution.optimum,
                      solver=solution.solver)
    else:
        record["lps"] = count_lps(cfg, item.split(":", 1)[1])
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    record.update(wall=time.perf_counter() - started,
                  cpu=time.process_time() - cpu + children.ru_utime + children.ru_stime)
    return record


def compare(before: str, after: str, repeats: int, scale: str | None, only: list[str], out: Path | None) -> None:
    sides = {"before": before.split(":", 1), "after": after.split(":", 1)}
    chosen = [i for i in items(config(scale)) if not only or any(i.startswith(o) for o in only)]
    results = {}
    for item in chosen:
        for _ in range(repeats):
            for side, (python, tree) in sides.items():
                command = [python, str(Path(__file__).resolve()), "run", item] + (["--scale", scale] if scale else [])
                env = {**os.environ, "PYTHONPATH": tree}
                line = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=True)
                record = json.loads(line.stdout.strip().splitlines()[-1])
                results.setdefault((item, side), []).append(record)
                print(json.dumps({"side": side, **record}), file=sys.stderr, flush=True)
    rows = ["| LPs | n | before wall s | after wall s | before/after | before CPU s | after CPU s | rounds b/a |",
            "|---|---|---|---|---|---|---|---|"]
    for item in chosen:
        b, a = results[(item, "before")], results[(item, "after")]
        med = {key: (statistics.median(r[key] for r in b), statistics.median(r[key] for r in a))
               for key in ("wall", "cpu")}
        rounds = f"{b[0]['rounds']} / {a[0]['rounds']}" if "rounds" in b[0] else ""
        rows.append(f"| {item} | {a[0]['lps']} | {med['wall'][0]:.2f} | {med['wall'][1]:.2f} | "
                    f"{med['wall'][0] / med['wall'][1]:.1f} | {med['cpu'][0]:.2f} | {med['cpu'][1]:.2f} | {rounds} |")
    text = "\n".join(rows)
    print(text)
    if out:
        out.write_text(json.dumps({f"{i}|{s}": r for (i, s), r in results.items()}, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    one = sub.add_parser("run")
    one.add_argument("item")
    one.add_argument("--scale")
    sub.add_parser("list").add_argument("--scale")
    both = sub.add_parser("compare")
    both.add_argument("--before", required=True, help="PYTHON:TREE")
    both.add_argument("--after", required=True, help="PYTHON:TREE")
    both.add_argument("--repeats", type=int, default=1)
    both.add_argument("--scale")
    both.add_argument("--only", nargs="*", default=[], help="item prefixes, e.g. shokri:planar counts:")
    both.add_argument("--json", type=Path, help="write every run's record here")
    args = parser.parse_args()
    if args.mode == "run":
        print(json.dumps(run(args.item, args.scale)))
    elif args.mode == "list":
        print("\n".join(items(config(args.scale))))
    else:
        compare(args.before, args.after, args.repeats, args.scale, args.only, args.json)


if __name__ == "__main__":
    main()
