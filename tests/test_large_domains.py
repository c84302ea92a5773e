"""The large-domains study (privest_studies.large_domains): the cell mapping, the Zipf draw and its id bijection
against closed forms, the metrics on hand-worked lists, one tiny job's rows (paired users, byte-identical reruns,
no MLE for HM), the heavy-hitter path on an exact stand-in protocol, the decision rule and the config check."""

import sys
import types

import numpy as np
import pytest
from scipy import special, stats

from privest_studies import large_domains as ld
from privest_studies.regions import Box

SF = Box(lat_min=37.7228, lat_max=37.7946, lon_min=-122.5153, lon_max=-122.3789)


def _config(oracles=("flh", "hm"), heavy_hitters=(), eps=(20.0,), runs=2, top=3, candidates=6):
    study = {"oracles": list(oracles), "options": {"flh": {"hashes": 64}, "cms": {"hashes": 1, "width": 1 << 16}},
             "heavy_hitters": list(heavy_hitters), "heavy_hitter_options": {}, "eps": list(eps), "top": top,
             "candidates": candidates, "zipf": {"bits": 32, "exponent": 1.5},
             "gowalla": {"region": "san_francisco", "cell_degrees": 1e-4},
             "ibu": {"delta": 1e-9, "max_iter": 2000, "accelerate": "squarem-direct"}}
    return {"seed": 2026, "scale": "quick", ld.STUDY: study,
            "scales": {"quick": {ld.STUDY: {"zipf_n": [3000], "gowalla_n": [500, "all"], "runs": runs}}}}


def test_degree_cells_of_the_san_francisco_box_are_718_by_1364_and_number_row_major():
    lat = np.array([SF.lat_min, SF.lat_max, SF.lat_min + 2.5e-4, SF.lat_min + 3e-4, 37.76, 37.76005])
    lon = np.array([SF.lon_min, SF.lon_max, SF.lon_min + 0.99e-4, SF.lon_min + 7e-4, -122.45, -122.45005])
    cells, rows, columns = ld.degree_cells(lat, lon, SF, 1e-4)
    assert (rows, columns) == (718, 1364)
    # corner, the inclusive far corner, row 2 col 0, coordinates on grid lines (in binary 37.76 - 37.7228 is
    # 371.99999... cells: the cell above, row 372), a point inside cell (372, 652)
    assert cells.tolist() == [0, rows * columns - 1, 2 * columns, 3 * columns + 7, 372 * columns + 653,
                              372 * columns + 652]
    with pytest.raises(ValueError, match="outside the box"):
        ld.degree_cells(np.array([37.0]), np.array([-122.4]), SF, 1e-4)


def test_gowalla_cells_drops_the_points_outside_the_box_and_counts_them():
    data = ld.gowalla_cells(np.array([37.73, 38.0, 37.79]), np.array([-122.4, -122.4, -122.5]), SF, 1e-3)
    assert data["cells"].size == 2 and int(data["dropped"]) == 1 and int(data["read"]) == 3
    assert int(data["k"]) == int(data["rows"]) * int(data["columns"]) == 72 * 137


def test_zipf_ranks_follow_the_truncated_law_by_chi_square():
    bits, s, n = 6, 1.2, 200_000
    ranks = ld.zipf_ranks(n, s, bits, np.random.default_rng(3))
    assert ranks.dtype == np.uint64 and ranks.min() >= 1 and ranks.max() <= 64
    p = np.arange(1, 65) ** -s
    p /= p.sum()
    observed = np.bincount(ranks.astype(np.int64), minlength=65)[1:]
    assert stats.chisquare(observed, n * p).pvalue > 1e-3


def test_zipf_ranks_over_2_to_the_32_give_rank_1_its_share_by_the_hurwitz_zeta():
    s, n = 1.1, 400_000
    ranks = ld.zipf_ranks(n, s, 32, np.random.default_rng(4))
    # sum_{r <= 2^32} r^-s = zeta(s) - zeta(s, 2^32 + 1): about 10% of numpy's unbounded mass lies above 2^32
    p1 = 1 / (special.zeta(s) - special.zeta(s, 2.0**32 + 1))
    share = float(np.mean(ranks == 1))
    assert abs(share - p1) < 5 * np.sqrt(p1 * (1 - p1) / n)
    assert ranks.max() <= 2**32
    with pytest.raises(ValueError, match="exponent must exceed 1"):
        ld.zipf_ranks(10, 1.0, 32, np.random.default_rng(0))


