"""What to call instead: one line for the estimators' common wrong calls (issue 48, item 4).

The estimators take matrices (``inv``, ``ibu_runs``, ...), protocols and their reports (``ibu``, ``gibu``,
``bootstrap``), or lists of (mechanism, reports) pairs (``gibu``, ``bootstrap``). A caller who hands one what another
takes (a protocol's name instead of the protocol, ``privest.krr`` instead of ``privest.krr(k, eps)``, a protocol
where a matrix is needed, one pair where a list of pairs is, the reports without their protocol) gets a TypeError
naming the argument and the call that takes it, before any other check. Each function here returns at once on what
its estimator takes, so a right call pays a few isinstance tests.
"""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from privest.groups import BitGroup, Group, SetGroup
from privest.protocols.base import Protocol
from privest.protocols.factories import HISTOGRAM_NAMES, LONGITUDINAL_NAMES, NAMES
from privest.protocols.hashing import HashReports
from privest.protocols.packed import PackedBits
from privest.rappor import RapporReports

__all__ = ["refuse_groups", "refuse_matrix", "refuse_protocol_reports"]

PROTOCOL_NAMES = NAMES + HISTOGRAM_NAMES + LONGITUDINAL_NAMES


def _constructor(name: str) -> str:
    """Where a protocol's constructor lives: ``privest.<name>``, the longitudinal ones ``privest.protocols.<name>``."""
    return f"privest.protocols.{name}" if name in LONGITUDINAL_NAMES else f"privest.{name}"


MATRIX_NAMES = ("krr", "geometric", "geometric_untruncated", "laplace", "exponential", "planar_geometric",
                "planar_geometric_remapped", "planar_laplace", "shokri")
"""The matrix mechanisms' constructors, each ``privest.<name>`` (``privest.shokri.shokri`` for Shokri et al.'s)."""

_GROUPS = Group | SetGroup | BitGroup
_REPORTS = PackedBits | HashReports

MATRIX_INSTEAD = {
    # a matrix function given a protocol and its reports: the protocol's own method that does the same
    "inv": "protocol.estimate(reports, post=...) (INV of a protocol: its unbiased estimate)",
    "inv_variance": "protocol.estimate_variance(reports)",
    "inv_interval": "protocol.interval(reports, level)",
    "inv_runs": "[protocol.estimate(r) for r in runs]",
    "ibu_runs": "[privest.ibu(protocol, r) for r in runs]",
    "inv_m": "privest.gibu([(protocol, reports), ...]) (GIBU over the protocols; [INV]_M needs matrices)",
    "ibu_m": "privest.gibu([(protocol, reports), ...])",
    "krr_mle": "privest.krr_mle(np.bincount(reports, minlength=k), eps) for GRR, privest.ibu(protocol, reports) "
               "for any protocol",
    "rap": "protocol.estimate(reports) or privest.ibu(protocol, reports) (rap takes RAPPOR's bits and eps)",
}
"""What each estimator that cannot take a protocol suggests instead."""


def _function_name(value: Callable) -> str:
    module, name = getattr(value, "__module__", "") or "", getattr(value, "__name__", type(value).__name__)
    if module.startswith("privest.protocols") and name.lower() in PROTOCOL_NAMES:
        return _constructor(name.lower())
    if module.startswith(("privest.mechanisms", "privest.shokri")) and name in MATRIX_NAMES:
        return "privest.shokri.shokri" if name == "shokri" else f"privest.{name}"
    return name


def _named(value: str) -> tuple[str, str] | None:
    """('protocol' or 'mechanism', the constructor's call) for the name of one, else None."""
    key = value.strip().lower()
    if key in PROTOCOL_NAMES:
        return "protocol", f"{_constructor(key)}(k, eps)"
    if key in MATRIX_NAMES:
        return "mechanism", f"privest.{key}(k, eps)" if key != "shokri" else "privest.shokri.shokri(distances, Q)"
    if key in ("rappor", "rap"):
        return "protocol", "privest.rappor_group(reports)"
    return None


