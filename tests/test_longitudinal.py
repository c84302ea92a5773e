"""The longitudinal protocols (privest/protocols/longitudinal.py): the two steps' parameters against their defining
equations and closed forms, one round's reports against the exact one-round likelihood, the unbiased estimator and
GIBU on them, the audits of one report (eps1) and of the memo (eps), and every refusal naming its argument."""

import itertools
import math

import numpy as np
import pytest

import privest
from privest import protocols
from privest.protocols import longitudinal as lt

KINDS = {"l_grr": "rr", "l_sue": "sue", "l_oue": "oue", "l_osue": "osue", "l_soue": "soue", "l_blh": "rr",
         "l_olh": "rr"}
CALIBRATED = ("l_grr", "l_blh", "l_olh", "l_adp")


def _rng(*labels: object) -> np.random.Generator:
    return privest.rng_for(2026, "test_longitudinal", *labels)


def one_report_level(p1: float, q1: float, p2: float, q2: float, kind: str, size: int) -> float:
    """The largest likelihood ratio of one report between two secrets, from the chain's defining probabilities:
    k-RR over size values, P(y = x) / P(y = v) with the memo summed out; unary, the two bits' ratio."""
    if kind == "rr":
        P = p1 * p2 + (1 - p1) * q2  # the memo is x (p1), or another value (1 - p1) moved to x (q2)
        Q = q1 * p2 + (1 - q1) * q2
        assert P + (size - 1) * Q == pytest.approx(1, abs=1e-12)  # a distribution over the size values
        return math.log(P / Q)
    P, Q = p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2
    return math.log(P * (1 - Q) / (Q * (1 - P)))


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("eps, share", [(0.5, 0.5), (2.0, 0.5), (5.0, 0.5), (1.0, 0.2), (3.0, 0.8)])
def test_one_exact_report_is_eps1_ldp_and_the_memo_eps_ldp(name, eps, share):
    # eps1 = share eps; L-OUE and L-SOUE reach at most ln(p1 (2 - q1) / (q1 (2 - p1))) (their step has p2 = 1/2)
    eps1 = share * eps
    try:
        m = protocols.by_name(name, 10, eps, eps1=eps1)
    except ValueError as error:
        assert KINDS[name] in ("oue", "soue") and "eps1 must be below" in str(error)
        p1, q1 = (0.5, 1 / (math.exp(eps) + 1)) if KINDS[name] == "oue" else (
            1 / (1 + math.exp(-eps / 2)), 1 / (math.exp(eps / 2) + 1))
        assert eps1 >= math.log(p1 * (2 - q1) / (q1 * (2 - p1)))
        return
    size = getattr(m, "g", 10)
    p1, q1, p2, q2 = m.p1, m.q1, m.p2, m.q2
    assert one_report_level(p1, q1, p2, q2, KINDS[name], size) == pytest.approx(eps1, rel=1e-12)
    assert m.eps1_actual == pytest.approx(eps1, rel=1e-12)
    memo = math.log(p1 / q1) if KINDS[name] == "rr" else math.log(p1 * (1 - q1) / (q1 * (1 - p1)))
    assert memo == pytest.approx(eps, rel=1e-12)
    assert m._gap == pytest.approx(m.p_star - m.q_star if KINDS[name] != "rr" or name == "l_grr"
                                   else m.p_star - 1 / m.g, rel=1e-9)


def test_the_shapes_of_the_unary_steps_and_l_osue_is_oue_at_eps1():
    for name, symmetric_first, symmetric_second in [("l_sue", True, True), ("l_oue", False, False),
                                                    ("l_osue", False, True), ("l_soue", True, False)]:
        m = protocols.by_name(name, 6, 2.0, eps1=0.8)
        assert (m.p1 + m.q1 == pytest.approx(1)) == symmetric_first and (m.p1 == 0.5) != symmetric_first
        assert (m.p2 + m.q2 == pytest.approx(1)) == symmetric_second and (m.p2 == 0.5) != symmetric_second
    osue, oue = protocols.l_osue(6, 2.0, 0.8), protocols.oue(6, 0.8)
    assert osue.one == pytest.approx(oue.one, abs=1e-15) and osue.flip == pytest.approx(oue.flip, rel=1e-14)


