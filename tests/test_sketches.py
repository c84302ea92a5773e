"""The sketch oracles (privest.protocols.sketches, hadamard_mechanism) and their hashes (digests), against closed forms.

- The hashes equal xxHash's reference values (computed once with the xxhash package, pinned here; the peers' test
  compares thousands more).
- Each client's report distribution matches its closed form (chi-square at p < 1e-4 on 2 * 10^5 reports).
- Each estimate is unbiased: its mean is, exactly, the expectation computed here from the fixed hash family (CMS,
  HCMS, FLH: the colliding items' share) or the true frequency (HM), within 4.5 of its own estimated standard
  deviations on every queried item; ``estimate_variance`` equals the closed-form Var[Y]/n within 3%.
- ``privest.audit`` bounds each sketch's eps near and below its claim.
"""

import math

import numpy as np
import pytest
from scipy.stats import chisquare

import privest
from privest import protocols, rng_for
from privest.protocols.sketches import _hadamard_sign

EPS = 1.5
N = 200_000
ITEMS = np.array([3, 2**63 + 11, 987_654_321_987, 18_446_744_073_709_551_615], dtype=np.uint64)  # 2^64 - 1 last
THETA = np.array([0.5, 0.25, 0.15, 0.10])
QUERIED = np.concatenate([ITEMS, np.array([4, 12345], dtype=np.uint64)])  # two items no user holds
SKETCHES = [("cms", {"hashes": 64, "width": 256}), ("hcms", {"hashes": 64, "width": 256}), ("flh", {"hashes": 256}),
            ("hm", {}), ("hm", {"t": 3})]


def users(seed: str, n: int = N) -> np.ndarray:
    """n users' items drawn from THETA over ITEMS."""
    return ITEMS[rng_for(2026, "sketch users", seed).choice(ITEMS.size, n, p=THETA)]


def test_hashes_equal_xxhash_reference_values():
    # xxhash.xxh64(str(v), seed=s).intdigest(), xxhash.xxh32(...), xxhash.xxh64(s.encode(), seed) (xxhash 3.x)
    assert int(protocols.xxh64_decimal(12345, 0)) == 14335752410685132726
    assert protocols.item_ids(["apple", "pear"]).tolist() == [6379808199001010847, 16441169724966315442]
    assert int(protocols.item_ids([""])[0]) == 0xEF46DB3751D8E999  # the specification's empty input, seed 0
    assert int(protocols.xxh32_decimal_wide(7, 0)) == int(protocols.xxh32_decimal(7, 0))
    values = np.array([0, 9, 10, 10**14, 10**15 - 1], dtype=np.uint64)
    assert np.array_equal(protocols.xxh32_decimal_wide(values, 5), protocols.xxh32_decimal(values.astype(np.int64), 5))


def collision_share(sketch, items: np.ndarray, queried: np.ndarray) -> np.ndarray:
    """F[x, d]: the share of the hash family under which item x and queried item d hash alike."""
    cells_x, cells_d = sketch.cells(items), sketch.cells(queried)
    return (cells_x[:, :, None] == cells_d[:, None, :]).mean(axis=0)


def expected_and_hit(sketch) -> tuple[np.ndarray, np.ndarray]:
    """E[theta-hat_d] given the fixed hash family, and pi_d = P(Y = y1) of a user whose item is drawn from THETA."""
    if sketch.name == "HM":
        return (QUERIED[:, None] == ITEMS[None, :]).astype(float) @ THETA, None
    cells = sketch.width if sketch.name in ("CMS", "HCMS") else sketch.g
    share = THETA @ collision_share(sketch, ITEMS, QUERIED)
    if sketch.name == "CMS":
        hit = share * sketch.keep + (1 - share) * (1 - sketch.keep)
    elif sketch.name == "HCMS":  # s H[l, h_j(d)] = 1: with h_j(x) = h_j(d) w.p. e^eps/(1 + e^eps), else 1/2
        keep = 1 / (1 + math.exp(-sketch.eps))
        hit = share * keep + (1 - share) / 2
    else:
        hit = share * sketch.keep + (1 - share) * (1 - sketch.keep) / (sketch.g - 1)
    return cells / (cells - 1) * (share - 1 / cells), hit


