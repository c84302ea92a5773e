"""The mechanisms of an experiment: their kinds, a member (kind and parameter), the built mechanisms on an alphabet, and
how they are stored (rule mechanisms) and read back (rules perturb and estimate).

Storage (npz): ``kinds`` and ``parameters`` (D,) of the experiment's distinct mechanisms, ``k``, and ``A`` (D, k, m)
when every one is a matrix, else ``A{j}`` (k, m) for each matrix member j (RAPPOR has 2^k observables: never a matrix,
decisions.md, section 2; the standard protocols of ``privest.protocols`` report sets, not columns); ``hashes`` (D,) when
a member is a protocol (BLH and OLH: the size of the hash family, -1 for seeds from 2^32; -1 for the others);
``eps1`` (D,) and ``calibration`` (D,) when a member gives them (the longitudinal protocols; NaN and '' where not);
``bounds`` (2,), the numeric alphabet's [min, max], when a member is a numeric mechanism (``NUMERIC_KINDS``).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privest import numeric, protocols
from privest.alphabets import Alphabet
from privest.mechanisms import by_name
from privest.protocols import Protocol
from privest.sampling import Rappor

__all__ = ["HASHED_KINDS", "KIND_NAMES", "KIND_OPTIONS", "LONGITUDINAL_KINDS", "MECHANISM_KINDS", "MEMBER_OPTIONS",
           "METRIC_SCALE", "NUMERIC_KINDS", "PROTOCOL_KINDS", "Member", "NumericOnBins", "bounds_of",
           "build_mechanisms", "describe", "is_numeric", "is_protocol", "mechanism_k", "mechanisms_from_arrays",
           "mechanisms_to_arrays", "protocol"]

PROTOCOL_KINDS = (*protocols.NAMES, *protocols.HISTOGRAM_NAMES,
                  *(name for name in protocols.LONGITUDINAL_NAMES if name != "dbitflip"))
"""The LDP frequency oracles of ``privest.protocols``: the standard ones (GRR, SUE, OUE, BLH, OLH, SS, HR),
histogram encoding and ADP (SHE, THE, ADP) and the longitudinal ones at their default eps1 = eps / 2 and exact
calibration (L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE, L-ADP, L-BLH, L-OLH; one round each). dBitFlipPM estimates its
buckets, not the alphabet, and is not a kind."""
MEMBER_OPTIONS = ("hashes", "eps1", "calibration")
"""The options a member may carry beside its kind and parameter (``privest.protocols.OPTIONS`` names the kinds that
take each)."""
KIND_OPTIONS = {kind: tuple(o for o in protocols.OPTIONS.get(kind, ()) if o in MEMBER_OPTIONS)
                for kind in PROTOCOL_KINDS}
"""The member options each protocol kind takes (a kind not listed takes none): hashes for local hashing, eps1 for
every longitudinal protocol, calibration for L-GRR, L-ADP and longitudinal local hashing."""
HASHED_KINDS = tuple(kind for kind, options in KIND_OPTIONS.items() if "hashes" in options)
"""The protocols that take a hash family size (``Member.hashes``)."""
LONGITUDINAL_KINDS = tuple(kind for kind, options in KIND_OPTIONS.items() if "eps1" in options)
"""The longitudinal protocols (a memo at eps, each report at eps1): the kinds that can report over rounds."""
NUMERIC_KINDS = ("square_wave", "piecewise", "hybrid", "duchi")
"""The numeric mechanisms of ``privest.numeric``: each user's number of a numeric column reported as a number (not a
bin), on a numeric alphabet's [min, max]; their histogram estimated on its bins (``NumericOnBins``)."""
METRIC_SCALE = {"geometric": 1.0, "laplace": 1.0, "exponential": 2.0}
"""The metric mechanisms, eps per unit of distance, and on a numeric alphabet the factor c of their eps per unit
c eps / d_max (d_max the distance between the first and last bins' centres) that makes them eps-LDP over the whole
range, as the numeric mechanisms are: the geometric and Laplace mechanisms' worst ratio is e^(eps d_max) per unit eps,
the exponential mechanism's e^(eps d_max / 2) (``privest.mechanisms.ldp_level`` checks it in the tests)."""
MECHANISM_KINDS = ("krr", "geometric", "laplace", "exponential", "rappor", "shokri", *PROTOCOL_KINDS, *NUMERIC_KINDS)
KIND_NAMES = {"krr": "k-RR", "geometric": "geometric", "laplace": "Laplace", "exponential": "exponential",
              "rappor": "RAPPOR", "shokri": "Shokri", "square_wave": "SW", "piecewise": "PM", "hybrid": "HM",
              "duchi": "Duchi",
              **{kind: kind.upper().replace("L_", "L-") for kind in PROTOCOL_KINDS}}