@pytest.mark.parametrize("k", [2, 3, 10, 74])
def test_the_peer_calibration_of_k_rr_is_eps1_only_for_two_values(k):
    # multi-freq-ldpy's p2 solves the two-value equation (p1 p2 + q1 q2) / (p1 q2 + q1 p2) = e^eps1
    exact, peer = protocols.l_grr(k, 1.0, 0.5), protocols.l_grr(k, 1.0, 0.5, calibration="peer")
    p1, q1, p2, q2 = peer.p1, peer.q1, peer.p2, peer.q2
    assert (p1 * p2 + q1 * q2) / (p1 * q2 + q1 * p2) == pytest.approx(math.exp(0.5), rel=1e-12)
    assert exact.eps1_actual == pytest.approx(0.5, rel=1e-12)
    if k == 2:
        assert peer.eps1_actual == pytest.approx(0.5, rel=1e-12)
    else:  # safe but loose: 0.245 at k = 10, 0.049 at k = 74 (the design note's numbers)
        assert peer.eps1_actual < 0.5
    expected = {10: 0.2448, 74: 0.0485}.get(k)
    if expected:
        assert peer.eps1_actual == pytest.approx(expected, abs=1e-4)


def test_lolohas_g_is_multi_freq_ldpys_and_l_adp_picks_the_lower_variance():
    # g at alpha = 1/2, eps = 0.5 .. 5 (the design note's values, from multi-freq-ldpy's expression)
    assert [lt.loloha_g(eps, eps / 2) for eps in np.arange(0.5, 5.1, 0.5)] == [2, 2, 2, 3, 3, 4, 5, 7, 9, 11]
    assert protocols.l_olh(74, 5.0).g == 11 and protocols.l_blh(74, 5.0).g == 2
    for k, eps in itertools.product([2, 5, 10, 40, 200], [0.5, 1.0, 2.0, 4.0]):
        chosen = protocols.l_adp(k, eps)
        grr, osue = protocols.l_grr(k, eps), protocols.l_osue(k, eps)
        variances = [m.q_star * (1 - m.q_star) / m._gap**2 for m in (grr, osue)]
        assert chosen == (grr if variances[0] <= variances[1] else osue)
    assert {protocols.l_adp(k, 1.0).name for k in (2, 200)} == {"L-GRR", "L-OSUE"}


def every_report(m: protocols.Protocol) -> object:
    """Every possible report of a tiny protocol (k-RR values, all bit vectors, every (seed, value) of 3 hashes)."""
    if isinstance(m, lt.LGRR):
        return np.arange(m.k)
    if isinstance(m, lt._LongitudinalHashing):
        seeds, values = np.meshgrid(np.arange(3, dtype=np.uint32), np.arange(m.g))
        return protocols.HashReports(seeds.ravel(), values.ravel().astype(np.int64))
    return np.array(list(itertools.product((0, 1), repeat=m.k)), dtype=bool)


@pytest.mark.parametrize("name", list(KINDS))
def test_one_round_reports_follow_the_exact_likelihood(name):
    # the likelihood's columns sum to 1 over every report; 2 * 10^5 rounds of each secret drawn through the two
    # steps give each report's frequency within 5 standard errors of its likelihood (the chain summed out)
    options = {"hashes": 3} if name in ("l_blh", "l_olh") else {}
    m = protocols.by_name(name, 4, 3.0, eps1=1.2, **options)
    reports = every_report(m)
    L = m.likelihood(reports)
    np.testing.assert_allclose(L.sum(axis=0), 1.0, atol=1e-12)
    n = 200_000
    for x in range(m.k):
        drawn = m.sample(np.full(n, x), _rng("likelihood", name, x))
        unique, counts = m.distinct(drawn)
        index = {key: i for i, key in enumerate(map(_key, _rows(reports)))}
        frequency = np.zeros(len(index))
        for report, count in zip(_rows(unique), counts, strict=True):
            frequency[index[_key(report)]] = count / n
        z = (frequency - L[:, x]) / np.sqrt(L[:, x] * (1 - L[:, x]) / n)
        assert np.abs(z).max() < 5, (name, x, np.abs(z).max())


def _rows(reports: object) -> list:
    if isinstance(reports, protocols.HashReports):
        return list(zip(reports.seeds.tolist(), reports.values.tolist(), strict=True))
    return list(np.asarray(reports))


def _key(row: object) -> object:
    return tuple(np.asarray(row).astype(int).tolist()) if np.ndim(row) else int(row)