@pytest.mark.parametrize(("name", "options"), SKETCHES)
def test_estimate_is_unbiased_and_its_variance_is_the_closed_form(name, options):
    sketch = protocols.by_name(name, 2**64, EPS, **options)
    reports = sketch.sample(users(name + str(options)), rng_for(2026, "sketch unbiased", name, str(options)))
    estimate, variance = sketch.estimate(reports, QUERIED), sketch.estimate_variance(reports, QUERIED)
    expected, hit = expected_and_hit(sketch)
    z = (estimate - expected) / np.sqrt(variance)
    assert np.abs(z).max() < 4.5, z
    # a 6% error in the estimator's scale would be 0.03 on theta = 0.5: over 5 standard deviations (at most 0.006)
    assert np.sqrt(variance).max() < 0.006
    if hit is not None:  # Y is y0 or y1: Var[Y] = (y1 - y0)^2 pi (1 - pi)
        if sketch.name == "FLH":
            spread = 1 / (sketch.keep - 1 / sketch.g)
        else:  # CMS: a c, c = 1/tanh(eps/4); HCMS: 2 a c, c = 1/tanh(eps/2)
            a = sketch.width / (sketch.width - 1)
            spread = a / math.tanh(EPS / 4) if sketch.name == "CMS" else 2 * a / math.tanh(EPS / 2)
        closed = spread**2 * hit * (1 - hit) / N
        assert np.allclose(variance, closed, rtol=0.03)
    interval = sketch.interval(reports, QUERIED, 0.95)
    assert np.array_equal(interval.estimate, estimate)


def test_cms_reports_match_their_closed_form():
    sketch = protocols.cms(2**64, EPS, hashes=8, width=64)
    item = np.uint64(2**63 + 11)
    reports = sketch.sample(np.full(N, item), rng_for(2026, "cms client"))
    assert chisquare(np.bincount(reports.hashes, minlength=8)).pvalue > 1e-4
    bits = reports.bits.unpack()
    own = sketch.cells(np.array([item]))[reports.hashes, 0]
    on_own = bits[np.arange(N), own]
    assert abs(on_own.mean() - sketch.keep) < 4.5 * math.sqrt(sketch.keep * (1 - sketch.keep) / N)
    others = (bits.sum() - on_own.sum()) / (N * 63)
    assert abs(others - (1 - sketch.keep)) < 4.5 * math.sqrt(sketch.keep * (1 - sketch.keep) / (N * 63))


def test_hcms_reports_match_their_closed_form():
    sketch = protocols.hcms(2**64, EPS, hashes=8, width=64)
    item = np.uint64(987_654_321_987)
    reports = sketch.sample(np.full(N, item), rng_for(2026, "hcms client"))
    assert chisquare(np.bincount(reports.hashes * 64 + reports.rows, minlength=8 * 64)).pvalue > 1e-4
    true = _hadamard_sign(reports.rows, sketch.cells(np.array([item]))[reports.hashes, 0])
    agree = np.count_nonzero(reports.signs == true)
    keep = 1 / (1 + math.exp(-EPS))
    assert chisquare([agree, N - agree], [N * keep, N * (1 - keep)]).pvalue > 1e-4


def test_flh_reports_match_their_closed_form():
    sketch = protocols.flh(2**64, EPS, hashes=16)
    item = np.uint64(3)
    reports = sketch.sample(np.full(N, item), rng_for(2026, "flh client"))
    assert chisquare(np.bincount(reports.seeds, minlength=16)).pvalue > 1e-4
    offset = (reports.values - sketch.cells(np.array([item]))[reports.seeds, 0]) % sketch.g  # 0: kept
    expected = np.full(sketch.g, (1 - sketch.keep) / (sketch.g - 1))
    expected[0] = sketch.keep
    assert chisquare(np.bincount(offset, minlength=sketch.g), N * expected).pvalue > 1e-4


@pytest.mark.parametrize("t", [1, 3])
def test_hm_reports_match_their_closed_form(t):
    sketch = protocols.hm(1000, EPS, t=t)
    assert sketch.order == 1024
    reports = sketch.sample(np.full(N, 777), rng_for(2026, "hm client", str(t)))
    assert reports.rows.max() < 1024 and chisquare(np.bincount(reports.rows.ravel().astype(np.int64))).pvalue > 1e-4
    flipped = (reports.signs != _hadamard_sign(reports.rows, np.uint64(777))).astype(np.int64)
    code = flipped @ (1 << np.arange(t))  # 0: the true signs kept
    keep = math.exp(EPS) / (math.exp(EPS) + 2**t - 1)
    expected = np.full(2**t, (1 - keep) / (2**t - 1))
    expected[0] = keep
    assert chisquare(np.bincount(code, minlength=2**t), N * expected).pvalue > 1e-4


