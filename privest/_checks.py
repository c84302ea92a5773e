"""The argument checks of privest's public functions: one place, one wording (over 500 lines because every
validator of the library lives here, docs/layout.md's rule, and no line of it holds a second idea).

A wrong type raises TypeError, a wrong value ValueError; every message starts with the argument's name and shows
what was given, e.g. "max_iter must be an integer >= 1, got 5.0 (float)". Each check costs O(size of the input)
and runs once per public call, never inside an iteration. numpy integers count as integers and numpy floats as
numbers; bool is neither (True is not a count of secrets).
"""

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

try:  # privest's compiled kernel (privest/_kernel.c): one pass over a mechanism where it is built
    from privest import _kernel
except ImportError:  # then numpy's passes
    _kernel = None
if _kernel is not None and not hasattr(_kernel, "mechanism_summary"):  # a build of an older _kernel.c
    _kernel = None


def describe(value: Any) -> str:
    """A value as a message shows it: its repr, cut to 60 characters, and its type."""
    text = repr(value)
    return f"{text[:57] + '...' if len(text) > 60 else text} ({type(value).__name__})"


def check_int(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """value as a Python int: an int or numpy integer (not a bool, not a float), within [minimum, maximum]."""
    if type(value) is not int:  # a plain int (the usual case) skips the type tests; bool is not int here
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            bound = "" if minimum is None else f" >= {minimum}"
            raise TypeError(f"{name} must be an integer{bound}, got {describe(value)}")
        value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        within = f" in {minimum}..{maximum}" if maximum is not None else f" >= {minimum}"
        raise ValueError(f"{name} must be an integer{within}, got {value}")
    return value


def check_real(value: Any, name: str, *, positive: bool = False, non_negative: bool = False,
               finite: bool = True) -> float:
    """value as a float: a real number (int, float or a numpy scalar; not a bool, a string or None), finite unless
    ``finite=False`` (NaN is never accepted), positive or non-negative if asked."""
    if type(value) is not float:  # a plain float (the usual case) skips the type tests (an ABC's isinstance)
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a real number, got {describe(value)}")
        value = float(value)
    if math.isnan(value) or (finite and math.isinf(value)) or (positive and not value > 0) or (
            non_negative and not value >= 0):
        what = "a positive" if positive else "a non-negative" if non_negative else "a"
        raise ValueError(f"{name} must be {what}{' finite' if finite else ''} number, got {value!r}")
    return value


def check_positive(value: Any, name: str) -> float:
    """value as a finite positive float (an eps, a delta, a tolerance)."""
    return check_real(value, name, positive=True)


def check_between(value: Any, name: str, low: float, high: float, why: str = "") -> float:
    """value as a finite float in [low, high]; ``why`` (e.g. "(g = round(e^eps) + 1 must fit the 32-bit hash)") tells
    the message's reader where the bounds come from."""
    value = check_real(value, name)
    if not low <= value <= high:
        raise ValueError(f"{name} must be a number in [{low!r}, {high!r}]{' ' + why if why else ''}, got {value!r}")
    return value


def check_non_negative(value: Any, name: str) -> float:
    """value as a finite non-negative float."""
    return check_real(value, name, non_negative=True)


def check_choice(value: Any, name: str, choices: Sequence[Any]) -> Any:
    """value, one of ``choices`` (strings, and None where None is a choice)."""
    if not (value is None or isinstance(value, str)):
        raise TypeError(f"{name} must be one of {list(choices)}, got {describe(value)}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_text(value: Any, name: str) -> str:
    """value, a string."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {describe(value)}")
    return value


def check_instance(value: Any, name: str, cls: type | tuple[type, ...], what: str) -> Any:
    """value, an instance of cls (``what`` names the type in the message)."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be {what}, got {describe(value)}")
    return value


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """rng, a numpy Generator: a seed or the legacy RandomState would make the draws depend on the caller."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (e.g. privest.rng_for(seed, ...)), got "
                        f"{describe(rng)}")
    return rng


def check_mapping(value: Any, name: str, keys: Sequence[str]) -> Mapping:
    """value, a mapping that holds every one of ``keys``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping (e.g. a dict or an npz file), got {describe(value)}")
    missing = [key for key in keys if key not in value]
    if missing:
        raise ValueError(f"{name} lacks the keys {missing}")
    return value


def check_sequence(value: Any, name: str, minimum: int = 0) -> Sequence:
    """value, a list or tuple (not a string, not an array's single item) of at least ``minimum`` items."""
    if type(value) is not list and type(value) is not tuple and (  # lists and tuples skip the ABC's isinstance
            isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence | np.ndarray)):
        raise TypeError(f"{name} must be a list, got {describe(value)}")
    if len(value) < minimum:
        raise ValueError(f"{name} must hold at least {minimum} item{'s' if minimum > 1 else ''}, got {len(value)}")
    return value


