"""A wrong call names the right one (issue 48, item 4; privest.estimators._calls): each common wrong call of a top-level
estimator raises one line naming the call that takes what was given, and the right calls still run."""

import numpy as np
import pytest

import privest

K, EPS = 5, 1.0
OUE = privest.oue(K, EPS)
GRR = privest.grr(K, EPS)
A = privest.krr(K, EPS)
SECRETS = np.repeat(np.arange(K), 40)
REPORTS = OUE.sample(SECRETS, privest.rng_for(2026, "calls", "oue"))
PACKED = OUE.sample(SECRETS, privest.rng_for(2026, "calls", "oue"), packed=True)
GRR_REPORTS = GRR.sample(SECRETS, privest.rng_for(2026, "calls", "grr"))
COUNTS = privest.sample_counts(A, np.full(K, 40), privest.rng_for(2026, "calls", "krr"))
RNG = privest.rng_for(2026, "calls", "bootstrap")

WRONG = {
    # what a newcomer writes: (the call, the error, the line it must say)
    "ibu of a protocol's name": (lambda: privest.ibu("oue", REPORTS), TypeError,
                                 r"^ibu: A is 'oue', a protocol's name: pass the protocol itself, "
                                 r"ibu\(privest\.oue\(k, eps\), reports\)$"),
    "ibu of a mechanism's name": (lambda: privest.ibu("KRR", COUNTS), TypeError,
                                  r"^ibu: A is 'KRR', a mechanism's name: pass its matrix, "
                                  r"ibu\(privest\.krr\(k, eps\), counts\)$"),
    "ibu of a protocol's constructor": (lambda: privest.ibu(privest.oue, REPORTS), TypeError,
                                        r"^ibu: A is the function privest\.oue, not what it builds: call it, "
                                        r"ibu\(privest\.oue\(k, eps\), reports\)$"),
    "ibu of a mechanism's constructor": (lambda: privest.ibu(privest.geometric, COUNTS), TypeError,
                                         r"ibu: A is the function privest\.geometric, .* "
                                         r"ibu\(privest\.geometric\(k, eps\), counts\)$"),
    "ibu of reports alone": (lambda: privest.ibu(REPORTS), ValueError,
                             r"q .* is required with a matrix A: ibu\(A, counts\); a protocol's reports go with the "
                             r"protocol, ibu\(protocol, reports\)$"),
    "ibu of packed reports alone": (lambda: privest.ibu(PACKED), TypeError,
                                    r"^ibu: A is a protocol's reports \(PackedBits\) without the protocol: "
                                    r"ibu\(protocol, reports\)$"),
    "ibu of a protocol alone": (lambda: privest.ibu(OUE), TypeError,
                                r"^ibu: q, the protocol's reports, is required: ibu\(protocol, reports\)$"),
    "ibu of reports then protocol": (lambda: privest.ibu(REPORTS, OUE), TypeError,
                                     r"^ibu: q is the protocol OUE\(k=5, eps=1\.0\): the protocol comes first, "
                                     r"ibu\(protocol, reports\)$"),
    "ibu of counts then matrix": (lambda: privest.ibu(COUNTS, A), TypeError,
                                  r"^ibu: A is 1-D and q 2-D: the matrix comes first, ibu\(A, counts\)$"),
    "ibu of one pair": (lambda: privest.ibu((OUE, REPORTS)), TypeError,
                        r"^ibu: A is a \(mechanism, reports\) pair: ibu\(mechanism, reports\), or "
                        r"privest\.gibu\(\[pair\]\)$"),
    "ibu of a list of pairs": (lambda: privest.ibu([(OUE, REPORTS), (A, COUNTS)]), TypeError,
                               r"^ibu: A is a list of groups or pairs: that is privest\.gibu\(groups\)"),
    "gibu of a protocol and its reports": (lambda: privest.gibu(OUE, REPORTS), TypeError,
                                           r"^gibu: groups is the protocol OUE\(k=5, eps=1\.0\): gibu takes a list of "
                                           r"\(protocol, reports\) pairs, gibu\(\[\(protocol, reports\)\]\)$"),
    "gibu of one pair": (lambda: privest.gibu((OUE, REPORTS)), TypeError,
                         r"^gibu: groups is one \(mechanism, reports\) pair: gibu takes a list of them, "
                         r"gibu\(\[\(mechanism, reports\)\]\)$"),
    "gibu of a matrix and its counts": (lambda: privest.gibu(A, COUNTS), TypeError,
                                        r"^gibu: groups is an array, not a list of pairs: gibu\(\[\(A, counts\)\]\)"),
    "gibu of one group": (lambda: privest.gibu(OUE.group(REPORTS)), TypeError,
                          r"^gibu: groups is one BitGroup: gibu takes a list, gibu\(\[group\]\)$"),
    "gibu of a protocol's name": (lambda: privest.gibu("olh"), TypeError,
                                  r"^gibu: groups is 'olh', not a list of pairs: "
                                  r"gibu\(\[\(privest\.olh\(k, eps\), reports\)\]\)$"),
    "gibu of a list of reports": (lambda: privest.gibu([(OUE, REPORTS), GRR_REPORTS]), TypeError,
                                  r"^gibu: groups\[1\] is an array \(ndarray\) without its mechanism: pass "
                                  r"\(protocol, reports\) or \(matrix, counts\) pairs"),
    "gibu of a protocol without reports": (lambda: privest.gibu([OUE, REPORTS]), TypeError,
                                           r"^gibu: groups\[0\] is the protocol OUE\(k=5, eps=1\.0\) without its "
                                           r"reports: pass \(protocol, reports\) pairs"),
    "gibu of a pair the wrong way round": (lambda: privest.gibu([(REPORTS, OUE)]), TypeError,
                                           r"^gibu: groups\[0\] is \(reports, protocol\): the protocol comes first, "
                                           r"\(protocol, reports\)$"),
    "gibu of a name in a pair": (lambda: privest.gibu([("grr", GRR_REPORTS)]), TypeError,
                                 r"^gibu: groups\[0\]\[0\] is 'grr', a protocol's name: pass the protocol itself, "
                                 r"\(privest\.grr\(k, eps\), reports\)$"),
    "gibu of a constructor in a pair": (lambda: privest.gibu([(privest.grr, GRR_REPORTS)]), TypeError,
                                        r"^gibu: groups\[0\]\[0\] is the function privest\.grr, not what it builds: "
                                        r"call it, \(privest\.grr\(k, eps\), reports\)$"),
    "bootstrap of a protocol and its reports": (lambda: privest.bootstrap(OUE, REPORTS), TypeError,
                                                r"^bootstrap: groups is the protocol .*: bootstrap takes a list of "
                                                r"\(protocol, reports\) pairs, bootstrap\(\[\(protocol, reports\)\], "
                                                r"rng\)$"),
    "squarem of one pair": (lambda: privest.estimators.squarem((A, COUNTS)), TypeError,
                            r"^squarem: groups is one \(mechanism, reports\) pair: .* squarem\(\[\(mechanism, "),
    "log_likelihood of a protocol": (lambda: privest.estimators.log_likelihood(np.full(K, 1 / K), OUE), TypeError,
                                     r"^log_likelihood: groups is the protocol .* "
                                     r"log_likelihood\(theta, \[\(protocol, reports\)\]\)$"),
    "inv of a protocol": (lambda: privest.inv(OUE, REPORTS), TypeError,
                          r"^inv: A is the protocol OUE\(k=5, eps=1\.0\), not a matrix: "
                          r"protocol\.estimate\(reports, post=\.\.\.\)"),
    "inv of a protocol's name": (lambda: privest.inv("sue", REPORTS), TypeError,
                                 r"^inv: A is 'sue', a protocol's name, not a matrix: build the protocol, "
                                 r"privest\.sue\(k, eps\), then protocol\.estimate\(reports"),
    "inv of a mechanism's name": (lambda: privest.inv("krr", COUNTS), TypeError,
                                  r"^inv: A is 'krr', a mechanism's name: pass its matrix, "
                                  r"inv\(privest\.krr\(k, eps\), counts\)$"),
    "inv of a constructor": (lambda: privest.inv(privest.krr, COUNTS), TypeError,
                             r"^inv: A is the function privest\.krr, not what it builds: call it, "
                             r"inv\(privest\.krr\(k, eps\), counts\)$"),
    "inv of a group": (lambda: privest.inv(privest.matrix_group(A, COUNTS), COUNTS), TypeError,
                       r"^inv: A is a Group, not a matrix: its estimate is privest\.ibu\(group\)$"),
    "inv_variance of a protocol": (lambda: privest.inv_variance(OUE, REPORTS), TypeError,
                                   r"^inv_variance: A is the protocol .*: protocol\.estimate_variance\(reports\)$"),
    "inv_interval of a protocol": (lambda: privest.inv_interval(OUE, REPORTS), TypeError,
                                   r"^inv_interval: A is the protocol .*: protocol\.interval\(reports, level\)$"),
    "inv_runs of a protocol": (lambda: privest.inv_runs(OUE, [REPORTS]), TypeError,
                               r"^inv_runs: A is the protocol .*: \[protocol\.estimate\(r\) for r in runs\]$"),
    "ibu_runs of a protocol": (lambda: privest.ibu_runs(OUE, [REPORTS]), TypeError,
                               r"^ibu_runs: A is the protocol .*: \[privest\.ibu\(protocol, r\) for r in runs\]$"),
    "inv_m of protocols": (lambda: privest.inv_m([A, OUE], [COUNTS, REPORTS]), TypeError,
                           r"^inv_m: mechanisms\[1\] is the protocol .*: privest\.gibu\(\[\(protocol, reports\), "),
    "ibu_m of protocols": (lambda: privest.ibu_m([OUE], [REPORTS]), TypeError,
                           r"^ibu_m: mechanisms\[0\] is the protocol .*: privest\.gibu\(\[\(protocol, reports\), "),
    "krr_mle of a protocol": (lambda: privest.krr_mle(GRR, GRR_REPORTS), TypeError,
                              r"^krr_mle: counts is the protocol GRR\(k=5, eps=1\.0\), not counts: "
                              r"privest\.krr_mle\(np\.bincount\(reports, minlength=k\), eps\) for GRR"),
    "rap of a protocol": (lambda: privest.rap(OUE, REPORTS), TypeError,
                          r"^rap: bits is the protocol .*, not bits: protocol\.estimate\(reports\) or "
                          r"privest\.ibu\(protocol, reports\)"),
}


