"""IBU, GIBU and [IBU]_M as the papers run them (``privest.estimators.PLAIN_IBU``: the plain iteration, stopped when
the log-likelihood changes by less than delta), for the tests that pin that engine down bit for bit and compare the
study families (which ask for it) with the library calls they wrap. A call passing accelerate or stop gets what it
asks for; the library's own defaults (SQUAREM to a certified gap) have tests of their own."""

from functools import partial

from privest import estimators

plain_ibu = partial(estimators.ibu, **estimators.PLAIN_IBU)
plain_gibu = partial(estimators.gibu, **estimators.PLAIN_IBU)


class PapersEstimators:
    """``privest.estimators`` with ``ibu``, ``gibu`` and ``ibu_m`` under the papers' rule."""

    ibu = staticmethod(plain_ibu)
    gibu = staticmethod(plain_gibu)
    ibu_m = staticmethod(partial(estimators.ibu_m, **estimators.PLAIN_IBU))

    def __getattr__(self, name: str):
        return getattr(estimators, name)


est = PapersEstimators()
