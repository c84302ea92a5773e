"""The standard LDP frequency oracles as set-valued protocols: GRR, SUE, OUE, BLH, OLH, SS and HR.

Every protocol here reports something whose probability given the secret x is a per-report factor times one of two
values: ``high`` if x lies in the report's set S, ``low`` otherwise,

    P(report | x) = exp(log_scale(report)) * (high if x in S(report) else low).

That one structure serves everything: the exact likelihood (``likelihood``), the unbiased estimator of Wang et al.
(USENIX Security 2017; ``estimate``, from how many reports' sets hold each value), and GIBU over any mix of protocols
(``group`` gives the distinct reports' sets, which ``privest.gibu`` iterates on in O(sum of ``|S|``), never a k x
``|Z|`` matrix). A protocol is "pure" in Wang et al.'s sense: P(v in S | x = v) = p_star, P(v in S | x != v) = q_star.

Histogram encoding adds THE (thresholding: unary encoding, so the same structure) and SHE (summation), whose report is
a real vector: its likelihood is a density, its group a matrix with a column per user (``histogram``'s docstring).
``adp`` picks GRR or OUE, whichever has the lower variance at (k, eps).

========  =====================================================  ===========================================
protocol  report                                                 S(report)
========  =====================================================  ===========================================
GRR       int in [0, k)                                          {report}
SUE, OUE  bool (k,): one-hot bits, each kept or flipped          the bits set
BLH, OLH  (seed, value in [0, g)): GRR over g hashed values      {v : h_seed(v) = value}
SS        bool (k,): a subset of size omega                      the subset
HR        int in [0, K): a column of the Hadamard matrix         {x : H[x + 1, report] = +1}
THE       bool (k,): the noisy one-hot coordinates above t       the bits set
SHE       float (k,): the one-hot vector plus Laplace(2/eps)     (none: a density, see ``histogram``)
========  =====================================================  ===========================================

The bit protocols (SUE, OUE, SS, THE) also take and give their reports bit-packed, as ``PackedBits`` (uint8
(n, ceil(k/8)) as ``numpy.packbits(axis=1)`` packs them, 1/8 of the bool matrix): ``sample(secrets, rng,
packed=True)`` draws them without ever forming the bool matrix, ``from_arrays`` reads them so, and every method that
takes reports takes either.

Parameter ranges, checked when a protocol is made (a ValueError naming the argument otherwise):

- ``k``: an integer >= 2; BLH and OLH at most 10^15 (the hash reads a value's decimal string of at most 15 digits),
  HR at most 2^62 - 1 (its Hadamard order K <= 2k must be an int64 report).
- ``eps``: a finite number in [EPS_MIN, EPS_MAX] = [1e-12, 700]. Below 1e-12, e^eps - 1 keeps fewer than 4
  significant digits in float64 and the estimator's 1/(p* - q*) ~ k/eps passes 10^12 k; above 700, e^eps nears the
  largest float64 (e^709.8) and e^-eps the smallest normal one, where a likelihood value would round to 0 or inf.
  OLH at most ``OLH_EPS_MAX`` = ln(2^32 - 1) = 22.18: its g = round(e^eps) + 1 must not exceed 2^32, the range
  of the 32-bit hash xxh32 (a larger g would leave hashed values no user can reach, and q* = 1/g would be wrong).
- ``hashes`` (BLH, OLH): None or an integer in 1..2^32 (the seeds are 32-bit).

Within these ranges sampling gives valid reports, and ``likelihood``, ``estimate`` and ``variance`` are finite (the
gap p* - q* is computed in closed form with expm1 or tanh, never as a difference of two near-equal numbers).

The package holds one family a module, re-exported here (import from ``privest.protocols``):

======================  ================================================================================================
``base``                ``Protocol`` (likelihood, GIBU's group, unbiased estimate, variance), report shapes, k-RR's two
                        values
``xxh32``               the hash of local hashing, vectorised
``packed``              ``PackedBits`` and the samplers that draw bit reports straight into packed bytes (SUE, OUE, SS)
``response``            GRR and HR (one value reported)
``unary``               SUE and OUE (unary encoding)
``subsets``             SS (subset selection)
``histogram``           SHE and THE (histogram encoding: Laplace noise on the one-hot vector) and ADP (GRR or OUE)
``longitudinal``        L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE, L-BLH, L-OLH, L-ADP: a memo at eps, each report at eps1
``bitflip``             dBitFlipPM: d of b bucket bits, memoised once (a three-level likelihood: not a ``Protocol``)
``rounds``              ``Rounds``: a longitudinal protocol's users over several rounds, each user's memos kept;
                        ``joint_group``: the exact likelihood of a user's rounds of one value, for GIBU
``multidim``            SPL, SMP and RS+FD: d attributes a user, each estimated from its column's marginal protocol
``hashing``             BLH and OLH (local hashing) and their ``HashReports``
``digests``             xxh32 and xxh64 of decimal strings up to 2^64 - 1 and ``item_ids`` (strings to 64-bit items)
``sketches``            ``Sketch`` and CMS, HCMS: oracles for items 0..k-1, k up to 2^64, estimated item by item
``fast_hashing``        FLH, fast local hashing (a ``Sketch``: OLH on a finite hash family, items up to 2^64)
``hadamard_mechanism``  HM, the Hadamard mechanism (a ``Sketch``: no hashing, any k up to 2^64)
``count_sketch``        PCS, Private Count Sketch (a ``Sketch``: hash pairs (cell, sign), width coins a report)
``rappor_bloom``        RAPPOR with Bloom filters (a ``Sketch``) and Google's decoding, LASSO then least squares
``factories``           ``grr``, ``sue``, ..., ``she``, ``the``, ``adp``, ``l_grr``, ..., ``l_adp``, ``cms``, ``hcms``,
                        ``flh``, ``hm``, ``pcs``, ``rappor_bloom``, and ``by_name``
======================  ================================================================================================

Examples
--------
>>> import numpy as np
>>> from privest import protocols, rng_for
>>> m = protocols.oue(8, 1.0)
>>> reports = m.sample(np.repeat(np.arange(8), 1000), rng_for(2026, "protocols doctest"))
>>> reports.shape, m.likelihood(reports[:2]).shape
((8000, 8), (2, 8))
>>> bool(np.abs(m.estimate(reports) - 1 / 8).max() < 0.1)  # 4.6 standard deviations
True
>>> packed = m.sample(np.repeat(np.arange(8), 1000), rng_for(2026, "protocols doctest"), packed=True)
>>> packed.bits.shape, bool(np.array_equal(packed.unpack(), reports))
((8000, 1), True)
"""

