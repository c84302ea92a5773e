"""The mechanisms of an experiment: their kinds, a member (kind and parameter), the built mechanisms on an alphabet, and
how they are stored (rule mechanisms) and read back (rules perturb and estimate).

Storage (npz): ``kinds`` and ``parameters`` (D,) of the experiment's distinct mechanisms, ``k``, and ``A`` (D, k, m)
when every one is a matrix, else ``A{j}`` (k, m) for each matrix member j (RAPPOR has 2^k observables: never a matrix,
decisions.md, section 2; the standard protocols of ``privest.protocols`` report sets, not columns); ``hashes`` (D,) when
a member is a protocol (BLH and OLH: the size of the hash family, -1 for seeds from 2^32; -1 for the others);
``eps1`` (D,) and ``calibration`` (D,) when a member gives them (the longitudinal protocols; NaN and '' where not).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from privest import protocols
from privest.alphabets import Alphabet
from privest.mechanisms import by_name
from privest.protocols import Protocol
from privest.sampling import Rappor

__all__ = ["HASHED_KINDS", "KIND_NAMES", "KIND_OPTIONS", "LONGITUDINAL_KINDS", "MECHANISM_KINDS", "MEMBER_OPTIONS",
           "PROTOCOL_KINDS", "Member", "build_mechanisms", "describe", "is_protocol", "mechanism_k",
           "mechanisms_from_arrays", "mechanisms_to_arrays", "protocol"]

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
MECHANISM_KINDS = ("krr", "geometric", "laplace", "exponential", "rappor", "shokri", *PROTOCOL_KINDS)
KIND_NAMES = {"krr": "k-RR", "geometric": "geometric", "laplace": "Laplace", "exponential": "exponential",
              "rappor": "RAPPOR", "shokri": "Shokri",
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
    def symbol(self) -> str:
        return "Q" if self.kind == "shokri" else "ε"


def is_protocol(mechanism: Any) -> bool:
    """Whether a built mechanism is a standard protocol (``privest.protocols``): its reports are sets, not counts."""
    return isinstance(mechanism, Protocol)


def protocol(member: Member, k: int) -> Protocol:
    """A protocol member on k secrets (``privest.protocols.by_name`` with the member's options)."""
    return protocols.by_name(member.kind, k, member.parameter, **member.options)


def mechanism_k(mechanism: Any) -> int:
    """The number of secrets of a built mechanism (a matrix's rows)."""
    return mechanism.k if isinstance(mechanism, Rappor | Protocol) else np.asarray(mechanism).shape[0]


def build_mechanisms(members: Sequence[Member], alphabet: Alphabet, shokri: Mapping[float, np.ndarray] | None = None
                     ) -> list[Any]:
    """The mechanisms on an alphabet: matrices (``privest.mechanisms.by_name``; Shokri's from the solved matrices
    ``shokri[Q]``), ``Rappor`` for RAPPOR members, or a protocol of ``privest.protocols``."""
    result: list[Any] = []
    for m in members:
        if m.kind in PROTOCOL_KINDS:
            result.append(protocol(m, alphabet.k))
        elif m.kind == "rappor":
            result.append(Rappor(alphabet.k, m.parameter))
        elif m.kind == "shokri":
            if shokri is None or m.parameter not in shokri:
                raise ValueError(f"shokri: no solved matrix for Q = {m.parameter:g}")
            result.append(np.asarray(shokri[m.parameter], dtype=np.float64))
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
    if not any(isinstance(m, Rappor | Protocol) for m in built):
        arrays["A"] = np.stack(built)
    else:
        arrays |= {f"A{j}": np.asarray(m, dtype=np.float64) for j, m in enumerate(built)
                   if not isinstance(m, Rappor | Protocol)}
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

    def mechanism(j: int, m: Member) -> Any:
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
