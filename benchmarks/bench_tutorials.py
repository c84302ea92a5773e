"""multi-freq-ldpy's three tutorial grids on one seed (issue 49, item 7): the peer's own clients and aggregators as its
notebooks 1-3 call them, against privest on the same grid, cell by cell in turn (the section ``tutorials`` of
``bench_peers.py``; run ``.venv/bin/python benchmarks/bench_peers.py --sections tutorials``).

- single attribute (notebook 1): the Adult ages of the 45,222 complete persons (k = 74), eps 0.5..5.0 in steps of
  0.5, GRR, SUE, OUE, BLH, OLH, SS, SHE and THE (the peer's THE aggregates SHE's reports again, as its notebook does);
- longitudinal (notebook 3): the same ages, eps_perm on that grid with eps1 = eps_perm / 2, L-GRR, L-OUE, L-OSUE,
  L-SUE, L-SOUE and dBitFlipPM (b = d = k);
- multidimensional (notebook 2): SPL, SMP and RS+FD with ADP on 88,935 tuples of k = [3, 8, 12, 3, 37, 11] (the
  notebook's MS-FIMU shape; here the synthetic data set of privest_studies.multi_freq_ldpy_tutorials).

For each (protocol, eps) cell, in turn: the peer's list of client calls and its ``*_Aggregator_MI``; privest's
vectorised ``sample`` and ``estimate(post="normalization")`` (the peer's MI post-processing); then GIBU on privest's
reports (the study's stopping rule), timed apart. A grid's time is the sum over its cells.
"""

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import privest
from privest import protocols
from privest_studies import datasets
from privest_studies import multi_freq_ldpy_tutorials as mt

EPS = tuple(np.arange(0.5, 5.1, 0.5).round(1).tolist())  # the notebooks' np.arange(0.5, 5.1, 0.5)
SINGLE = ("grr", "sue", "oue", "blh", "olh", "ss", "she", "the")
LONGITUDINAL = ("l_grr", "l_oue", "l_osue", "l_sue", "l_soue", "dbitflip")
SOLUTIONS = ("spl", "smp", "rsfd")
MS_FIMU = {"ks": [3, 8, 12, 3, 37, 11], "users": 88_935, "exponent": 1.1}
RULE = {**privest.estimators.PLAIN_IBU, "delta": 1e-8, "max_iter": 2000, "accelerate": "squarem"}


def tutorial_data(adult: Path, seed: int, users: int | None = None) -> dict[str, np.ndarray]:
    """The label-encoded ages of Adult's complete persons and the MS-FIMU-shaped tuples (the first ``users`` of
    each, if given)."""
    persons = datasets.read_adult([adult / "adult.data", adult / "adult.test"])
    ages = mt.ages_data(persons)[0]["secrets"]
    tuples = mt.synthetic_tuples(MS_FIMU, privest.rng_for(seed, mt.STUDY, "synthetic"))
    return {"ages": ages[:users], "tuples": tuples[:users]}


def peer_single(kind: str, ages: list[int], k: int, eps: float, she: dict) -> None:
    """Notebook 1's cell of one protocol at eps: the clients on every age, then the aggregator (THE on SHE's
    reports of the same eps, kept in ``she``)."""
    from multi_freq_ldpy.pure_frequency_oracles.GRR import GRR_Aggregator_MI, GRR_Client
    from multi_freq_ldpy.pure_frequency_oracles.HE import HE_Aggregator_MI, HE_Client
    from multi_freq_ldpy.pure_frequency_oracles.LH import LH_Aggregator_MI, LH_Client
    from multi_freq_ldpy.pure_frequency_oracles.SS import SS_Aggregator_MI, SS_Client
    from multi_freq_ldpy.pure_frequency_oracles.UE import UE_Aggregator_MI, UE_Client

    if kind == "grr":
        GRR_Aggregator_MI([GRR_Client(x, k, eps) for x in ages], k, eps)
    elif kind in ("sue", "oue"):
        UE_Aggregator_MI([UE_Client(x, k, eps, optimal=kind == "oue") for x in ages], eps, optimal=kind == "oue")
    elif kind in ("blh", "olh"):
        LH_Aggregator_MI([LH_Client(x, k, eps, optimal=kind == "olh") for x in ages], k, eps, optimal=kind == "olh")
    elif kind == "ss":
        SS_Aggregator_MI([SS_Client(x, k, eps) for x in ages], k, eps)
    elif kind == "she":
        she[eps] = [HE_Client(x, k, eps) for x in ages]
        HE_Aggregator_MI(she[eps], k, eps, use_thresh=False)
    else:
        HE_Aggregator_MI(she[eps], k, eps, use_thresh=True)