@pytest.mark.parametrize("name", [*KINDS, "l_adp"])
def test_the_estimate_is_unbiased_and_gibu_is_the_mle_of_one_round(name):
    k, n = 12, 100_000
    theta = np.array([0.3, 0.2, 0.12, 0.1, 0.08, 0.06, 0.05, 0.04, 0.02, 0.015, 0.01, 0.005])
    m = protocols.by_name(name, k, 2.0)
    estimates = []
    for seed in range(8):
        rng = _rng("unbiased", name, seed)
        estimates.append(m.estimate(m.sample(rng.choice(k, n, p=theta), rng)))
    standard_error = np.sqrt(m.variance(theta, n) / len(estimates))
    assert np.abs((np.mean(estimates, axis=0) - theta) / standard_error).max() < 5
    rng = _rng("gibu", name)
    reports = m.sample(rng.choice(k, n, p=theta), rng)
    result = privest.gibu([(m, reports)], delta=1e-12)
    projected = np.maximum(m.estimate(reports, post="projection"), 1e-12)  # full support, for a finite L
    group = [m.group(reports)]
    log_likelihood = privest.estimators.log_likelihood
    assert log_likelihood(result.theta, group) >= log_likelihood(projected / projected.sum(), group)
    assert np.abs(result.theta - theta).max() < 0.05 and result.gap < 1e-12


@pytest.mark.parametrize("name", list(KINDS))
def test_the_audit_of_one_report_reaches_eps1_and_of_the_memo_eps(name):
    # one report: the default event "x1 in the report's set, x2 not" has ratio e^eps1 (e^eps1_actual under the
    # peer's calibration); the memo alone (client=sample_memo): e^eps. Neither bound may exceed its level.
    options = {"calibration": "peer"} if name in CALIBRATED else {}
    m = protocols.by_name(name, 4, 2.0, eps1=1.0, **options)
    one = privest.audit(m, m.eps1_actual, _rng("audit", name), trials=100_000)
    assert not one.exceeds and one.bound > 0.8 * m.eps1_actual
    memo = privest.audit(m, m.eps, _rng("audit memo", name), trials=100_000, client=m.sample_memo)
    assert not memo.exceeds and memo.bound > max(m.eps1_actual, 0.8 * m.eps)
    leaky = privest.audit(m, m.eps1_actual, _rng("audit leak", name), trials=100_000, client=m.sample_memo)
    assert leaky.exceeds  # the memo sent as the report: more than one report's level, caught


def test_reports_are_reproducible_and_packed_bits_are_the_same_draws():
    secrets = np.arange(40) % 8
    for name in KINDS:
        m = protocols.by_name(name, 8, 1.5)
        first, again = m.sample(secrets, _rng("repeat", name)), m.sample(secrets, _rng("repeat", name))
        assert np.array_equal(m.support(first), m.support(again))
        if isinstance(m, lt._LongitudinalUnary):
            packed = m.sample(secrets, _rng("repeat", name), packed=True)
            assert np.array_equal(packed.unpack(), first)


def test_every_bad_argument_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"eps1 must be below eps = 1\.0"):
        protocols.l_grr(5, 1.0, 1.0)
    with pytest.raises(ValueError, match="eps1 must be a number in"):
        protocols.l_sue(5, 1.0, -0.5)
    with pytest.raises(TypeError, match="eps1"):
        protocols.l_oue(5, 1.0, "half")
    with pytest.raises(ValueError, match="eps1 must be below"):
        protocols.l_oue(5, 1.0, 0.95)  # above ln((2 e + 1) / 3) = 0.79
    with pytest.raises(ValueError, match="calibration must be one of"):
        protocols.l_grr(5, 1.0, calibration="tight")
    with pytest.raises(ValueError, match="k must be"):
        protocols.l_olh(1, 1.0)
    with pytest.raises(ValueError, match="eps must be a number in"):
        protocols.l_olh(5, 30.0)
    with pytest.raises(ValueError, match="protocol 'l_sue' takes only eps1, got"):
        protocols.by_name("l_sue", 5, 1.0, calibration="peer")
    with pytest.raises(ValueError, match=r"L-GRR: reports must lie in 0\.\.4"):
        protocols.l_grr(5, 1.0).estimate(np.array([5]))
    for name in protocols.LONGITUDINAL_NAMES:
        if name != "dbitflip":  # no eps1: one memoised report
            assert protocols.by_name(name.upper(), 5, 1.0).eps1 == 0.5