def refuse_matrix(A: Any, name: str, function: str, data: str = "counts", what: str = "a matrix",
                  constructors: bool = True) -> None:
    """Raise a TypeError naming what to call if ``A``, where ``function`` needs a mechanism matrix (or ``what`` it
    needs), is a protocol, a protocol's or mechanism's name, the constructor itself, a group or reports; return if it
    may be what the function takes. ``data`` names the argument that goes with A in the suggested call; without
    ``constructors`` (a function that takes no matrix) a mechanism's name or a function is left to the usual check."""
    if isinstance(A, np.ndarray | list):
        return
    prefix, instead = f"{function}: {name}", MATRIX_INSTEAD.get(function, "privest.ibu(protocol, reports)")
    if isinstance(A, Protocol):
        raise TypeError(f"{prefix} is the protocol {A!r}, not {what}: {instead}")
    if isinstance(A, str):
        named = _named(A)
        if named is None:
            return
        kind, call = named
        if kind == "protocol":
            raise TypeError(f"{prefix} is {A!r}, a protocol's name, not {what}: build the protocol, {call}, then "
                            f"{instead}")
        if not constructors:
            return
        raise TypeError(f"{prefix} is {A!r}, a mechanism's name: pass its matrix, {function}({call}, {data})")
    if isinstance(A, _GROUPS):
        raise TypeError(f"{prefix} is a {type(A).__name__}, not {what}: its estimate is privest.ibu(group)")
    if isinstance(A, _REPORTS | RapporReports):
        raise TypeError(f"{prefix} is a protocol's reports ({type(A).__name__}), not {what}: {instead}")
    if callable(A) and constructors:
        made = _function_name(A)
        raise TypeError(f"{prefix} is the function {made}, not what it builds: call it, {function}({made}(k, eps), "
                        f"{data})")


def refuse_protocol_reports(A: Any, q: Any, function: str) -> None:
    """``ibu``'s wrong calls: A a name, a constructor, a list of groups or pairs, reports; the protocol after its
    reports; counts before the matrix. Returns if (A, q) may be what ibu takes."""
    if isinstance(A, np.ndarray):
        if isinstance(q, Protocol):
            raise TypeError(f"{function}: q is the protocol {q!r}: the protocol comes first, {function}(protocol, "
                            "reports)")
        if A.ndim == 1 and isinstance(q, np.ndarray) and q.ndim == 2:
            raise TypeError(f"{function}: A is 1-D and q 2-D: the matrix comes first, {function}(A, counts)")
        return
    if isinstance(A, Protocol):
        if q is None:
            raise TypeError(f"{function}: q, the protocol's reports, is required: {function}(protocol, reports)")
        return
    if isinstance(A, _GROUPS):
        return
    if isinstance(A, str):
        named = _named(A)
        if named is None:
            return
        kind, call = named
        if call.startswith("privest.rappor_group"):
            raise TypeError(f"{function}: A is {A!r}, a name: RAPPOR's reports go as {function}({call})")
        if kind == "protocol":
            raise TypeError(f"{function}: A is {A!r}, a protocol's name: pass the protocol itself, "
                            f"{function}({call}, reports)")
        raise TypeError(f"{function}: A is {A!r}, a mechanism's name: pass its matrix, {function}({call}, counts)")
    if isinstance(A, _REPORTS | RapporReports):
        call = f"{function}(privest.rappor_group(reports))" if isinstance(A, RapporReports) else (
            f"{function}(protocol, reports)")
        raise TypeError(f"{function}: A is a protocol's reports ({type(A).__name__}) without the protocol: {call}")
    if isinstance(A, tuple) and len(A) == 2 and (isinstance(A[0], Protocol) or _ndim(A[0]) == 2):
        raise TypeError(f"{function}: A is a (mechanism, reports) pair: {function}(mechanism, reports), or "
                        "privest.gibu([pair])")
    if isinstance(A, list | tuple) and any(_is_group_like(item) or isinstance(item, Protocol) for item in A):
        raise TypeError(f"{function}: A is a list of groups or pairs: that is privest.gibu(groups); {function} takes "
                        f"one, {function}(protocol, reports) or {function}(A, counts)")
    if callable(A):
        made = _function_name(A)
        what = "reports" if made.rpartition(".")[2] in PROTOCOL_NAMES else "counts"
        raise TypeError(f"{function}: A is the function {made}, not what it builds: call it, "
                        f"{function}({made}(k, eps), {what})")