def test_zipf_ids_are_a_bijection_inverted_by_the_inverse_of_a():
    a, b = ld.zipf_map(8, np.random.default_rng(5))
    assert a % 2 == 1 and 0 <= b < 256
    ids = ld.zipf_ids(np.arange(1, 257, dtype=np.uint64), 8, a, b)
    assert np.unique(ids).size == 256 and int(ids.max()) < 256
    a, b = ld.zipf_map(32, np.random.default_rng(6))
    ranks = np.random.default_rng(7).integers(1, 2**32, 1000, endpoint=True, dtype=np.uint64)
    ids = ld.zipf_ids(ranks, 32, a, b)
    back = [(pow(a, -1, 2**32) * (int(i) - b)) % 2**32 + 1 for i in ids]
    assert back == ranks.tolist()
    with pytest.raises(ValueError, match="odd a"):
        ld.zipf_ids(ranks, 32, 2, 0)


def test_true_top_breaks_ties_by_the_smaller_item_and_top_set_keeps_the_tie():
    values = np.array([9, 9, 9, 4, 4, 7, 7, 2, 5])
    items, shares = ld.true_top(values, 4)
    assert items.tolist() == [9, 4, 7, 2] and shares.tolist() == pytest.approx([3 / 9, 2 / 9, 2 / 9, 1 / 9])
    assert ld.top_set(items, shares, 2).tolist() == [9, 4, 7]
    assert ld.top_set(items, shares, 1).tolist() == [9]


def test_scores_ranking_and_errors_on_hand_worked_lists():
    # 2 and 4 of the true top set {2, 4, 6} found; NCR weights the ranked truth [6, 4, 2] 3, 2, 1: (2 + 1) / 6
    assert ld.scores(np.array([1, 2, 3, 4]), np.array([2, 4, 6]), np.array([6, 4, 2])) == {
        "precision": 0.5, "recall": pytest.approx(2 / 3), "ncr": 0.5}
    assert ld.scores(np.array([], dtype=np.int64), np.array([1]), np.array([1])) == {
        "precision": 0.0, "recall": 0.0, "ncr": 0.0}
    found = ld.ranked_found(np.array([10, 20, 30, 40]), np.array([0.1, 0.3, 0.3, -0.2]), 2)
    assert found.tolist() == [20, 30]  # the tie kept in the candidates' order
    assert ld.errors(np.array([0.1, 0.5, -0.1]), np.array([0.2, 0.2, 0.0])) == (pytest.approx(0.5 / 3), 0.3)


def test_heavy_hitter_results_are_read_as_a_pair_or_a_record_and_missing_items_estimate_zero():
    pair = ld.heavy_hitter_result(([5, 3], [0.4, 0.1]))
    record = ld.heavy_hitter_result(types.SimpleNamespace(items=np.array([5, 3]), frequencies=np.array([0.4, 0.1])))
    for items, frequencies in (pair, record):
        assert items.tolist() == [5, 3] and frequencies.tolist() == [0.4, 0.1]
    assert ld.found_estimates(np.array([3, 8, 5]), *pair).tolist() == [0.1, 0.0, 0.4]


def test_a_zipf_job_is_paired_reproducible_and_near_exact_at_high_eps():
    config = _config(oracles=("cms", "hm"))
    rows = ld.run_job("zipf", "cms", {}, config)
    assert rows == ld.run_job("zipf", "cms", {}, config)  # byte-identical rerun
    assert [(r["method"], r["run"]) for r in rows] == [("unbiased", 0), ("MLE", 0), ("unbiased", 1), ("MLE", 1)]
    # eps 20, one hash into 2^16 cells: a user's bit at h(d) flips with probability 1/(1 + e^10) ~ 4.5e-5 and another
    # user's item shares d's cell with probability 2^-16: of n = 3000 users, ~0.2 miscounted, so the shares within
    # 3/n (1e-3) and every top item found
    for row in rows:
        assert row["mae"] < 1e-3 and row["precision"] == row["recall"] == 1.0 and row["k"] == 2**32
    hm_rows = ld.run_job("zipf", "hm", {}, {**config, ld.STUDY: {**config[ld.STUDY], "eps": [4.0]}})
    assert {r["method"] for r in hm_rows} == {"unbiased"}  # HM has no candidate likelihood
    values, _ = ld.users("zipf", 3000, 1, {}, config)
    again, _ = ld.users("zipf", 3000, 1, {}, config)
    assert np.array_equal(values, again) and not np.array_equal(values, ld.users("zipf", 3000, 0, {}, config)[0])


