"""The protocols by name: one factory per protocol (``grr``, ``sue``, ...) and ``by_name``, as a config names them.
"""

from collections.abc import Callable
from typing import Any

from privest._checks import (
    check_text,
)
from privest.protocols.base import Protocol
from privest.protocols.bitflip import DBitFlipPM, dbitflip
from privest.protocols.count_sketch import PCS
from privest.protocols.fast_hashing import FLH
from privest.protocols.hadamard_mechanism import HM
from privest.protocols.hashing import BLH, OLH
from privest.protocols.histogram import SHE, THE, adp
from privest.protocols.longitudinal import LBLH, LGRR, LOLH, LOSUE, LOUE, LSOUE, LSUE, l_adp
from privest.protocols.rappor_bloom import RapporBloom
from privest.protocols.response import GRR, HR
from privest.protocols.sketches import CMS, HCMS, Sketch
from privest.protocols.subsets import SS
from privest.protocols.unary import OUE, SUE

__all__ = [
    "HISTOGRAM_NAMES",
    "LONGITUDINAL_NAMES",
    "NAMES",
    "OPTIONS",
    "SKETCH_NAMES",
    "adp",
    "blh",
    "by_name",
    "cms",
    "dbitflip",
    "flh",
    "grr",
    "hcms",
    "hm",
    "hr",
    "l_adp",
    "l_blh",
    "l_grr",
    "l_olh",
    "l_osue",
    "l_oue",
    "l_soue",
    "l_sue",
    "olh",
    "oue",
    "pcs",
    "rappor_bloom",
    "she",
    "ss",
    "sue",
    "the",
]

NAMES = ("grr", "sue", "oue", "blh", "olh", "ss", "hr")
"""The set-valued protocols of Wang et al. and the free-will paper, the ones the study layer runs."""

HISTOGRAM_NAMES = ("she", "the", "adp")
"""Histogram encoding (SHE, THE) and the adaptive choice (ADP, a GRR or an OUE): ``by_name`` knows them too."""


LONGITUDINAL_NAMES = ("l_grr", "l_sue", "l_oue", "l_osue", "l_soue", "l_adp", "l_blh", "l_olh", "dbitflip")
"""The longitudinal protocols (memoisation, ``privest.protocols.longitudinal``): ``by_name`` knows them, with eps1 (one
report's level, default eps / 2) and, for L-GRR, L-ADP and local hashing, calibration; and dBitFlipPM
(``privest.protocols.bitflip``: one memoised report, ``buckets`` and ``bits``)."""

SKETCH_NAMES = ("cms", "hcms", "flh", "hm", "pcs", "rappor_bloom")
"""The sketch oracles for large domains (``privest.protocols.sketches``, items 0..k-1 with k up to 2^64): ``by_name``
knows them, with ``hashes`` and ``width`` (CMS, HCMS, PCS), ``hashes`` (FLH), ``t`` (HM) and ``hashes``, ``bits`` and
``cohorts`` (RAPPOR with Bloom filters)."""


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


def l_grr(k: int, eps: float, eps1: float | None = None, calibration: str = "exact") -> LGRR:
    """Longitudinal GRR on k values: the memo at eps, one report at eps1 (default eps / 2, 0 < eps1 < eps);
    calibration "exact" (one report exactly eps1-LDP) or "peer" (multi-freq-ldpy's second step)."""
    return LGRR(k, eps, eps1, calibration)


def l_sue(k: int, eps: float, eps1: float | None = None) -> LSUE:
    """Longitudinal SUE (basic RAPPOR) on k values: the memo at eps, one report at eps1 (default eps / 2)."""
    return LSUE(k, eps, eps1)


def l_oue(k: int, eps: float, eps1: float | None = None) -> LOUE:
    """Longitudinal OUE on k values: the memo at eps, one report at eps1 (default eps / 2; at most
    ln((2 e^eps + 1) / 3), what its second step, p2 = 1/2, reaches)."""
    return LOUE(k, eps, eps1)


def l_osue(k: int, eps: float, eps1: float | None = None) -> LOSUE:
    """OUE then SUE on k values: the memo at eps, one report at eps1 (default eps / 2), OUE at eps1 exactly."""
    return LOSUE(k, eps, eps1)


def l_soue(k: int, eps: float, eps1: float | None = None) -> LSOUE:
    """SUE then OUE on k values: the memo at eps, one report at eps1 (default eps / 2; bounded as ``l_oue``'s)."""
    return LSOUE(k, eps, eps1)


def l_blh(k: int, eps: float, eps1: float | None = None, calibration: str = "exact",
          hashes: int | None = None) -> LBLH:
    """Longitudinal binary local hashing (g = 2) on k values: eps, eps1 and calibration as ``l_grr``, hashes as
    ``blh``."""
    return LBLH(k, eps, hashes, eps1, calibration)


def l_olh(k: int, eps: float, eps1: float | None = None, calibration: str = "exact",
          hashes: int | None = None) -> LOLH:
    """LOLOHA, longitudinal optimised local hashing on k values (g from eps and eps1,
    ``privest.protocols.longitudinal.loloha_g``): eps, eps1 and calibration as ``l_grr``, hashes as ``olh``."""
    return LOLH(k, eps, hashes, eps1, calibration)


