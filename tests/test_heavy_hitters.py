"""privest.heavy_hitters: PEM, TreeHist and SFP find the dominant items of a Zipf domain of 2^32, every stage's
estimate is unbiased (simulation on small domains with GRR, an exactly unbiased oracle), and precision, recall and
NCR equal hand-computed values."""

import numpy as np
import pytest

from privest import heavy_hitters, rng_for
from privest.heavy_hitters import ncr, precision, recall


def zipf_users(n: int, seed: str, support: int = 1000, exponent: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """n users' items on a Zipf law over ``support`` random items of 0..2^32-1; the items in rank order."""
    rng = rng_for(51, "zipf", seed)
    items = rng.choice(2**32, support, replace=False).astype(np.uint64)
    weights = np.arange(1, support + 1, dtype=np.float64) ** -exponent
    return items[rng.choice(support, n, p=weights / weights.sum())], items


def dominant_users(n: int, seed: str) -> tuple[np.ndarray, np.ndarray]:
    """n users on 2^32: five dominant items (shares 0.2, 0.15, 0.1, 0.08, 0.06) and the rest (0.41) spread uniformly
    over 10^4 other random items; the five in rank order."""
    rng = rng_for(51, "dominant", seed)
    items = rng.choice(2**32, 10_005, replace=False).astype(np.uint64)
    shares = np.concatenate([[0.2, 0.15, 0.1, 0.08, 0.06], np.full(10_000, 0.41 / 10_000)])
    return items[rng.choice(items.size, n, p=shares / shares.sum())], items[:5]


@pytest.mark.parametrize("build, hashes", [(heavy_hitters.pem, 1024), (heavy_hitters.treehist, 1024),
                                           (heavy_hitters.sfp, 256)], ids=["pem", "treehist", "sfp"])
def test_the_dominant_items_of_a_domain_of_2_32_are_found(build, hashes):
    values, truth = dominant_users(100_000, build.__name__)
    found = build(2**32, 8.0, hashes=hashes).run(values, rng_for(51, "hh", build.__name__), top=5)
    assert found.items.tolist() == truth.tolist() and recall(found.items, truth) == 1.0
    shares = np.array([(values == item).mean() for item in found.items])
    assert np.all(np.abs(found.frequencies - shares) < 0.01), (found.frequencies, shares)


def _mean_and_error(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(len(draws))


def test_each_pem_and_treehist_level_estimates_its_prefix_shares_without_bias():
    """On 2^6 items (levels of 2, 4 and 6 bits), the mean over 300 runs of each level's estimate of every prefix is
    the prefix's share of the users, within 4.5 standard errors (all 84 prefixes of the two protocols)."""
    values = np.repeat(np.arange(0, 64, 5, dtype=np.uint64), np.arange(1, 14) * 20)
    for protocol in (heavy_hitters.pem(64, 1.5, start=0, step=2, oracle="grr"),
                     heavy_hitters.treehist(64, 3.0, step=2, oracle="grr")):
        assert protocol.levels == [2, 4, 6]
        rng = rng_for(51, "levels", protocol.name)
        for level, length in enumerate(protocol.levels):
            prefixes = np.arange(1 << length, dtype=np.uint64)
            truth = np.array([(values >> np.uint64(6 - length) == p).mean() for p in prefixes])
            draws = np.array([protocol.estimate(protocol.sample(values, rng)[1], level, prefixes)
                              for _ in range(300)])
            mean, error = _mean_and_error(draws)
            assert np.all(np.abs(mean - truth) < 4.5 * error + 1e-12), (protocol.name, level, mean - truth)


def test_each_sfp_position_estimates_its_pair_shares_without_bias():
    """On 2^5 items (fragments of 3 bits: the second one 2 bits and a padding bit), the mean over 300 runs of each
    position's estimate of every (hash, fragment) code is the code's share of the users, within 4.5 standard errors."""
    values = np.repeat(np.arange(0, 32, 3, dtype=np.uint64), np.arange(1, 12) * 20)
    protocol = heavy_hitters.sfp(32, 3.0, step=3, oracle="grr")
    codes = np.arange(256 * 8, dtype=np.uint64)
    rng = rng_for(51, "pairs")
    hashes = protocol.item_hash(values)
    for position, fragments in enumerate([values >> np.uint64(2), (values << np.uint64(1)) & np.uint64(7)]):
        truth = np.bincount(hashes * 8 + fragments.astype(np.int64), minlength=codes.size) / values.size
        draws = np.array([protocol.estimate_pairs(protocol.sample(values, rng)[1], position, codes)
                          for _ in range(300)])
        mean, error = _mean_and_error(draws)
        assert np.all(np.abs(mean - truth) < 4.5 * error + 1e-12), (position, np.abs(mean - truth).max())


@pytest.mark.parametrize("build", [heavy_hitters.pem, heavy_hitters.treehist, heavy_hitters.sfp],
                         ids=["pem", "treehist", "sfp"])
def test_the_final_frequencies_are_unbiased_when_every_candidate_is_kept(build):
    """With top above every level's candidates (2^4 items), nothing is selected: each item's reported frequency is an
    oracle's plain estimate, whose mean over 150 runs is its share (4.5 standard errors)."""
    values = np.repeat(np.arange(16, dtype=np.uint64), np.arange(16) * 10 + 5)
    protocol = build(16, 2.0, step=2, oracle="grr", **({"start": 0} if build is heavy_hitters.pem else {}))
    rng = rng_for(51, "final", build.__name__)
    draws = []
    for _ in range(150):
        found = protocol.run(values, rng, top=1 << 12)
        assert sorted(found.items.tolist()) == list(range(16))
        draws.append(found.frequencies[np.argsort(found.items)])
    mean, error = _mean_and_error(np.array(draws))
    assert np.all(np.abs(mean - np.bincount(values.astype(np.int64)) / values.size) < 4.5 * error)


def test_sfp_puts_items_of_64_bits_back_together_when_the_fragments_do_not_divide_them():
    """m = 64, step 5: 13 fragments, the last one 1 bit of the item and 4 of padding; items near 2^64."""
    items = np.array([2**64 - 1, 2**63 + 12345, 77], dtype=np.uint64)
    values = np.repeat(items, [5000, 3000, 2000])
    protocol = heavy_hitters.sfp(2**64, 12.0, step=5, hashes=32)
    assert protocol.positions == 13
    found = protocol.run(values, rng_for(51, "sfp64"), top=3)
    assert found.items.tolist() == items.tolist()


def test_pem_keeps_to_a_domain_that_is_not_a_power_of_two():
    values = np.repeat(np.array([0, 999, 500], dtype=np.uint64), [300, 200, 100])
    found = heavy_hitters.pem(1000, 10.0, start=2, step=4, oracle="grr").run(values, rng_for(51, "k1000"), top=3)
    assert sorted(found.items.tolist()) == [0, 500, 999]


def test_the_metrics_equal_hand_computed_values():
    truth = [50, 40, 30, 20]  # qualities 4, 3, 2, 1; their sum 10
    assert precision([50, 30, 7], truth) == pytest.approx(2 / 3)
    assert recall([50, 30, 7], truth) == 0.5
    assert ncr([50, 30, 7], truth) == pytest.approx((4 + 2) / 10)
    assert ncr([20], truth) == pytest.approx(0.1)
    assert ncr(truth[::-1], truth) == 1.0 and recall(truth, truth) == 1.0 and precision(truth, truth) == 1.0
    assert precision([], truth) == 0.0 and recall([], truth) == 0.0 and ncr([], truth) == 0.0
    assert precision([2**64 - 1], [2**64 - 1]) == 1.0


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="oracle"):
        heavy_hitters.pem(2**32, 1.0, oracle="nope")
    with pytest.raises(ValueError, match="values"):
        heavy_hitters.pem(2**8, 1.0).run(np.array([256]), rng_for(1), top=2)
    with pytest.raises(ValueError, match="found and truth"):
        recall([1, 1], [1, 2])
    with pytest.raises(ValueError, match="candidates"):
        heavy_hitters.pem(2**32, 1.0, start=18, step=4).run(np.arange(10), rng_for(1), top=2)