def as_array(value: Any, name: str, dtype: Any = np.float64) -> np.ndarray:
    """value as an array of numbers (float64 unless told), else a TypeError naming the argument."""
    if value is None or isinstance(value, str | bytes | Mapping | set):
        raise TypeError(f"{name} must be an array of numbers, got {describe(value)}")
    try:
        array = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers of one shape, got {describe(value)}") from None
    return array


def _check_shape(array: np.ndarray, name: str, ndim: int | None, shape: tuple[int | None, ...] | None) -> None:
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {array.shape}")
    if shape is not None and (array.ndim != len(shape) or any(
            want is not None and got != want for got, want in zip(array.shape, shape, strict=True))):
        wanted = "(" + ", ".join("." if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name} must have shape {wanted}, got {array.shape}")


def check_finite(value: Any, name: str, ndim: int | None = None,
                 shape: tuple[int | None, ...] | None = None) -> np.ndarray:
    """value as a float64 array of finite numbers, of ``ndim`` dimensions or of ``shape`` (None: any length)."""
    array = as_array(value, name)
    _check_shape(array, name, ndim, shape)
    if not np.all(np.isfinite(array)):
        bad = array[~np.isfinite(array)].flat[0]
        raise ValueError(f"{name} must hold finite numbers only, found {bad}")
    return array


def check_non_negative_array(value: Any, name: str, ndim: int | None = None,
                             shape: tuple[int | None, ...] | None = None, positive_sum: bool = False) -> np.ndarray:
    """value as a float64 array of finite non-negative numbers (counts, weights), with a positive sum if asked."""
    array = as_array(value, name)
    _check_shape(array, name, ndim, shape)
    if array.size:  # one pass for the sum, one for the smallest entry: NaN fails both tests, an infinity the first
        total = array.sum()
        if total < np.inf and array.min() >= 0:
            if positive_sum and not total > 0:
                raise ValueError(f"{name} must have a positive sum, got {total!r}")
            return array
    check_finite(array, name)  # else the entry that fails, named
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative, found {array.min()!r}")
    if positive_sum and not array.sum() > 0:
        raise ValueError(f"{name} must have a positive sum, got {array.sum()!r}")
    return array


def check_distribution(value: Any, name: str, length: int | None = None, atol: float = 1e-6) -> np.ndarray:
    """value as a float64 probability vector: 1-D (of ``length``), finite, non-negative, summing to 1 within atol."""
    array = as_array(value, name)
    _check_shape(array, name, None, (length,))
    what = f"{name} must be a probability distribution (finite, non-negative, summing to 1 within {atol})"
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what}, found {array[~np.isfinite(array)].flat[0]}")
    if np.any(array < 0):
        raise ValueError(f"{what}, found {array.min()!r}")
    if array.size == 0 or abs(array.sum() - 1.0) > atol:
        raise ValueError(f"{what}, sums to {array.sum()!r}")
    return array


def check_matrix(value: Any, name: str) -> np.ndarray:
    """value as a non-empty 2-D float64 matrix of finite non-negative entries."""
    array = as_array(value, name)
    if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must hold finite entries only")
    if np.any(array < 0):
        raise ValueError(f"{name} must be non-negative, found {array.min()!r}")
    return array


