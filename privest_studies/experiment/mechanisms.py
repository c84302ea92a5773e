"""The mechanisms of an experiment: their kinds, a member (kind and parameter), the built mechanisms on an alphabet, and
how they are stored (rule mechanisms) and read back (rules perturb and estimate).

Storage (npz): ``kinds`` and ``parameters`` (D,) of the experiment's distinct mechanisms, ``k``, and ``A`` (D, k, m)
when every one is a matrix, else ``A{j}`` (k, m) for each matrix member j (RAPPOR has 2^k observables: never a matrix,
decisions.md, section 2; the standard protocols of ``privest.protocols`` report sets, not columns); ``hashes`` (D,) when
a member is a protocol (BLH and OLH: the size of the hash family, -1 for seeds from 2^32; -1 for the others).
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

__all__ = ["HASHED_KINDS", "KIND_NAMES", "MECHANISM_KINDS", "PROTOCOL_KINDS", "Member", "build_mechanisms",
           "describe", "is_protocol", "mechanism_k", "mechanisms_from_arrays", "mechanisms_to_arrays", "protocol"]

PROTOCOL_KINDS = (*protocols.NAMES, *protocols.HISTOGRAM_NAMES,
                  *(name for name in protocols.LONGITUDINAL_NAMES if name != "dbitflip"))
"""The LDP frequency oracles of ``privest.protocols``: the standard ones (GRR, SUE, OUE, BLH, OLH, SS, HR),
histogram encoding and ADP (SHE, THE, ADP) and the longitudinal ones at their default eps1 = eps / 2 and exact
calibration (L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE, L-ADP, L-BLH, L-OLH; one round each). dBitFlipPM estimates its
buckets, not the alphabet, and is not a kind."""
HASHED_KINDS = ("blh", "olh", "l_blh", "l_olh")
"""The protocols that take a hash family size (``Member.hashes``)."""
MECHANISM_KINDS = ("krr", "geometric", "laplace", "exponential", "rappor", "shokri", *PROTOCOL_KINDS)
KIND_NAMES = {"krr": "k-RR", "geometric": "geometric", "laplace": "Laplace", "exponential": "exponential",
              "rappor": "RAPPOR", "shokri": "Shokri",
              **{kind: kind.upper().replace("L_", "L-") for kind in PROTOCOL_KINDS}}


@dataclass(frozen=True)
class Member:
    """One mechanism of an experiment: its kind (``MECHANISM_KINDS``) and parameter (eps, or Q for Shokri's); for BLH
    and OLH the size of the hash family (None: seeds from 2^32, as the peer libraries)."""

    kind: str
    parameter: float
    hashes: int | None = None

    @property
    def symbol(self) -> str:
        return "Q" if self.kind == "shokri" else "ε"


def is_protocol(mechanism: Any) -> bool:
    """Whether a built mechanism is a standard protocol (``privest.protocols``): its reports are sets, not counts."""
    return isinstance(mechanism, Protocol)


def protocol(member: Member, k: int) -> Protocol:
    """A protocol member on k secrets (``privest.protocols.by_name``; local hashing with its hash family size)."""
    options = {"hashes": member.hashes} if member.kind in HASHED_KINDS else {}
    return protocols.by_name(member.kind, k, member.parameter, **options)


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
    return arrays


def mechanisms_from_arrays(arrays: Mapping[str, np.ndarray]) -> tuple[list[Member], list[Any]]:
    """The members and mechanisms stored by ``mechanisms_to_arrays``."""
    hashes = ([None if h < 0 else int(h) for h in arrays["hashes"]] if "hashes" in arrays
              else [None] * len(arrays["kinds"]))
    members = [Member(str(kind), float(p), h)
               for kind, p, h in zip(arrays["kinds"], arrays["parameters"], hashes, strict=True)]
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
    for kind in dict.fromkeys(m.kind for m in members):
        values = [m.parameter for m in members if m.kind == kind]
        symbol = "Q" if kind == "shokri" else "ε"
        span = f"{values[0]:g}" if len(values) == 1 else f"{min(values):g}–{max(values):g}"
        parts.append(f"{len(values)} {KIND_NAMES.get(kind, kind)}, {symbol} {span}")
    return " + ".join(parts)
