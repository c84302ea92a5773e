"""Rule ibu_boxplot: for each panel of Figures 9, 10 and 12, boxplots over runs of each method's EMD against eps."""

from privest_studies import files, jobs, plotting, regions

MECHANISMS = {
    ("linear", "geometric"): "the linear geometric mechanism",
    ("linear", "laplace"): "the linear Laplace mechanism",
    ("planar", "geometric"): "the planar geometric mechanism",
    ("planar", "laplace"): "the planar Laplace mechanism",
    ("linear", "exponential"): "the exponential mechanism",
    ("planar", "exponential"): "the exponential mechanism",
    ("linear", "krr"): "k-RR",
    ("planar", "krr"): "k-RR",
    ("linear", "rappor"): "RAPPOR",
}


def describe(spec: dict, data: str, mechanism: str) -> tuple[str, str]:
    """The panel's subject (as the paper's panel captions word it) and the unit of its EMD."""
    sanitised = f"sanitised by {MECHANISMS[spec['kind'], mechanism]}"
    if spec["kind"] == "planar":
        return f"location data, {regions.region_name(spec)}, {sanitised}", "km"
    if data == "ages":
        return f"age data {sanitised}", "years"
    return f"{MECHANISMS[spec['kind'], mechanism]}, original data sampled from {spec['label']}", "units of x"


def main() -> None:
    scores = files.load_table(snakemake.input.table)
    outputs = iter(snakemake.output)
    for panel in snakemake.params.panels:
        figure = panel["figure"]
        table = scores[scores["experiment"] == panel["experiment"]]
        subject, unit = describe(files.load_json(panel["alphabet"]), panel["data"], panel["mechanism"])
        fig, ax = plotting.figure(figsize=(6.4, 3.6))
        plotting.boxplots_by_eps(ax, table, ["INV-N", "INV-P", "IBU"])
        ax.set_ylabel(f"EMD to the original distribution ({unit})")
        ax.set_title(f"Figure {int(figure[3:5])}({figure[5:]}): {subject}", fontsize=9)
        capped = table.loc[table["method"] == "IBU", "capped"].mean()
        users = f"{panel['users']:,} users drawn per run" if panel["users"] else "every record perturbed once per run"
        fig.text(0.5, -0.02, f"{snakemake.params.runs} runs per ε, {users}; "
                 f"{plotting.stopping_note(snakemake.params.stopping)} (cap hit in {capped:.0%} of IBU runs)",
                 ha="center", va="top", fontsize=7)
        plotting.save(fig, next(outputs), next(outputs))


jobs.run_or_exit(main, snakemake.log)
