"""The IBU consistency paper, section 7: IBU against INV-N and INV-P on Adult ages, Gowalla locations and synthetic
RAPPOR data.

Each experiment of config ibu_consistency.experiments runs the one chain of workflow/rules/experiment.smk (one
mechanism per eps of its grid, every run in one job per stage) into results/ibu_consistency/<experiment>/; the
study's tidy table is results/ibu_consistency/tables/scores.csv. The figures below are drawn from it and from single
runs. Experiments, figures and synthetic datasets: config ibu_consistency; sizes: scales.
"""

IBU = config["ibu_consistency"]


rule ibu_synthetic:
    """A synthetic dataset of section 7.5: theta on {0..k-1} from the config."""
    output:
        data="results/ibu_consistency/data/{dataset}.npz",
        alphabet="results/ibu_consistency/data/{dataset}_alphabet.json",
    log:
        "logs/ibu_consistency/synthetic_{dataset}.log",
    wildcard_constraints:
        dataset="|".join(config["ibu_consistency"]["synthetic"]),
    localrule: True
    conda:
        "../../envs/privest.yaml"
    params:
        spec=lambda w: config["ibu_consistency"]["synthetic"][w.dataset],
    script:
        "../../scripts/ibu_synthetic.py"


rule ibu_fig01:
    """Figure 1: the original, noisy and estimated distributions of Adult ages (run 0), one panel per method."""
    input:
        unpack(lambda w: figure_inputs("ibu_consistency", IBU["fig01"]["experiment"])),
    output:
        [
            reported(path)
            for path in expand(
                "results/ibu_consistency/figures/{panel}.{ext}",
                panel=["fig01a", "fig01b", "fig01c"],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/ibu_consistency/fig01.log",
    conda:
        "../../envs/privest.yaml"
    params:
        methods=["INV-N", "INV-P", "IBU"],
        eps=IBU["fig01"]["eps"],
        stopping=IBU["ibu"],
    script:
        "../../scripts/ibu_fig01.py"


rule ibu_boxplot:
    """Figures 9, 10 and 12, one file per panel: boxplots over runs of each method's EMD against eps (one job: each
    panel takes a fraction of a second once matplotlib and pandas are loaded). The experiment of each panel:
    config ibu_consistency.boxplots."""
    input:
        table="results/ibu_consistency/tables/scores.csv",
        alphabets=[EXPERIMENTS["ibu_consistency"][name].alphabet_file for name in IBU["boxplots"].values()],
    output:
        [
            reported(path)
            for path in expand(
                "results/ibu_consistency/figures/{panel}.{ext}",
                panel=[
                    "fig09a",
                    "fig09b",
                    "fig09c",
                    "fig09d",
                    "fig09e",
                    "fig09f",
                    "fig10a",
                    "fig10b",
                    "fig12a",
                    "fig12b",
                ],
                ext=["pdf", "png"],
            )
        ],
    log:
        "logs/ibu_consistency/boxplots.log",
    conda:
        "../../envs/privest.yaml"
    params:
        panels=lambda w, output: privest_studies.ibu_consistency.boxplot_panels(config, list(output)),
        stopping=IBU["ibu"],
        runs=config["scales"][config["scale"]]["ibu_consistency"]["runs"],
    script:
        "../../scripts/ibu_boxplot.py"


rule ibu_fig07:
    """Figure 7: the check-ins of the planar region on its grid (the region used is printed on the figure)."""
    input:
        data="results/data/checkins_planar.npz",
        alphabet="results/data/checkins_planar_alphabet.json",
    output:
        [reported(path) for path in expand("results/ibu_consistency/figures/fig07.{ext}", ext=["pdf", "png"])],
    log:
        "logs/ibu_consistency/fig07.log",
    conda:
        "../../envs/privest.yaml"
    params:
        published_checkins=CATALOGUE["ibu_consistency"]["published"]["manhattan_checkins"],
    script:
        "../../scripts/ibu_fig07.py"


rule ibu_fig08:
    """Figure 8: original, noisy, INV-P, INV-N and IBU on the planar grid (run 0 at one eps), each with its EMD, and
    the table of our EMDs beside the paper's."""
    input:
        unpack(lambda w: figure_inputs("ibu_consistency", IBU["fig08"]["experiment"], "scores.csv")),
    output:
        figures=[
            reported(path)
            for path in expand(
                "results/ibu_consistency/figures/{panel}.{ext}",
                panel=["fig08a", "fig08b", "fig08c", "fig08d", "fig08e"],
                ext=["pdf", "png"],
            )
        ],
        table="results/ibu_consistency/tables/fig08_emd.csv",
        markdown="results/ibu_consistency/tables/fig08_emd.md",
    log:
        "logs/ibu_consistency/fig08.log",
    conda:
        "../../envs/privest.yaml"
    params:
        experiment=IBU["fig08"]["experiment"],
        eps=IBU["fig08"]["eps"],
        published=CATALOGUE["ibu_consistency"]["published"]["fig08_emd_km"],
        published_region=privest_studies.ibu_consistency.published_region(config),
        published_checkins=CATALOGUE["ibu_consistency"]["published"]["manhattan_checkins"],
        stopping=IBU["ibu"],
    script:
        "../../scripts/ibu_fig08.py"


rule ibu_fig11:
    """Figure 11: IBU's estimate from RAPPOR reports beside the original distribution, one panel per experiment of
    config ibu_consistency.fig11.experiments."""
    input:
        alphabets=[EXPERIMENTS["ibu_consistency"][name].alphabet_file for name in IBU["fig11"]["experiments"]],
        data=[EXPERIMENTS["ibu_consistency"][name].data_file for name in IBU["fig11"]["experiments"]],
        reports=[f"results/ibu_consistency/{name}/reports.npz" for name in IBU["fig11"]["experiments"]],
        estimates=[f"results/ibu_consistency/{name}/estimates_ibu.npz" for name in IBU["fig11"]["experiments"]],
    output:
        [
            reported(path)
            for path in expand(
                "results/ibu_consistency/figures/{panel}.{ext}", panel=["fig11a", "fig11b"], ext=["pdf", "png"]
            )
        ],
    log:
        "logs/ibu_consistency/fig11.log",
    conda:
        "../../envs/privest.yaml"
    params:
        eps=IBU["fig11"]["eps"],
        stopping=IBU["ibu"],
    script:
        "../../scripts/ibu_fig11.py"


rule ibu_consistency:
    """Every output of the study's section 7 at the active scale (`snakemake ibu_consistency`); the theoretical
    parts are rule ibu_theory."""
    input:
        rules.ibu_fig01.output,
        rules.ibu_boxplot.output,
        rules.ibu_fig07.output,
        rules.ibu_fig08.output,
        rules.ibu_fig11.output,
        "results/ibu_consistency/tables/scores.csv",
    localrule: True