def cms(k: int, eps: float, hashes: int = 256, width: int = 1024) -> CMS:
    """Apple's Count Mean Sketch on items 0..k-1 (k in 2..2^64) at eps: ``hashes`` hash functions (1..2^16) into
    ``width`` cells (2..2^20)."""
    return CMS(k, eps, hashes, width)


def hcms(k: int, eps: float, hashes: int = 256, width: int = 1024) -> HCMS:
    """Hadamard Count Mean Sketch on items 0..k-1 at eps: as ``cms``, width a power of 2."""
    return HCMS(k, eps, hashes, width)


def pcs(k: int, eps: float, hashes: int = 256, width: int = 1024) -> PCS:
    """Private Count Sketch on items 0..k-1 (k in 2..2^64) at eps: ``hashes`` hash pairs (1..2^16) into ``width``
    cells (2..2^20) and a sign (``privest.protocols.count_sketch``)."""
    return PCS(k, eps, hashes, width)


def rappor_bloom(k: int, eps: float, hashes: int = 2, bits: int = 128, cohorts: int = 64) -> RapporBloom:
    """RAPPOR with Bloom filters on items 0..k-1 (k in 2..2^64) at eps: ``hashes`` hash functions (1..64) into
    ``bits`` bits (2..2^16) in each of ``cohorts`` cohorts (1..2^16) (``privest.protocols.rappor_bloom``)."""
    return RapporBloom(k, eps, hashes, bits, cohorts)


def flh(k: int, eps: float, hashes: int = 1024) -> FLH:
    """Fast local hashing on items 0..k-1 (k in 2..2^64) at eps (at most ln(2^32 - 1)): OLH on ``hashes`` hash
    functions (1..2^32)."""
    return FLH(k, eps, hashes)


def hm(k: int, eps: float, t: int | None = None) -> HM:
    """The Hadamard mechanism on items 0..k-1 (k in 2..2^64) at eps: ``t`` coefficients a user (1..16; None:
    ceil(log2(e^eps + 1)))."""
    return HM(k, eps, t)


_FACTORIES: dict[str, Callable[..., Protocol | DBitFlipPM | Sketch]] = {
    "grr": grr, "sue": sue, "oue": oue, "blh": blh, "olh": olh, "ss": ss, "hr": hr, "she": she, "the": the,
    "adp": adp, "l_grr": l_grr, "l_sue": l_sue, "l_oue": l_oue, "l_osue": l_osue, "l_soue": l_soue, "l_adp": l_adp,
    "l_blh": l_blh, "l_olh": l_olh, "dbitflip": dbitflip, "cms": cms, "hcms": hcms, "flh": flh, "hm": hm, "pcs": pcs,
    "rappor_bloom": rappor_bloom}
OPTIONS = {"blh": ("hashes",), "olh": ("hashes",), "the": ("threshold",), "l_grr": ("eps1", "calibration"),
            "l_sue": ("eps1",), "l_oue": ("eps1",), "l_osue": ("eps1",), "l_soue": ("eps1",),
            "l_adp": ("eps1", "calibration"), "l_blh": ("eps1", "calibration", "hashes"),
            "l_olh": ("eps1", "calibration", "hashes"), "dbitflip": ("buckets", "bits"),
            "cms": ("hashes", "width"), "hcms": ("hashes", "width"), "flh": ("hashes",), "hm": ("t",),
            "pcs": ("hashes", "width"), "rappor_bloom": ("hashes", "bits", "cohorts")}
"""The options ``by_name`` takes, by protocol name (a name not listed takes none): what a config may give a protocol
beside k and eps."""


def by_name(name: str, k: int, eps: float, **options: Any) -> Protocol | DBitFlipPM | Sketch:
    """The protocol called ``name`` (one of ``NAMES``, ``HISTOGRAM_NAMES``, ``LONGITUDINAL_NAMES`` or
    ``SKETCH_NAMES``, any case) on k values at eps; options: ``hashes`` for BLH, OLH, L-BLH and L-OLH, ``threshold``
    for THE, ``eps1`` for every longitudinal protocol but dBitFlipPM (which takes ``buckets`` and ``bits``) and
    ``calibration`` for L-GRR, L-ADP, L-BLH and L-OLH; ``hashes`` and ``width`` for CMS, HCMS and PCS, ``hashes`` for
    FLH, ``t`` for HM, ``hashes``, ``bits`` and ``cohorts`` for RAPPOR-Bloom (the sketches, whose k may be up to
    2^64). "adp" gives a GRR or an OUE instance
    (``adp``), "l_adp" an L-GRR or an L-OSUE.

    Raises
    ------
    ValueError
        If the name is unknown, an option is given to a protocol that has none, or k, eps or hashes lies outside
        the protocol's range (module docstring).
    """
    key = check_text(name, "name").lower()
    if key not in _FACTORIES:
        known = ", ".join(NAMES + HISTOGRAM_NAMES + LONGITUDINAL_NAMES + SKETCH_NAMES)
        raise ValueError(f"name: unknown protocol {name!r}; known: {known}")
    unknown = sorted(set(options) - set(OPTIONS.get(key, ())))
    if unknown:
        allowed = OPTIONS.get(key)
        raise ValueError(f"protocol {name!r} takes " + (f"only {', '.join(allowed)}" if allowed else "no options")
                         + f", got {unknown}")
    return _FACTORIES[key](k, eps, **options)