from privest.protocols.base import EPS_MAX, EPS_MIN, Protocol
from privest.protocols.bitflip import DBitFlipPM
from privest.protocols.count_sketch import PCS, PcsReports
from privest.protocols.digests import item_ids, xxh32_decimal_wide, xxh64_decimal
from privest.protocols.factories import (
    HISTOGRAM_NAMES,
    LONGITUDINAL_NAMES,
    NAMES,
    OPTIONS,
    SKETCH_NAMES,
    adp,
    blh,
    by_name,
    cms,
    dbitflip,
    flh,
    grr,
    hcms,
    hm,
    hr,
    l_adp,
    l_blh,
    l_grr,
    l_olh,
    l_osue,
    l_oue,
    l_soue,
    l_sue,
    olh,
    oue,
    pcs,
    rappor_bloom,
    she,
    ss,
    sue,
    the,
)
from privest.protocols.fast_hashing import FLH
from privest.protocols.hadamard_mechanism import FWHT_ORDER_MAX, HM, HmReports
from privest.protocols.hashing import BLH, OLH, OLH_EPS_MAX, HashReports
from privest.protocols.histogram import SHE, THE, the_threshold
from privest.protocols.longitudinal import LBLH, LGRR, LOLH, LOSUE, LOUE, LSOUE, LSUE
from privest.protocols.multidim import RSFD_PROTOCOLS, SOLUTION_NAMES, Multidimensional, MultiReports, rsfd, smp, spl
from privest.protocols.packed import PackedBits
from privest.protocols.rappor_bloom import BloomReports, RapporBloom, RapporDecoding, nonnegative_lasso
from privest.protocols.response import GRR, HR
from privest.protocols.rounds import Rounds, joint_group
from privest.protocols.sketches import CMS, HCMS, CmsReports, HcmsReports, Sketch
from privest.protocols.subsets import SS
from privest.protocols.unary import OUE, SUE
from privest.protocols.xxh32 import xxh32_decimal

__all__ = [
    "BLH",
    "CMS",
    "EPS_MAX",
    "EPS_MIN",
    "FLH",
    "FWHT_ORDER_MAX",
    "GRR",
    "HCMS",
    "HISTOGRAM_NAMES",
    "HM",
    "HR",
    "LBLH",
    "LGRR",
    "LOLH",
    "LONGITUDINAL_NAMES",
    "LOSUE",
    "LOUE",
    "LSOUE",
    "LSUE",
    "NAMES",
    "OLH",
    "OLH_EPS_MAX",
    "OPTIONS",
    "OUE",
    "PCS",
    "RSFD_PROTOCOLS",
    "SHE",
    "SKETCH_NAMES",
    "SOLUTION_NAMES",
    "SS",
    "SUE",
    "THE",
    "BloomReports",
    "CmsReports",
    "DBitFlipPM",
    "HashReports",
    "HcmsReports",
    "HmReports",
    "MultiReports",
    "Multidimensional",
    "PackedBits",
    "PcsReports",
    "Protocol",
    "RapporBloom",
    "RapporDecoding",
    "Rounds",
    "Sketch",
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
    "item_ids",
    "joint_group",
    "l_adp",
    "l_blh",
    "l_grr",
    "l_olh",
    "l_osue",
    "l_oue",
    "l_soue",
    "l_sue",
    "nonnegative_lasso",
    "olh",
    "oue",
    "pcs",
    "rappor_bloom",
    "rsfd",
    "she",
    "smp",
    "spl",
    "ss",
    "sue",
    "the",
    "the_threshold",
    "xxh32_decimal",
    "xxh32_decimal_wide",
    "xxh64_decimal",
]
