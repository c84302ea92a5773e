"""Rule fw_figures: Figures 2-14 of the free-will paper, one file per panel: EMD to theta against the number of users
n, mean +- 1 s.d. over runs, one line per method."""

from privest_studies import experiment, files, jobs, plotting


def methods_title(methods: list[str]) -> str:
    """'[INV]_M and GIBU' from the figure's methods (post-processing variants counted once)."""
    names = list(dict.fromkeys(plotting.method_label(m.split("-")[0]) for m in methods))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def main() -> None:
    table = files.load_table(snakemake.input.scores, dtypes={"note": str})
    alphabets = {path.split("/")[-1].removesuffix("_alphabet.json"): files.load_json(path)
                 for path in snakemake.input.alphabets}
    members = {path.split("/")[-2]: experiment.mechanisms_from_arrays(files.load_npz(path))[0]
               for path in snakemake.input.mechanisms}
    params = snakemake.params
    outputs = iter(snakemake.output)
    for panel in params.panels:
        figure, letter, mechanism_set = panel["figure"], panel["letter"], panel["mechanism_set"]
        spec, set_spec = params.figures[figure], params.sets[mechanism_set]
        alphabet = alphabets[set_spec["alphabet"]]
        rows = table[table["mechanism_set"] == mechanism_set]
        fig, ax = plotting.figure(figsize=(6.0, 4.0))
        notes = plotting.emd_bands_by_n(ax, rows, spec["methods"])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sorted(rows["n"].unique()), [f"{n:,}" for n in sorted(rows["n"].unique())])
        ax.set_xlabel("number of users n (log scale)")
        unit = "km" if alphabet["kind"] == "planar" else "steps of 1"
        ax.set_ylabel(f"EMD to θ ({unit}, log scale)")
        number = f"Figure {int(figure[3:])}" + (f"({letter})" if letter else "")
        ax.set_title(f"{number}: {methods_title(spec['methods'])}\n{experiment.describe(members[mechanism_set])} "
                     f"— {set_spec['label']} (Table {set_spec['table']})", fontsize=9.5)
        ax.legend(loc="best")
        iterative = [m for m in spec["methods"] if "IBU" in m and (rows["method"] == m).any()]
        capped = ", ".join(f"{m} {rows.loc[rows['method'] == m, 'capped'].mean():.0%}" for m in iterative)
        footer = [alphabet.get("label", ""),
                  f"{params.runs} runs per n, mean ± 1 s.d.; scale: {params.scale}",
                  f"{plotting.stopping_note(params.stopping)}; runs stopped by the cap: {capped}"]
        if mechanism_set in params.shokri_Q:
            kept = ", ".join(f"{q:g}" for q in params.shokri_Q[mechanism_set])
            listed = sum(len(m.get("Q", [])) for m in set_spec["mechanisms"])
            footer.append(f"This scale keeps Shokri Q ∈ {{{kept}}} of the {listed} in Table 8")
        footer += [f"NA: {note}" for note in notes]
        fig.text(0.5, -0.01, "\n".join(footer), ha="center", va="top", fontsize=7)
        plotting.save(fig, next(outputs), next(outputs))


jobs.run_or_exit(main, snakemake.log)
