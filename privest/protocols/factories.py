"""The protocols by name: one factory per protocol (``grr``, ``sue``, ...) and ``by_name``, as a config names them.
"""

from collections.abc import Callable
from typing import Any

from privest._checks import (
    check_text,
)
from privest.protocols.base import Protocol
from privest.protocols.hashing import BLH, OLH
from privest.protocols.histogram import SHE, THE, adp
from privest.protocols.response import GRR, HR
from privest.protocols.subsets import SS
from privest.protocols.unary import OUE, SUE

__all__ = [
    "HISTOGRAM_NAMES",
    "NAMES",
    "adp",
    "blh",
    "by_name",
    "grr",
    "hr",
    "olh",
    "oue",
    "she",
    "ss",
    "sue",
    "the",
]

NAMES = ("grr", "sue", "oue", "blh", "olh", "ss", "hr")
"""The set-valued protocols of Wang et al. and the free-will paper, the ones the study layer runs."""

HISTOGRAM_NAMES = ("she", "the", "adp")
"""Histogram encoding (SHE, THE) and the adaptive choice (ADP, a GRR or an OUE): ``by_name`` knows them too."""


def grr(k: int, eps: float) -> GRR:
    """Generalised randomised response (k-RR) on k values at eps (k >= 2, eps in [1e-12, 700]: module docstring)."""
    return GRR(k, eps)


def sue(k: int, eps: float) -> SUE:
    """Symmetric unary encoding (basic one-time RAPPOR) on k values at eps (ranges as in ``grr``)."""
    return SUE(k, eps)


def oue(k: int, eps: float) -> OUE:
    """Optimised unary encoding on k values at eps (ranges as in ``grr``)."""
    return OUE(k, eps)


def blh(k: int, eps: float, hashes: int | None = None) -> BLH:
    """Binary local hashing on k values at eps; ``hashes`` the size of the hash family (None: 2^32 seeds).

    k in 2..10^15, eps in [1e-12, 700], hashes None or in 1..2^32 (module docstring)."""
    return BLH(k, eps, hashes)


def olh(k: int, eps: float, hashes: int | None = None) -> OLH:
    """Optimised local hashing on k values at eps; ``hashes`` the size of the hash family (None: 2^32 seeds).

    k in 2..10^15, eps in [1e-12, ln(2^32 - 1) = 22.18] (g = round(e^eps) + 1 must fit the 32-bit hash: a larger
    eps is refused, see ``OLH``), hashes None or in 1..2^32."""
    return OLH(k, eps, hashes)


def ss(k: int, eps: float) -> SS:
    """Subset selection on k values at eps (ranges as in ``grr``; the subset size omega follows from k and eps)."""
    return SS(k, eps)


def hr(k: int, eps: float) -> HR:
    """Hadamard response on k values at eps (k in 2..2^62 - 1, eps in [1e-12, 700])."""
    return HR(k, eps)


def she(k: int, eps: float) -> SHE:
    """Summation with histogram encoding on k values at eps: real (n, k) reports (ranges as in ``grr``)."""
    return SHE(k, eps)


def the(k: int, eps: float, threshold: float | None = None) -> THE:
    """Thresholding with histogram encoding on k values at eps: bit reports; ``threshold`` in [0, 1], None for
    multi-freq-ldpy's choice (``privest.protocols.histogram.the_threshold``). Other ranges as in ``grr``."""
    return THE(k, eps, threshold)


_FACTORIES: dict[str, Callable[..., Protocol]] = {"grr": grr, "sue": sue, "oue": oue, "blh": blh, "olh": olh,
                                                  "ss": ss, "hr": hr, "she": she, "the": the, "adp": adp}
_OPTIONS = {"blh": ("hashes",), "olh": ("hashes",), "the": ("threshold",)}


def by_name(name: str, k: int, eps: float, **options: Any) -> Protocol:
    """The protocol called ``name`` (one of ``NAMES`` or ``HISTOGRAM_NAMES``, any case) on k values at eps; options:
    ``hashes`` for BLH and OLH, ``threshold`` for THE. "adp" gives a GRR or an OUE instance (``adp``).

    Raises
    ------
    ValueError
        If the name is unknown, an option is given to a protocol that has none, or k, eps or hashes lies outside
        the protocol's range (module docstring).
    """
    key = check_text(name, "name").lower()
    if key not in _FACTORIES:
        raise ValueError(f"name: unknown protocol {name!r}; known: {', '.join(NAMES + HISTOGRAM_NAMES)}")
    unknown = sorted(set(options) - set(_OPTIONS.get(key, ())))
    if unknown:
        allowed = _OPTIONS.get(key)
        raise ValueError(f"protocol {name!r} takes " + (f"only {', '.join(allowed)}" if allowed else "no options")
                         + f", got {unknown}")
    return _FACTORIES[key](k, eps, **options)