def check_distances(value: Any, name: str = "distances", k: int | None = None) -> np.ndarray:
    """value as a (k, k) float64 matrix of finite non-negative distances."""
    d = as_array(value, name)
    if d.ndim != 2 or d.shape[0] != d.shape[1] or d.shape[0] < 1:
        raise ValueError(f"{name} must be a square (k, k) matrix, got shape {d.shape}")
    if k is not None and d.shape[0] != k:
        raise ValueError(f"{name} must have shape ({k}, {k}), got {d.shape}")
    if not np.all(np.isfinite(d)) or np.any(d < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    return d


def check_integers(value: Any, name: str, low: int | None = 0, high: int | None = None, ndim: int | None = None,
                   shape: tuple[int | None, ...] | None = None, integer_dtype: bool = False,
                   keep_dtype: bool = False) -> np.ndarray:
    """value as an int64 array of integers in low..high - 1 (None: unbounded). An integer dtype passes as is; a float
    array passes if every entry is a whole number, unless ``integer_dtype`` asks for an integer dtype.
    ``keep_dtype``: an array of an integer dtype is returned in it (no int64 copy of a large int8 matrix)."""
    if value is None or isinstance(value, str | bytes | Mapping | set):
        raise TypeError(f"{name} must be an array of integers, got {describe(value)}")
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind not in "iu" and (integer_dtype or kind != "f"):
        if kind == "f" and array.size and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
            raise TypeError(f"{name} must be an integer array, got dtype {array.dtype}")
        if kind == "f":
            raise ValueError(f"{name} must hold integers, got dtype {array.dtype} with non-integer values")
        raise TypeError(f"{name} must be an array of integers, got dtype {array.dtype}")
    _check_shape(array, name, ndim, shape)
    if kind == "f":
        if not np.all(np.isfinite(array)) or np.any(array != np.round(array)):
            bad = array[~np.isfinite(array) | (array != np.round(array))].flat[0]
            raise ValueError(f"{name} must hold integers, found {bad}")
    if kind == "u" and array.dtype.itemsize == 8 and array.size and array.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must hold integers below 2^63, found {array.max()}")
    if not (keep_dtype and kind in "iu"):
        array = array.astype(np.int64)
    if array.size and ((low is not None and array.min() < low) or (high is not None and array.max() >= high)):
        span = f"{low if low is not None else '-inf'}..{high - 1 if high is not None else 'inf'}"
        raise ValueError(f"{name} must lie in {span}, got values in {array.min()}..{array.max()}")
    return array


def check_bits(value: Any, name: str = "bits", k: int | None = None, convert: bool = True) -> np.ndarray:
    """value as a 2-D uint8 matrix of 0/1 entries (bool or integers; floats only if 0.0 or 1.0), k columns if given;
    ``convert=False`` returns the array as given (no copy)."""
    if value is None or isinstance(value, str | bytes | Mapping | set):
        raise TypeError(f"{name} must be a 2-D array of 0/1 bits, got {describe(value)}")
    bits = np.asarray(value)
    if bits.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a 2-D array of 0/1 bits, got dtype {bits.dtype}")
    if bits.ndim != 2 or bits.shape[1] < 1 or (k is not None and bits.shape[1] != k):
        columns = "k" if k is None else str(k)
        raise ValueError(f"{name} must be a 2-D array of bit vectors (reports x {columns}), got shape {bits.shape}")
    if bits.dtype.kind != "b" and not np.all((bits == 0) | (bits == 1)):
        raise ValueError(f"{name} must hold only 0 and 1")
    return bits.astype(np.uint8) if convert else bits


def check_flag(value: Any, name: str) -> bool:
    """value as a bool: True or False (numpy's bools too), not a number or a string."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def check_packed_bits(value: Any, name: str, k: int) -> np.ndarray:
    """value as a uint8 matrix of shape (n, ceil(k / 8)): n bit vectors of k bits as ``numpy.packbits(axis=1)`` packs
    them, the padding bits after bit k - 1 zero (a TypeError for another dtype, a ValueError for another shape or a
    set padding bit)."""
    if not isinstance(value, np.ndarray) or value.dtype != np.uint8:
        raise TypeError(f"{name} must be a uint8 array of bit-packed reports, got {describe(value)}")
    width = -(-k // 8)
    if value.ndim != 2 or value.shape[1] != width:
        raise ValueError(f"{name} must have shape (n, {width}) ({k} bits packed by numpy.packbits), got shape "
                         f"{value.shape}")
    if k % 8 and value.size and np.any(value[:, -1] & np.uint8((1 << (8 - k % 8)) - 1)):
        raise ValueError(f"{name}: the padding bits after bit {k - 1} must be 0")
    return value


def check_row_stochastic(A: np.ndarray, name: str = "A", atol: float = 1e-12) -> np.ndarray:
    """A as a float64 array, after checking that it is a mechanism: 2-D, finite, non-negative, rows summing to 1.

    Parameters
    ----------
    A : array_like, shape (k, m)
        The candidate mechanism ``A[x, z] = P(z | x)``.
    name : str
        The argument's name, used in the error message.
    atol : float
        How far from 1 a row sum may be.

    Returns
    -------
    numpy.ndarray, shape (k, m)
        A as float64.

    Raises
    ------
    ValueError
        If A is not a non-empty 2-D matrix of finite non-negative entries, or a row sum differs from 1 by more than
        ``atol``; the message names ``name`` and the worst row.
    """
    return check_mechanism_columns(A, name, atol)[0]


def check_mechanism_columns(A: np.ndarray, name: str = "A", atol: float = 1e-12,
                            start: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``check_row_stochastic``, and each column's largest entry (m,), from one pass over A where privest's compiled
    kernel is built and A is C-contiguous (else numpy's: the smallest entry, the row sums, the column maxima). With
    ``start`` (a value f), that pass also gives sum_x f A[x, z] for every column z, summed as the compiled IBU loop
    sums G^T theta (IBU's first product from the uniform start theta = (f, ..., f)); else, or without the kernel,
    None in its place."""
    A = as_array(A, name)
    atol = check_non_negative(atol, "atol")
    if A.ndim != 2 or A.size == 0:
        check_matrix(A, name)  # raises, naming the shape
    if _kernel is not None and A.flags.c_contiguous:
        column_max = np.empty(A.shape[1])
        product = None if start is None else np.empty(A.shape[1])
        entries_ok, error, worst = _kernel.mechanism_summary(A, column_max, *A.shape, product, float(start or 0.0))
        if entries_ok and error <= atol:
            return A, column_max, product
    else:  # the smallest entry (NaN if any is) and the row sums (not finite if an entry is infinite)
        errors = np.abs(A.sum(axis=1) - 1.0)
        if A.min() >= 0 and errors.max() <= atol:
            return A, A.max(axis=0), None
        worst = int(np.argmax(errors))
    check_matrix(A, name)  # raises for a non-finite or negative entry, naming it
    raise ValueError(f"{name} must be row-stochastic: row {worst} sums to {A[worst].sum()!r} (tolerance {atol})")


def check_secrets(secrets: np.ndarray, k: int) -> np.ndarray:
    """secrets as an int64 array, checked 1-D, of an integer dtype (else a TypeError), with values in 0..k-1 (else a
    ValueError); k an integer >= 1."""
    k = check_int(k, "k", minimum=1)
    return check_integers(secrets, "secrets", 0, k, ndim=1, integer_dtype=True)


def check_weights(v: np.ndarray, length: int, name: str) -> np.ndarray:
    """v as float64 of shape (length,), non-negative with a positive sum: counts, frequencies or weights."""
    return check_non_negative_array(v, name, shape=(length,), positive_sum=True)


def check_stopping(delta: float, max_iter: int) -> tuple[float, int]:
    """IBU's stopping rule: delta finite and positive, max_iter an integer >= 1."""
    return check_positive(delta, "delta"), check_int(max_iter, "max_iter", minimum=1)


def check_eps_values(eps: float | np.ndarray, name: str = "eps") -> np.ndarray:
    """eps, one value or an array of them, as a float64 array, every entry finite and positive."""
    if not isinstance(eps, np.ndarray | list | tuple):
        return np.asarray(check_positive(eps, name), dtype=np.float64)
    eps = as_array(eps, name)
    if eps.size == 0 or not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError(f"{name} must be finite and positive, got {eps}")
    return eps


def check_distribution_pair(p: np.ndarray, q: np.ndarray, hint: str = "") -> tuple[np.ndarray, np.ndarray]:
    """p and q as probability vectors of one length, each renormalised to sum 1; ``hint`` (what to call for a vector
    that is not a distribution) ends the message of one that is not."""
    p, q = check_vector_pair(p, q, finite=False)
    try:
        p, q = check_distribution(p, "p"), check_distribution(q, "q")
    except ValueError as error:
        if not hint:
            raise
        raise ValueError(f"{error}; {hint}") from None
    return p / p.sum(), q / q.sum()


def check_vector_pair(p: np.ndarray, q: np.ndarray, finite: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """p and q as float64 vectors of one length (at least 1), of finite numbers unless ``finite`` is False."""
    p, q = as_array(p, "p"), as_array(q, "q")
    if p.ndim != 1 or p.shape != q.shape or p.size == 0:
        raise ValueError(f"p and q must be 1-D of one length (at least 1), got shapes {p.shape} and {q.shape}")
    if finite:
        for name, array in (("p", p), ("q", q)):
            if not np.all(np.isfinite(array)):
                raise ValueError(f"{name} must hold finite numbers only, found {array[~np.isfinite(array)][0]}")
    return p, q


def check_group_size(n: int) -> int:
    """The count paper's group size n (counts 0..n), an integer >= 1."""
    return check_int(n, "n", minimum=1)


def check_alpha(alpha: float) -> float:
    """The count paper's alpha = e^-eps, in (0, 1]."""
    value = check_real(alpha, "alpha", finite=False)
    if not (0 < value <= 1):
        raise ValueError(f"alpha must lie in (0, 1] (alpha = e^-eps), got {alpha!r}")
    return value


def check_count_mechanism(P: np.ndarray, column_stochastic: bool = False) -> np.ndarray:
    """P as a square (n+1, n+1) float64 matrix of finite non-negative entries; with ``column_stochastic``, each
    column summing to 1 within 1e-9 (a mechanism in this module's convention)."""
    P = as_array(P, "P")
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] < 2:
        raise ValueError(f"P must be a square (n+1, n+1) matrix with n >= 1, got shape {P.shape}")
    P = check_non_negative_array(P, "P")
    if column_stochastic:
        error = np.abs(P.sum(axis=0) - 1.0)
        if error.max() > 1e-9:
            worst = int(np.argmax(error))
            raise ValueError(f"P must be column-stochastic (P[j, i] = P(j | i)): column {worst} sums to "
                             f"{P[:, worst].sum()!r}")
    return P


def check_property_names(names: Iterable[str], known: Sequence[str]) -> tuple[str, ...]:
    """A list of property names, each one of ``known``, returned in the order of ``known``."""
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise TypeError(f"properties must be a list of property names, got {describe(names)}")
    names = tuple(names)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown properties {unknown}: choose from {list(known)}")
    return tuple(name for name in known if name in names)


def check_count_pair(true: np.ndarray, noisy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The true and noisy counts of the groups, finite, non-empty and of one shape."""
    true, noisy = check_finite(true, "true"), check_finite(noisy, "noisy")
    if true.shape != noisy.shape or true.size == 0:
        raise ValueError(f"true and noisy must be non-empty of one shape, got {true.shape} and {noisy.shape}")
    return true, noisy


def check_loss_and_prior(distances, prior):
    """Shokri's loss (a finite non-negative symmetric square matrix, zero diagonal) and prior (uniform if None)."""
    loss = as_array(distances, "distances")
    if loss.ndim != 2 or loss.shape[0] != loss.shape[1] or loss.shape[0] < 1:
        raise ValueError(f"distances must be a non-empty square matrix, got shape {loss.shape}")
    if not np.isfinite(loss).all():
        raise ValueError("distances must be finite")
    if (loss < 0).any():
        raise ValueError("distances must be non-negative")
    if (np.diag(loss) != 0).any():
        raise ValueError("distances must have a zero diagonal")
    if not np.allclose(loss, loss.T, rtol=1e-12, atol=0.0):
        raise ValueError("distances must be symmetric")
    k = loss.shape[0]
    if prior is None:
        return loss, np.full(k, 1.0 / k)
    pi = as_array(prior, "prior")
    if pi.shape != (k,):
        raise ValueError(f"prior must have shape ({k},) to match distances, got {pi.shape}")
    if not np.isfinite(pi).all() or (pi < 0).any() or abs(pi.sum() - 1.0) > 1e-9:
        raise ValueError("prior must be a distribution: non-negative entries summing to 1")
    return loss, pi


def check_quality_loss(Q):
    """Shokri's quality-loss bound Q, a real number >= 0."""
    Q = check_real(Q, "Q")
    if Q < 0:
        raise ValueError(f"Q = {Q} is infeasible: the expected quality loss is never negative, so Q must be >= 0")
    return Q


def check_values_within(value: Any, name: str, low: float, high: float, why: str = "") -> np.ndarray:
    """value as a 1-D float64 array of finite numbers, each in [low, high] (a numeric column's values, or a numeric
    mechanism's reports within its output range); ``why`` says where the bounds come from."""
    array = check_finite(value, name, ndim=1)
    if array.size and (array.min() < low or array.max() > high):
        bad = array[(array < low) | (array > high)][0]
        raise ValueError(f"{name} must lie in [{low!r}, {high!r}]{' ' + why if why else ''}, found {bad!r}")
    return array


def check_bounds(lo: Any, hi: Any) -> tuple[float, float]:
    """(lo, hi), the finite bounds of a numeric column's range, lo < hi."""
    lo, hi = check_real(lo, "lo"), check_real(hi, "hi")
    if not lo < hi:
        raise ValueError(f"hi must be above lo, got lo = {lo!r}, hi = {hi!r}")
    return lo, hi


def check_items(value: Any, name: str, k: int | None = None, ndim: int | None = None) -> np.ndarray:
    """value as a uint64 array of integers in 0..k - 1 (0..2^64 - 1 if k is None): the items of a sketch oracle, a
    Python int, a list of them or an integer array (a float array with whole numbers is refused: float64 cannot hold
    every 64-bit item)."""
    if value is None or isinstance(value, str | bytes | Mapping | set | bool):
        raise TypeError(f"{name} must be an array of integers, got {describe(value)}")
    try:
        array = np.asarray(value)
    except (OverflowError, ValueError) as error:
        raise ValueError(f"{name} must hold integers in 0..2^64 - 1: {error}") from None
    if array.dtype.kind == "O" and array.size and all(type(v) is int for v in array.flat):
        if min(array.flat) < 0 or max(array.flat) >= 2**64:
            raise ValueError(f"{name} must lie in 0..2^64 - 1, got values in {min(array.flat)}..{max(array.flat)}")
        array = array.astype(np.uint64)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an array of integers, got dtype {array.dtype}")
    _check_shape(array, name, ndim, None)
    if array.dtype.kind == "i" and array.size and array.min() < 0:
        raise ValueError(f"{name} must be non-negative items, found {array.min()}")
    array = array.astype(np.uint64)
    if k is not None and array.size and int(array.max()) >= k:
        raise ValueError(f"{name} must lie in 0..{k - 1} (k = {k}), found {int(array.max())}")
    return array


def check_text_array(value: Any, name: str) -> np.ndarray:
    """value as a 1-D numpy array of str (a list or array of strings, none ending in NUL)."""
    if value is None or isinstance(value, str | bytes | Mapping | set):
        raise TypeError(f"{name} must be a 1-D array of strings, got {describe(value)}")
    array = np.asarray(value)
    if array.dtype.kind != "U":
        raise TypeError(f"{name} must be a 1-D array of strings, got dtype {array.dtype}")
    _check_shape(array, name, 1, None)
    if array.size and np.any(np.char.str_len(array) != np.char.str_len(np.char.rstrip(array, "\x00"))):
        raise ValueError(f"{name} must not hold strings that end in the NUL character")
    return array


def check_indices(values: Any, name: str, high: int, shape: tuple | None = None) -> np.ndarray:
    """values as int64 indices in 0..high - 1 of an integer dtype, 1-D (or of ``shape``): a report's hash or row."""
    return check_integers(values, name, 0, high, ndim=1 if shape is None else None, shape=shape, integer_dtype=True)


def check_signs(signs: Any, name: str, shape: tuple) -> np.ndarray:
    """signs as an int64 array of ``shape`` holding only -1 and 1, of an integer dtype."""
    signs = check_integers(signs, name, -1, 2, shape=shape, integer_dtype=True)
    if np.any(signs == 0):
        raise ValueError(f"{name} must hold only -1 and 1")
    return signs