@pytest.mark.parametrize("case", list(WRONG))
def test_a_wrong_call_names_the_right_one_in_one_line(case):
    call, error, line = WRONG[case]
    with pytest.raises(error, match=line) as raised:
        call()
    assert "\n" not in str(raised.value)


def test_the_calls_each_message_names_are_right():
    """The calls the messages suggest run, and give what the wrongly called function would mean."""
    theta = privest.ibu(OUE, REPORTS).theta
    assert np.array_equal(privest.gibu([(OUE, REPORTS)]).theta, theta)
    np.testing.assert_allclose(privest.gibu([OUE.group(REPORTS)]).theta, theta, atol=1e-12)
    assert OUE.estimate(REPORTS).shape == OUE.estimate_variance(REPORTS).shape == (K,)
    assert privest.krr_mle(np.bincount(GRR_REPORTS, minlength=K), EPS).shape == (K,)
    assert privest.ibu(privest.krr(K, EPS), COUNTS).theta.shape == (K,)


def test_right_calls_are_untouched():
    """What the estimators take passes the refusals: matrices as lists and tuples of rows, groups, pairs, strings
    that name nothing (left to the usual check)."""
    rows = tuple(tuple(row) for row in A)
    np.testing.assert_allclose(privest.ibu(rows, COUNTS).theta, privest.ibu(A, COUNTS).theta, atol=1e-12)
    np.testing.assert_allclose(privest.ibu(A.tolist(), COUNTS).theta, privest.ibu(A, COUNTS).theta, atol=1e-12)
    assert privest.ibu(privest.matrix_group(A, COUNTS)).theta.shape == (K,)
    assert privest.gibu([(A.tolist(), COUNTS), (OUE, PACKED)]).theta.shape == (K,)
    assert privest.gibu(((A, COUNTS), (OUE, REPORTS))).theta.shape == (K,)  # a tuple of pairs is a list of pairs
    assert privest.inv(rows, COUNTS).shape == (K,)
    with pytest.raises(TypeError, match="A must be an array of numbers, got 'matrix'"):
        privest.inv("matrix", COUNTS)
    with pytest.raises(TypeError, match="groups must be a list, got 3"):
        privest.gibu(3)