@dataclass(frozen=True)
class Member:
    """One mechanism of an experiment: its kind (``MECHANISM_KINDS``) and parameter (eps, or Q for Shokri's); for BLH
    and OLH the size of the hash family (None: seeds from 2^32, as the peer libraries); for the longitudinal
    protocols one report's level eps1 (None: eps / 2) and, for L-GRR, L-ADP and longitudinal local hashing, the
    calibration of the second step ("exact" or "peer"; None: "exact"), as ``privest.protocols.by_name`` takes them."""

    kind: str
    parameter: float
    hashes: int | None = None
    eps1: float | None = None
    calibration: str | None = None

    @property
    def options(self) -> dict[str, Any]:
        """The options given (not None), as ``privest.protocols.by_name`` takes them."""
        return {name: getattr(self, name) for name in MEMBER_OPTIONS if getattr(self, name) is not None}

    @property
    def label(self) -> str:
        """The kind as the papers name it, with the longitudinal options given: 'L-GRR (ε₁ 0.5, peer)' (a hash family
        size is left to the caption, as before these options)."""
        given = [f"ε₁ {value:g}" if name == "eps1" else str(value)
                 for name, value in self.options.items() if name != "hashes"]
        name = KIND_NAMES.get(self.kind, self.kind)
        return f"{name} ({', '.join(given)})" if given else name

    @property
    def numeric(self) -> bool:
        """Whether the member is a numeric mechanism (``NUMERIC_KINDS``): its users report numbers."""
        return self.kind in NUMERIC_KINDS

    @property
    def symbol(self) -> str:
        return "Q" if self.kind == "shokri" else "ε"


@dataclass(frozen=True)
class NumericOnBins:
    """A numeric mechanism of ``privest.numeric`` on a numeric alphabet: its users report their numbers
    (``mechanism.sample`` on the raw values), and its histogram is estimated on the alphabet's ``k`` equal cells of
    [lo, hi] (``mechanism.distribution(reports, k)``)."""

    mechanism: numeric.NumericMechanism
    k: int

    @property
    def name(self) -> str:
        return self.mechanism.name


def is_numeric(mechanism: Any) -> bool:
    """Whether a built mechanism is a numeric one (``NumericOnBins``): its reports are numbers, one a user."""
    return isinstance(mechanism, NumericOnBins)


def bounds_of(alphabet_file: Mapping[str, Any]) -> tuple[float, float] | None:
    """A numeric alphabet's [min, max] from its alphabet file (``own_data.alphabet_of``), None for any other."""
    if not alphabet_file.get("numeric"):
        return None
    return float(alphabet_file["min"]), float(alphabet_file["max"])


def _numeric(member: Member, k: int, bounds: tuple[float, float] | None) -> NumericOnBins:
    if bounds is None:
        raise ValueError(f"{member.kind}: a numeric mechanism needs a numeric alphabet's min and max (alphabet kind "
                         "numeric)")
    factory = getattr(numeric, member.kind)
    return NumericOnBins(factory(member.parameter, lo=bounds[0], hi=bounds[1]), k)


def is_protocol(mechanism: Any) -> bool:
    """Whether a built mechanism is a standard protocol (``privest.protocols``): its reports are sets, not counts."""
    return isinstance(mechanism, Protocol)


def protocol(member: Member, k: int) -> Protocol:
    """A protocol member on k secrets (``privest.protocols.by_name`` with the member's options)."""
    return protocols.by_name(member.kind, k, member.parameter, **member.options)


def mechanism_k(mechanism: Any) -> int:
    """The number of secrets of a built mechanism (a matrix's rows)."""
    return mechanism.k if isinstance(mechanism, Rappor | Protocol | NumericOnBins) else np.asarray(mechanism).shape[0]