def test_a_gowalla_job_subsamples_without_replacement_or_takes_every_check_in():
    cells = np.random.default_rng(8).integers(0, 50, 2000)
    data = {"cells": cells, "k": np.int64(1000)}
    config = _config(oracles=("flh",))
    sub, k = ld.users("gowalla", 500, 0, data, config)
    assert k == 1000 and sub.size == 500 and np.all(np.isin(sub, cells))
    assert ld.users("gowalla", ld.ALL, 0, data, config)[0] is cells
    rows = ld.run_job("gowalla", "flh", data, config)
    assert sorted({r["n"] for r in rows}) == [500, 2000]
    with pytest.raises(ValueError, match="gowalla_n: 5000 exceeds"):
        ld.users("gowalla", 5000, 0, data, config)


def test_the_heavy_hitter_path_scores_an_exact_protocol_perfectly(monkeypatch):
    class Exact:
        """A stand-in heavy-hitter protocol with run(values, rng, top): the true top items and shares."""

        def __init__(self, k, eps):
            self.k, self.eps = k, eps

        def run(self, values, rng, top):
            items, shares = ld.true_top(values, top)
            return items, shares

    monkeypatch.setitem(sys.modules, "privest.heavy_hitters", types.SimpleNamespace(pem=Exact))
    config = _config(oracles=("flh",), heavy_hitters=("pem",), eps=(1.0,), runs=1)
    ld.check(config)
    rows = ld.run_job("zipf", "pem", {}, config)
    assert rows == [{**rows[0], "method": ld.FOUND, "mae": 0.0, "max_error": 0.0, "precision": 1.0, "recall": 1.0,
                     "ncr": 1.0, "found": 3}]
    assert ld.protocols_of(config) == ["flh", "pem"]


def test_the_decision_rule_reads_every_eps_and_n():
    def line(protocol, method, eps, mae):
        return {"dataset": "zipf", "protocol": protocol, "method": method, "eps": eps, "n": 10, "mae_mean": mae}

    lines = [line("cms", ld.UNBIASED, 1, 0.2), line("cms", ld.MLE, 1, 0.1), line("cms", ld.UNBIASED, 4, 0.2),
             line("cms", ld.MLE, 4, 0.1), line("flh", ld.UNBIASED, 1, 0.2), line("flh", ld.MLE, 1, 0.3),
             line("flh", ld.UNBIASED, 4, 0.2), line("flh", ld.MLE, 4, 0.1), line("hm", ld.UNBIASED, 1, 0.2)]
    assert ld.mle_verdicts(lines) == {("zipf", "cms"): "MLE more accurate", ("zipf", "flh"): "mixed"}


def test_the_summary_means_runs_and_keeps_k():
    rows = [{"dataset": "zipf", "protocol": "cms", "method": ld.UNBIASED, "eps": 1.0, "n": 10, "run": r, "k": 2**32,
             "mae": m, "max_error": 2 * m, "precision": p, "recall": p, "ncr": p, "found": 3, "iterations": 0,
             "capped": False}
            for r, (m, p) in enumerate([(0.1, 0.5), (0.3, 1.0)])]
    (line,) = ld.summary(rows)
    assert line["mae_mean"] == pytest.approx(0.2) and line["max_error_sd"] == pytest.approx(np.sqrt(0.08))
    assert line["precision_mean"] == line["ncr_mean"] == 0.75 and line["runs"] == 2 and line["k"] == 2**32


@pytest.mark.parametrize("change, key", [({"eps": [1.0, 1.0]}, "large_domains.eps"),
                                         ({"top": 7}, "large_domains.top"),
                                         ({"heavy_hitters": ["precision"]}, "large_domains.heavy_hitters")])
def test_the_config_check_names_the_key(change, key):
    config = _config()
    config[ld.STUDY].update(change)
    with pytest.raises(ValueError, match=key.replace(".", r"\.")):
        ld.check(config)