def test_hm_default_t_is_pure_ldps_optimal_t():
    assert [protocols.hm(16, eps).t for eps in (0.5, 1.0, 2.0, 4.0)] == [
        math.ceil(math.log2(math.exp(eps) + 1)) for eps in (0.5, 1.0, 2.0, 4.0)]


@pytest.mark.parametrize(("name", "options"), SKETCHES[:4])
def test_audit_bounds_each_sketch_below_and_near_its_eps(name, options):
    sketch = protocols.by_name(name, 2**64, 1.0, **options)
    result = privest.audit(sketch, 1.0, rng_for(2026, "sketch audit", name), trials=200_000)
    assert 0.7 < result.bound <= 1.0, result


def test_a_sketch_that_leaks_is_caught_by_the_audit():
    sketch = protocols.cms(2**64, 1.0, hashes=8, width=64)
    leaky = protocols.cms(2**64, 3.0, hashes=8, width=64)
    result = privest.audit(sketch, 1.0, rng_for(2026, "sketch audit leak"), trials=100_000, client=leaky.sample)
    assert result.exceeds


def test_by_name_refuses_bad_sketch_parameters():
    with pytest.raises(ValueError, match="width must be a power of 2"):
        protocols.by_name("hcms", 2**40, 1.0, width=1000)
    with pytest.raises(ValueError, match="takes only hashes"):
        protocols.by_name("flh", 2**40, 1.0, width=8)
    with pytest.raises(ValueError, match="k must"):
        protocols.by_name("cms", 2**64 + 1, 1.0)
    with pytest.raises(ValueError, match=r"items must lie in 0\.\.99"):
        protocols.cms(100, 1.0).sample(np.array([100]), rng_for(2026, "x"))


@pytest.mark.parametrize("t", [1, 2, 3])
def test_hm_transform_equals_the_item_by_item_sums(t, monkeypatch):
    import privest.protocols.hadamard_mechanism as module

    m = protocols.hm(1000, EPS, t=t)
    reports = m.sample(rng_for(2026, "hm paths").integers(0, 1000, 5000), rng_for(2026, "hm paths", str(t)))
    queried = np.arange(0, 1000, 7, dtype=np.uint64)
    transformed = m._moments(reports, queried)
    monkeypatch.setattr(module, "FWHT_ORDER_MAX", 1)  # every order above it: item by item
    by_item = m._moments(reports, queried)
    assert np.allclose(transformed[0], by_item[0], rtol=0, atol=1e-9)
    assert np.allclose(transformed[1], by_item[1], rtol=1e-12)