@pytest.mark.parametrize("name", ["l_grr", "l_osue", "l_olh"])
def test_rounds_keep_each_users_memo_so_two_reports_share_it(name):
    # 10^5 users all holding secret 0 report twice through Rounds: the pair of one user's reports follows the
    # chain with one memo, sum_M C1(M | 0) C2(r1 | M) C2(r2 | M) (within 5 standard errors), which is far (power
    # checked) from the pair of two independent rounds (a new memo each time, as multi-freq-ldpy's clients draw)
    m = protocols.by_name(name, 3, 3.0, eps1=1.0)
    n = 100_000
    rng = _rng("rounds", name)
    rounds = protocols.Rounds(m, n, rng)
    first, second = rounds.report(np.zeros(n, dtype=np.int64), rng), rounds.report(np.zeros(n, dtype=np.int64), rng)
    assert rounds.memos == n
    if name == "l_grr":  # the (r1, r2) table over 3 x 3 values
        hit = [first == 0, second == 0]
        step = np.array([[m.p2 if r == M else m.q2 for r in range(3)] for M in range(3)])  # C2(r | M)
        memo = np.array([m.p1, m.q1, m.q1])  # C1(M | 0)
        shared = np.einsum("m,mr,ms->rs", memo, step, step)
        counts = np.histogram2d(first, second, bins=[np.arange(4) - 0.5] * 2)[0]
    else:  # does the report's set hold 0, in round 1 and in round 2
        if name == "l_olh":
            assert np.array_equal(first.seeds, second.seeds)  # each user's seed drawn once
            hit = [m.membership(r)[:, 0] for r in (first, second)]
            p_hold = [m.p2, m.q2]  # P(memo's set holds 0 | memo holds the hashed 0 or not)
            memo_hold = m.p1
        else:
            hit = [first[:, 0], second[:, 0]]
            p_hold, memo_hold = [m.p2, m.q2], m.p1
        both = memo_hold * p_hold[0] ** 2 + (1 - memo_hold) * p_hold[1] ** 2
        one = memo_hold * p_hold[0] + (1 - memo_hold) * p_hold[1]
        shared = np.array([[both, one - both], [one - both, 1 - 2 * one + both]])
        counts = np.histogram2d(~hit[0], ~hit[1], bins=[[-0.5, 0.5, 1.5]] * 2)[0]
    independent = np.outer(shared.sum(axis=1), shared.sum(axis=0))
    z = (counts / n - shared) / np.sqrt(shared * (1 - shared) / n)
    assert np.abs(z).max() < 5
    assert np.abs((independent - shared) / np.sqrt(shared * (1 - shared) / n)).max() > 10  # the test can tell


def test_rounds_draw_a_memo_per_new_value_and_reuse_it_when_a_value_comes_back():
    m = protocols.l_sue(5, 2.0)
    rng = _rng("rounds values")
    rounds = protocols.Rounds(m, 4, rng)
    rounds.report(np.array([0, 1, 2, 3]), rng)
    rounds.report(np.array([0, 1, 2, 4]), rng)  # user 3 moves to 4: a new memo
    assert rounds.memos == 5
    keys_before = rounds._keys.copy()
    memos_before = rounds._memos.copy()
    packed = rounds.report(np.array([0, 1, 2, 3]), rng, packed=True)  # back to 3: its memo, none new
    assert rounds.memos == 5 and np.array_equal(rounds._keys, keys_before)
    assert np.array_equal(rounds._memos, memos_before) and packed.bits.shape == (4, 1)
    with pytest.raises(ValueError, match="secrets must hold one value per user, shape \\(4,\\)"):
        rounds.report(np.array([0, 1, 2]), rng)
    with pytest.raises(TypeError, match="protocol must be a longitudinal protocol"):
        protocols.Rounds(protocols.grr(5, 1.0), 4, rng)
    replays = []
    for _ in range(2):  # the same generator, the same rounds: every report the same
        rng = _rng("rounds replay")
        rounds = protocols.Rounds(protocols.l_olh(50, 3.0), 300, rng)
        replays.append([rounds.report(np.arange(300) % (50 - t), rng) for t in range(3)])
    for a, b in zip(*replays, strict=True):
        assert np.array_equal(a.seeds, b.seeds) and np.array_equal(a.values, b.values)