def _ndim(value: Any) -> int:
    """The number of dimensions numpy sees in value (-1 where it sees none: a ragged list)."""
    try:
        return int(np.ndim(value))
    except ValueError:
        return -1


def _is_group_like(item: Any) -> bool:
    """A group, or a 2-tuple whose first item is a protocol or a 2-D matrix: what a list of groups holds."""
    if isinstance(item, _GROUPS):
        return True
    return isinstance(item, tuple) and len(item) == 2 and (
        isinstance(item[0], Protocol) or (isinstance(item[0], np.ndarray | list) and _ndim(item[0]) == 2))


def refuse_groups(groups: Any, function: str, call: str) -> None:
    """Raise a TypeError naming what to call if ``groups``, where ``function`` takes a list of groups or pairs, is
    one protocol, one matrix or array, one group, one pair, a name, or a list holding a protocol without its reports,
    reports without their mechanism, a pair the wrong way round or a name. ``call`` is the right call with ``{}`` for
    the list, e.g. ``"gibu({})"``. Returns if every item may be what the function takes."""
    one = call.format("[(protocol, reports)]")
    if isinstance(groups, Protocol):
        raise TypeError(f"{function}: groups is the protocol {groups!r}: {function} takes a list of (protocol, "
                        f"reports) pairs, {one}")
    if isinstance(groups, _GROUPS):
        raise TypeError(f"{function}: groups is one {type(groups).__name__}: {function} takes a list, "
                        f"{call.format('[group]')}")
    if isinstance(groups, np.ndarray | _REPORTS):
        raise TypeError(f"{function}: groups is an array, not a list of pairs: {call.format('[(A, counts)]')} for a "
                        f"matrix and its counts, {one} for a protocol's reports")
    if isinstance(groups, str):
        named = _named(groups)
        built = named[1] if named else "the protocol"
        pairs = call.format(f"[({built}, reports)]")
        raise TypeError(f"{function}: groups is {groups!r}, not a list of pairs: {pairs}")
    if isinstance(groups, tuple) and _is_group_like(groups) and not _is_group_like(groups[1]):
        raise TypeError(f"{function}: groups is one (mechanism, reports) pair: {function} takes a list of them, "
                        f"{call.format('[(mechanism, reports)]')}")
    if not isinstance(groups, Sequence):
        return
    for i, item in enumerate(groups):
        _refuse_item(item, f"{function}: groups[{i}]", one)


def _refuse_item(item: Any, prefix: str, one: str) -> None:
    if isinstance(item, _GROUPS):
        return
    if isinstance(item, Protocol):
        raise TypeError(f"{prefix} is the protocol {item!r} without its reports: pass (protocol, reports) pairs, {one}")
    if isinstance(item, np.ndarray | _REPORTS | RapporReports):
        raise TypeError(f"{prefix} is an array ({type(item).__name__}) without its mechanism: pass (protocol, "
                        f"reports) or (matrix, counts) pairs, {one}")
    if not (isinstance(item, tuple) and len(item) == 2):
        return
    first, second = item
    if isinstance(second, Protocol) and not isinstance(first, Protocol):
        raise TypeError(f"{prefix} is (reports, protocol): the protocol comes first, (protocol, reports)")
    if isinstance(first, str) and (named := _named(first)) is not None:
        raise TypeError(f"{prefix}[0] is {first!r}, a {named[0]}'s name: pass the {named[0]} itself, "
                        f"({named[1]}, reports)")
    if callable(first) and not isinstance(first, Protocol | np.ndarray):
        made = _function_name(first)
        raise TypeError(f"{prefix}[0] is the function {made}, not what it builds: call it, ({made}(k, eps), reports)")