def peer_longitudinal(kind: str, ages: list[int], k: int, eps: float) -> None:
    """Notebook 3's cell: eps_perm = eps, eps_1 = eps / 2; dBitFlipPM with b = d_bits = k."""
    from multi_freq_ldpy.long_freq_est import L_GRR, L_OSUE, L_OUE, L_SOUE, L_SUE, dBitFlipPM

    eps1 = eps * 0.5
    if kind == "l_grr":
        L_GRR.L_GRR_Aggregator_MI([L_GRR.L_GRR_Client(x, k, eps, eps1) for x in ages], k, eps, eps1)
    elif kind == "dbitflip":
        dBitFlipPM.dBitFlipPM_Aggregator_MI([dBitFlipPM.dBitFlipPM_Client(x, k, k, k, eps) for x in ages], k, k, eps)
    else:
        module = {"l_oue": L_OUE, "l_osue": L_OSUE, "l_sue": L_SUE, "l_soue": L_SOUE}[kind]
        name = kind.upper()
        client, aggregator = getattr(module, f"{name}_Client"), getattr(module, f"{name}_Aggregator_MI")
        aggregator([client(x, k, eps, eps1) for x in ages], eps, eps1)


def peer_multidim(solution: str, tuples: np.ndarray, ks: list[int], eps: float) -> None:
    """Notebook 2's cell: the solution with ADP on every tuple (its rows, as ``df.values`` gives them)."""
    from multi_freq_ldpy.mdim_freq_est import RSpFD_solution, SMP_solution, SPL_solution

    module, prefix = {"spl": (SPL_solution, "SPL"), "smp": (SMP_solution, "SMP"),
                      "rsfd": (RSpFD_solution, "RSpFD")}[solution]
    d = len(ks)
    reports = [getattr(module, f"{prefix}_ADP_Client")(row, ks, d, eps) for row in tuples]
    getattr(module, f"{prefix}_ADP_Aggregator_MI")(reports, ks, d, eps)


def ours(kind: str, secrets: np.ndarray, k: int, eps: float, rng: np.random.Generator) -> tuple[Any, Any]:
    """privest's cell: the protocol (or solution), its vectorised reports and the unbiased estimate post-processed
    as the peer's MI; returns (protocol, reports) for GIBU."""
    if kind in SOLUTIONS:
        made = {"spl": protocols.spl, "smp": protocols.smp, "rsfd": protocols.rsfd}[kind](k, eps, "adp")
        reports = made.sample(secrets, rng, packed=True)
    else:
        made = protocols.by_name(kind, k, eps)
        reports = made.sample(secrets, rng) if kind == "dbitflip" else made.sample(secrets, rng, packed=True)
    made.estimate(reports, post="normalization")
    return made, reports


def ours_gibu(made: Any, reports: Any) -> None:
    """GIBU on privest's reports: one MLE, or one per attribute of a multidimensional solution."""
    groups = made.groups(reports) if hasattr(made, "groups") else [made.group(reports)]
    for group in groups:
        privest.gibu([group], **RULE)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def bench_grids(seed: int, adult: Path, users: int | None = None, eps_grid: tuple = EPS,
                progress: Callable[[str], None] = print) -> dict[str, dict[str, float]]:
    """Every grid's summed seconds: peer, privest sample + estimate, privest GIBU, and its cells and users."""
    from bench_protocols import seed_peers

    seed_peers()
    data = tutorial_data(adult, seed, users)
    ages, tuples = data["ages"], data["tuples"]
    k, ks, age_list = int(ages.max()) + 1, list(MS_FIMU["ks"]), ages.tolist()
    totals: dict[str, dict[str, float]] = {}
    grids = {"single": SINGLE, "longitudinal": LONGITUDINAL, "multidim": SOLUTIONS}
    for grid, kinds in grids.items():
        total = totals.setdefault(grid, {"peer": 0.0, "ours": 0.0, "gibu": 0.0, "cells": 0,
                                         "users": float(len(tuples) if grid == "multidim" else len(ages))})
        she: dict = {}
        for eps in eps_grid:
            for kind in kinds:
                rng = privest.rng_for(seed, "bench_tutorials", grid, kind, repr(eps))
                if grid == "single":
                    peer, _ = timed(lambda kind=kind, eps=eps, she=she: peer_single(kind, age_list, k, eps, she))
                elif grid == "longitudinal":
                    peer, _ = timed(lambda kind=kind, eps=eps: peer_longitudinal(kind, age_list, k, eps))
                else:
                    peer, _ = timed(lambda kind=kind, eps=eps: peer_multidim(kind, tuples, ks, eps))
                secrets, size = (tuples, ks) if grid == "multidim" else (ages, k)
                mine, (made, reports) = timed(lambda kind=kind, eps=eps, rng=rng, secrets=secrets, size=size:
                                              ours(kind, secrets, size, eps, rng))
                mle, _ = timed(lambda made=made, reports=reports: ours_gibu(made, reports))
                total["peer"] += peer
                total["ours"] += mine
                total["gibu"] += mle
                total["cells"] += 1
                progress(f"{grid} {kind} eps {eps:g}: peer {peer:.2f} s, privest {mine:.4f} s, GIBU {mle:.3f} s")
    return totals