def test_an_estimator_given_a_longitudinal_name_or_factory_names_the_constructor_that_exists():
    for name in protocols.LONGITUDINAL_NAMES:
        for given in (name, getattr(protocols, name)):
            with pytest.raises((TypeError, ValueError), match=rf"ibu\(privest\.protocols\.{name}\(k, eps\), reports\)"):
                privest.ibu(given, np.ones(3))
        assert callable(getattr(protocols, name))


@pytest.mark.parametrize("b, d", [(6, 6), (6, 3), (6, 1), (5, 2)])
def test_dbitflip_reports_follow_its_likelihood_and_it_is_estimated_without_bias(b, d):
    m = protocols.dbitflip(12, 2.0, b, d)
    # the likelihood of every possible report sums to 1 for each bucket (b = 5: buckets of 2.4 values)
    every = []
    for drawn in itertools.combinations(range(b), d):
        for bits in itertools.product((0, 1), repeat=d):
            report = np.full(b, -1, dtype=np.int8)
            report[list(drawn)] = bits
            every.append(report)
    np.testing.assert_allclose(m.likelihood(np.array(every)).sum(axis=0), 1.0, atol=1e-12)
    # each bucket drawn with probability d / b, its bit 1 with p for the user's bucket, 1 - p for another
    n = 200_000
    reports = m.sample(np.full(n, 7), _rng("bitflip", b, d))
    held = m.bucket_of(np.array([7]))[0]
    drawn = (reports >= 0).mean(axis=0)
    assert np.abs((drawn - d / b) / np.sqrt(d / b * (1 - d / b) / n + 1e-300)).max() < 5
    ones = (reports == 1).sum(axis=0) / (reports >= 0).sum(axis=0)
    expected = np.where(np.arange(b) == held, m.p, 1 - m.p)
    assert np.abs((ones - expected) / np.sqrt(expected * (1 - expected) / (n * d / b))).max() < 5
    # unbiased over 6 runs (the variance formula for users drawn i.i.d.), and GIBU close
    theta = np.linspace(1, 3, 12) / np.linspace(1, 3, 12).sum()
    truth = np.bincount(m.bucket_of(np.arange(12)), weights=theta, minlength=b)
    runs = [m.estimate(m.sample(_rng("bitflip runs", b, d, r).choice(12, 50_000, p=theta), _rng("bf", b, d, r)))
            for r in range(6)]
    error = np.sqrt((b / d * (math.exp(1) / (math.exp(1) - 1) ** 2 + truth) - truth**2) / 50_000 / 6)
    assert np.abs((np.mean(runs, axis=0) - truth) / error).max() < 5
    rng = _rng("bitflip gibu", b, d)
    reports = m.sample(rng.choice(12, 50_000, p=theta), rng)
    assert np.abs(privest.gibu([(m, reports)]).theta - truth).max() < 0.03