def build_mechanisms(members: Sequence[Member], alphabet: Alphabet, shokri: Mapping[float, np.ndarray] | None = None,
                     bounds: tuple[float, float] | None = None) -> list[Any]:
    """The mechanisms on an alphabet: matrices (``privest.mechanisms.by_name``; Shokri's from the solved matrices
    ``shokri[Q]``), ``Rappor`` for RAPPOR members, a protocol of ``privest.protocols``, or a numeric mechanism on
    ``bounds`` (a numeric alphabet's [min, max], ``bounds_of``) estimated on the alphabet's k bins. On a numeric
    alphabet (``bounds`` given) every member's eps is its LDP level: the metric mechanisms get eps per unit
    ``METRIC_SCALE[kind] * eps / d_max``, so that they stand beside the numeric ones at the same privacy."""
    result: list[Any] = []
    for m in members:
        if m.kind in NUMERIC_KINDS:
            result.append(_numeric(m, alphabet.k, bounds))
        elif m.kind in PROTOCOL_KINDS:
            result.append(protocol(m, alphabet.k))
        elif m.kind == "rappor":
            result.append(Rappor(alphabet.k, m.parameter))
        elif m.kind == "shokri":
            if shokri is None or m.parameter not in shokri:
                raise ValueError(f"shokri: no solved matrix for Q = {m.parameter:g}")
            result.append(np.asarray(shokri[m.parameter], dtype=np.float64))
        elif bounds is not None and m.kind in METRIC_SCALE:
            d_max = alphabet.spacing * (alphabet.k - 1)
            result.append(by_name(m.kind, alphabet, METRIC_SCALE[m.kind] * m.parameter / d_max))
        else:
            result.append(by_name(m.kind, alphabet, m.parameter))
    return result


def mechanisms_to_arrays(members: Sequence[Member], built: Sequence[Any]) -> dict[str, np.ndarray]:
    """The arrays that store built mechanisms in an npz: kinds, parameters, k; ``A`` (D, k, m) when every one is a
    matrix, else each matrix member's own ``A{j}`` (j its index among the members: a mixture of matrices with RAPPOR
    or protocols, whatever the order of its kinds); and hashes (D,) when one is a protocol (-1 for None)."""
    arrays = {"kinds": np.array([m.kind for m in members]),
              "parameters": np.array([m.parameter for m in members], dtype=np.float64),
              "k": np.int64(mechanism_k(built[0]))}
    if not any(isinstance(m, Rappor | Protocol | NumericOnBins) for m in built):
        arrays["A"] = np.stack(built)
    else:
        arrays |= {f"A{j}": np.asarray(m, dtype=np.float64) for j, m in enumerate(built)
                   if not isinstance(m, Rappor | Protocol | NumericOnBins)}
    if numerics := [m for m in built if is_numeric(m)]:
        arrays["bounds"] = np.array([numerics[0].mechanism.lo, numerics[0].mechanism.hi], dtype=np.float64)
    if any(is_protocol(m) for m in built):
        arrays["hashes"] = np.array([-1 if m.hashes is None else m.hashes for m in members], dtype=np.int64)
    if any(m.eps1 is not None or m.calibration is not None for m in members):
        arrays["eps1"] = np.array([np.nan if m.eps1 is None else m.eps1 for m in members], dtype=np.float64)
        arrays["calibration"] = np.array([m.calibration or "" for m in members])
    return arrays


def mechanisms_from_arrays(arrays: Mapping[str, np.ndarray]) -> tuple[list[Member], list[Any]]:
    """The members and mechanisms stored by ``mechanisms_to_arrays``."""
    hashes = ([None if h < 0 else int(h) for h in arrays["hashes"]] if "hashes" in arrays
              else [None] * len(arrays["kinds"]))
    eps1 = [None if np.isnan(e) else float(e) for e in arrays["eps1"]] if "eps1" in arrays else [None] * len(hashes)
    calibration = [str(c) or None for c in arrays["calibration"]] if "calibration" in arrays else [None] * len(hashes)
    members = [Member(str(kind), float(p), h, e1, c) for kind, p, h, e1, c
               in zip(arrays["kinds"], arrays["parameters"], hashes, eps1, calibration, strict=True)]
    k = int(arrays["k"])
    bounds = (float(arrays["bounds"][0]), float(arrays["bounds"][1])) if "bounds" in arrays else None

    def mechanism(j: int, m: Member) -> Any:
        if m.kind in NUMERIC_KINDS:
            return _numeric(m, k, bounds)
        if m.kind == "rappor":
            return Rappor(k, m.parameter)
        if m.kind in PROTOCOL_KINDS:
            return protocol(m, k)
        return arrays["A"][j] if "A" in arrays else arrays[f"A{j}"]

    return members, [mechanism(j, m) for j, m in enumerate(members)]


def describe(members: Sequence[Member]) -> str:
    """'10 k-RR, ε 3–8.08' or '5 geometric, ε 0.065–0.869 + 5 k-RR, ε 3–4.69': the mechanisms as the papers name
    them."""
    parts = []
    for label in dict.fromkeys(m.label for m in members):
        values = [m.parameter for m in members if m.label == label]
        symbol = "Q" if label == KIND_NAMES["shokri"] else "ε"
        span = f"{values[0]:g}" if len(values) == 1 else f"{min(values):g}–{max(values):g}"
        parts.append(f"{len(values)} {label}, {symbol} {span}")
    return " + ".join(parts)
