"""The count-data paper (Constrained differential privacy for count data): what its figures need of the config.

Config: ``constrained_counts`` (every alpha, n, p, d and repetition count of the figures) and
``scales.<scale>.constrained_counts`` (grids and sizes). Every function takes the whole config and fails with one line
naming the key.
"""

from collections.abc import Mapping
from typing import Any

from privest_studies.configuration import scale_config, study_config

STUDY = "constrained_counts"
FIGURE_9_PANELS = 3  # one per alpha: 0.5, 10/11 and 0.99 in the paper
SYNTHETIC_FIGURES = ("fig11", "fig12", "fig13")


def check(config: Mapping[str, Any]) -> None:
    """What the schema cannot say: Figure 9 has one panel per alpha, three in all. One line naming the key."""
    alphas = study_config(config, STUDY)["fig09"]["alpha"]
    if len(alphas) != FIGURE_9_PANELS:
        raise ValueError(f"config key {STUDY}.fig09.alpha: Figure 9 has {FIGURE_9_PANELS} panels, one per alpha; got "
                         f"{len(alphas)} alphas")


def mechanism_pairs(config: Mapping[str, Any]) -> list[list]:
    """Every (n, alpha) whose GM, WM, EM and UM Figures 7 and 10-13 use, sorted, each once."""
    study, scale = study_config(config, STUDY), scale_config(config, STUDY)
    pairs = {(study["fig07"]["n"], study["fig07"]["alpha"])}
    pairs |= {(n, study["adult"]["alpha"]) for n in scale["adult"]["n"]}
    pairs |= {(n, a) for n in study["fig11"]["n"] for a in study["fig11"]["alpha"]}
    pairs |= {(study["fig12"]["n"], a) for a in study["fig12"]["alpha"]}
    pairs |= {(n, a) for n in scale["synthetic"]["n"] for a in study["fig13"]["alpha"]}
    return [[int(n), float(a)] for n, a in sorted(pairs)]


def synthetic_design(config: Mapping[str, Any], figure: str) -> dict:
    """The points (alpha, n, p) of one synthetic figure (11, 12 or 13) and the metrics scored at each: L0,d for every
    d of `ds`, and the RMSE when `rmse`."""
    study, p_grid = study_config(config, STUDY), scale_config(config, STUDY)["synthetic"]["p"]
    if figure == "fig11":
        spec = study["fig11"]
        points = [[a, n, p] for a in spec["alpha"] for n in spec["n"] for p in p_grid]
        return {"points": points, "ds": [spec["d"]], "rmse": False}
    if figure == "fig12":
        spec = study["fig12"]
        points = [[a, spec["n"], p] for p in spec["p"] for a in spec["alpha"]]
        return {"points": points, "ds": list(range(spec["n"])), "rmse": False}
    if figure == "fig13":
        spec = study["fig13"]
        n_grid = scale_config(config, STUDY)["synthetic"]["n"]
        points = [[a, n, p] for a in spec["alpha"] for p in spec["p"] for n in n_grid]
        return {"points": points, "ds": [], "rmse": True}
    raise ValueError(f"figure must be one of {', '.join(SYNTHETIC_FIGURES)}, got {figure!r}")