def test_dbitflips_bucket_map_is_the_peers_float_expression_and_bad_reports_are_refused():
    m = protocols.dbitflip(18, 1.0, 14)
    assert m.bucket_of(np.arange(18)).tolist() == [int(x / (18 / 14)) for x in range(18)]
    assert [int(x / (18 / 14)) for x in range(18)] != [x * 14 // 18 for x in range(18)]  # the case it differs
    with pytest.raises(ValueError, match="bits must be"):
        protocols.dbitflip(10, 1.0, 4, 5)
    with pytest.raises(ValueError, match="buckets must be"):
        protocols.dbitflip(10, 1.0, 11)
    with pytest.raises(ValueError, match=r"reports must be \(n, 4\) with 2 entries 0 or 1 a row"):
        protocols.dbitflip(10, 1.0, 4, 2).estimate(np.array([[0, 1, 1, -1]]))


def brute_force_log_likelihood(m, rounds, theta) -> float:
    """sum over users of log sum_x theta_x P(y_1..y_R | x), the memo summed out by enumerating every memo: a value
    of the memo's alphabet (k-RR, local hashing) or every 0/1 vector of k bits (unary)."""
    p1, q1, p2, q2 = m._chain
    n, k = m.count(rounds[0]), m.k
    member = [m.membership(reports) for reports in rounds]  # (n, k) each: the reports holding x
    if KINDS[m.name.lower().replace("-", "_")] != "rr":
        per_x = np.zeros((n, k))
        for memo in itertools.product([0, 1], repeat=k):
            b = np.array(memo, dtype=bool)
            for x in range(k):
                prior = np.prod(np.where(np.arange(k) == x, np.where(b, p1, 1 - p1), np.where(b, q1, 1 - q1)))
                given = np.prod([np.where(b, np.where(y, p2, 1 - p2), np.where(y, q2, 1 - q2)).prod(axis=1)
                                 for y in member], axis=0)
                per_x[:, x] += prior * given
        return float(np.log(per_x @ theta).sum())
    size = m._memo_size
    hashed = isinstance(rounds[0], protocols.HashReports)
    values = [reports.values if hashed else reports for reports in rounds]
    per_x = np.zeros((n, k))
    for x in range(k):
        v = m._memo_values(np.full(n, x), rounds[0].seeds) if hashed else np.full(n, x)
        for b in range(size):
            prior = np.where(v == b, p1, q1)
            per_x[:, x] += prior * np.prod([np.where(y == b, p2, q2) for y in values], axis=0)
    return float(np.log(per_x @ theta).sum())


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize("R", [1, 3])
def test_the_joint_group_of_rounds_is_the_exact_likelihood_with_the_memo_summed_out(name, R):
    # The group's log-likelihood of any theta (its columns' counts and scales included) equals the sum over users of
    # the likelihood computed by enumerating every memo, on users whose value never changed (Rounds keeps the memo).
    m = protocols.by_name(name, 3, 2.0, **({"hashes": 8} if name in ("l_blh", "l_olh") else {}))
    rng = _rng("joint", name, R)
    secrets = rng.choice(3, 400, p=[0.6, 0.3, 0.1])
    rounds = protocols.Rounds(m, 400, rng)
    reports = [rounds.report(secrets, rng) for _ in range(R)]
    group = protocols.joint_group(m, reports)
    assert group.n == 400 and group.G.shape[1] < 400  # users of the same counts share a column
    for theta in (np.array([0.2, 0.5, 0.3]), np.array([0.9, 0.05, 0.05])):
        ours = float(group.counts @ (np.log(theta @ group.G) + group.log_scale))
        assert ours == pytest.approx(brute_force_log_likelihood(m, reports, theta), rel=1e-12, abs=1e-9)
    if R == 1:  # one round: the protocol's own one-round likelihood (local hashing's counts the seed's draw too)
        single = m.likelihood(reports[0])
        a, b = np.array([0.2, 0.5, 0.3]), np.array([0.9, 0.05, 0.05])
        ours = float(group.counts @ (np.log(a @ group.G) - np.log(b @ group.G)))
        assert ours == pytest.approx(float(np.log(single @ a).sum() - np.log(single @ b).sum()), rel=1e-10)


def test_the_joint_mle_of_many_rounds_beats_one_rounds_and_bad_rounds_are_refused():
    # Ten rounds of one unchanged value per user: the joint MLE's error is well below one round's (the reports add
    # the instantaneous step's information up to the memo's), over 10 seeds; independent-round likelihoods are not
    # used. Then what the function refuses, named.
    m = protocols.l_osue(8, 2.0)
    truth = np.array([0.3, 0.2, 0.15, 0.1, 0.1, 0.05, 0.05, 0.05])
    single, joint = [], []
    for seed in range(10):
        rng = _rng("joint mle", seed)
        secrets = rng.choice(8, 5000, p=truth)
        rounds = protocols.Rounds(m, 5000, rng)
        reports = [rounds.report(secrets, rng) for _ in range(10)]
        single.append(np.abs(privest.gibu([m.group(reports[0])]).theta - truth).sum())
        joint.append(np.abs(privest.gibu([protocols.joint_group(m, reports)]).theta - truth).sum())
    assert np.mean(joint) < 0.75 * np.mean(single), (np.mean(joint), np.mean(single))
    rng = _rng("joint bad")
    with pytest.raises(TypeError, match="protocol"):
        protocols.joint_group(protocols.oue(8, 1.0), reports)
    with pytest.raises(ValueError, match="rounds"):
        protocols.joint_group(m, [])
    with pytest.raises(ValueError, match=r"rounds\[1\] holds 10 reports"):
        protocols.joint_group(m, [reports[0], reports[1][:10]])
    olh = protocols.l_olh(8, 2.0, hashes=16)
    first, second = olh.sample(secrets, rng), olh.sample(secrets, rng)  # new seeds each call: not one user's rounds
    with pytest.raises(ValueError, match=r"rounds\[1\]: the users' seeds differ"):
        protocols.joint_group(olh, [first, second])
