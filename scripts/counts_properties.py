"""Rule counts_properties: Figure 6 computed. The property checker on GM, WM, WM (CM), EM and UM at every (n, alpha)
of the grid (one tidy row per mechanism, n, alpha and property), then per mechanism and property: Y when it holds on the
whole grid, N when on none, - when it depends, beside the paper's Figure 6."""

from privest import counts
from privest_studies import files, jobs, tables

MECHANISMS = counts.MECHANISMS
ROWS = ("BasicDP", "S", "RH", "RM", "CH", "CM", "F", "WH")


def main() -> None:
    grid, tolerance = snakemake.params.grid, snakemake.params.tolerance
    rows = []
    for name in MECHANISMS:
        for n in grid["n"]:
            for alpha in grid["alpha"]:
                P = counts.by_name(name, n, alpha)
                holds = counts.properties(P, alpha, tol=tolerance)
                rows += [{"mechanism": name, "n": n, "alpha": alpha, "property": prop, "holds": holds[prop],
                          "score": counts.loss(P)} for prop in ROWS]
    files.save_rows(rows, ["mechanism", "n", "alpha", "property", "holds", "score"], snakemake.output.grid)
    table = []
    for prop in ROWS:
        row = {"property": prop}
        for name in MECHANISMS:
            holds = [r["holds"] for r in rows if r["mechanism"] == name and r["property"] == prop]
            row[name] = counts.verdict(holds)
            row[f"{name} (holds/points)"] = f"{sum(holds)}/{len(holds)}"
            row[f"{name} paper"] = counts.FIGURE6_CLAIMS.get(name, {}).get(prop, "")
        table.append(row)
    columns = ["property", *MECHANISMS, *(f"{m} paper" for m in MECHANISMS),
               *(f"{m} (holds/points)" for m in MECHANISMS)]
    files.save_rows(table, columns, snakemake.output.table)
    text = ("# Figure 6: the properties of GM, WM, WM (CM), EM and UM, computed\n\n"
            f"The checker (privest.counts.properties, tolerance {tolerance:g}) on every n in {grid['n']} and alpha in"
            f" {grid['alpha']}: Y = holds on all of them, N = on none, — = depends. 'paper' is Figure 6 as printed"
            " (empty: the paper's table has no row for it). WM is the L0 optimum under WH + RM (+ S, free), as the"
            " paper's figures build it; WM (CM) adds CM, as its section V-A says (Decisions, section 7). The paper"
            " has no WM (CM) column.\n\n"
            + tables.markdown_table(table, columns))
    files.write_text(snakemake.output.markdown, text)


jobs.run_or_exit(main, snakemake.log)