def all_reports(sketch):
    """Every possible report of a small sketch (CMS: width 8), in its report type."""
    if sketch.name == "CMS":
        hashes, patterns = np.divmod(np.arange(sketch.hashes * 2**sketch.width), 2**sketch.width)
        bits = np.unpackbits(patterns.astype(np.uint8)[:, None], axis=1)
        return protocols.CmsReports(hashes, protocols.PackedBits(np.packbits(bits, axis=1), sketch.width))
    if sketch.name == "HCMS":
        keys = np.arange(sketch.hashes * sketch.width * 2)
        return protocols.HcmsReports(keys // (2 * sketch.width), keys // 2 % sketch.width,
                                     np.where(keys % 2 == 1, 1, -1).astype(np.int8))
    keys = np.arange(sketch.hashes * sketch.g)
    return protocols.HashReports((keys // sketch.g).astype(np.uint32), keys % sketch.g)


def report_probability(sketch, reports, cell: int) -> np.ndarray:
    """P(report | the item's hashes are ``cell`` under every hash function), from the clients' definitions."""
    if sketch.name == "CMS":
        bits = reports.bits.unpack()
        keep = np.where(np.arange(sketch.width) == cell, sketch.keep, 1 - sketch.keep)
        return np.prod(np.where(bits, keep, 1 - keep), axis=1) / sketch.hashes
    if sketch.name == "HCMS":
        keep = 1 / (1 + math.exp(-sketch.eps))
        agree = reports.signs * _hadamard_sign(reports.rows, np.full(len(reports), cell)) == 1
        return np.where(agree, keep, 1 - keep) / (sketch.hashes * sketch.width)
    return np.where(reports.values == cell, sketch.keep, (1 - sketch.keep) / (sketch.g - 1)) / sketch.hashes


@pytest.mark.parametrize(("name", "options"), [("cms", {"hashes": 3, "width": 8}), ("hcms", {"hashes": 3, "width": 8}),
                                               ("flh", {"hashes": 5})])
def test_candidate_group_is_the_exact_channel_with_a_uniform_other_cell(name, options):
    sketch = protocols.by_name(name, 2**64, EPS, **options)
    reports = all_reports(sketch)
    candidates = np.array([11, 2**63 + 1, 424242], dtype=np.uint64)
    likelihood, log_scale = sketch._candidate_likelihood(sketch._reports(reports), candidates)
    exact = likelihood * np.exp(log_scale)[:, None]
    cells = sketch.cells(candidates)
    hashes = reports.hashes if name != "flh" else reports.seeds.astype(np.int64)
    for d in range(candidates.size):  # each candidate: its own cell under each report's hash function
        own = cells[hashes, d]
        per_cell = np.stack([report_probability(sketch, reports, c) for c in range(cells.max() + 1)])
        assert np.allclose(exact[:, d], per_cell[own, np.arange(len(reports))], rtol=1e-12, atol=0)
    size = sketch.g if name == "flh" else sketch.width
    other = np.mean([report_probability(sketch, reports, c) for c in range(size)], axis=0)
    assert np.allclose(exact[:, -1], other, rtol=1e-12, atol=0)
    assert np.allclose(exact.sum(axis=0), 1.0, rtol=1e-12)  # every cell's reports: a distribution


@pytest.mark.parametrize(("name", "options"), SKETCHES[:4])
def test_candidate_mle_is_close_to_the_truth_and_nonnegative(name, options):
    sketch = protocols.by_name(name, 2**64, EPS, **options)
    reports = sketch.sample(users("mle" + name), rng_for(2026, "sketch mle", name))
    group = sketch.candidate_group(reports, QUERIED)
    result = privest.gibu([group])
    truth = np.append((QUERIED[:, None] == ITEMS[None, :]).astype(float) @ THETA, 0.0)
    assert result.theta.shape == (QUERIED.size + 1,) and np.all(result.theta >= 0)
    assert result.theta.sum() == pytest.approx(1.0)
    # the standard deviations of the unbiased estimate are below 0.006 here (test above): the MLE is within 4.5 of them
    assert np.abs(result.theta - truth).max() < 4.5 * np.sqrt(sketch.estimate_variance(reports, QUERIED)).max()
    assert np.array_equal(group.counts.sum(), len(reports))


def test_candidate_group_refuses_repeated_candidates():
    sketch = protocols.cms(100, 1.0, hashes=4, width=16)
    reports = sketch.sample(np.array([1, 2, 3]), rng_for(2026, "cand"))
    with pytest.raises(ValueError, match="candidates must be distinct"):
        sketch.candidate_group(reports, np.array([1, 1]))


@pytest.mark.parametrize("t", [1, 2, 3])
def test_hm_candidate_group_is_the_exact_channel_with_a_uniform_other_item(t):
    """HM's "other" cell: the mean of P(report | x) over the K columns, enumerated (K = 8: rows often dependent)."""
    sketch = protocols.hm(8, EPS, t=t)
    reports = sketch.sample(rng_for(2026, "hm cand items").integers(0, 8, 400), rng_for(2026, "hm cand", str(t)))
    candidates = np.array([1, 5], dtype=np.uint64)
    likelihood, log_scale = sketch._candidate_likelihood(sketch._reports(reports), candidates)
    exact = likelihood * np.exp(log_scale)[:, None]
    keep = math.exp(EPS) / (math.exp(EPS) + 2**t - 1)

    def probability(x):
        own = np.all(_hadamard_sign(reports.rows, np.uint64(x)) == reports.signs, axis=1)
        return np.where(own, keep, (1 - keep) / (2**t - 1)) / 8**t

    for d, x in enumerate(candidates):
        assert np.allclose(exact[:, d], probability(x), rtol=1e-12, atol=0)
    assert np.allclose(exact[:, -1], np.mean([probability(x) for x in range(8)], axis=0), rtol=1e-12, atol=0)
