"""Basic one-time RAPPOR (free-will eq. 12): never a 2^k-column matrix, always bit reports or their statistics."""

from dataclasses import dataclass

import numpy as np

from privest._checks import (
    check_bits,
    check_eps_values,
    check_mapping,
    check_non_negative_array,
    check_positive,
    check_text,
)

__all__ = [
    "RapporReports",
    "distinct_rows",
    "flip_probability",
    "log_probability",
]


def flip_probability(eps: float | np.ndarray) -> float | np.ndarray:
    """The probability 1 / (1 + e^(eps/2)) that RAPPOR flips a bit (free-will eq. 12)."""
    return 1.0 / (1.0 + np.exp(check_eps_values(eps) / 2))


def log_probability(bits: np.ndarray, eps: float) -> np.ndarray:
    """log P(beta | x) for every report beta (rows of ``bits``) and secret x, shape (k, reports).

    IBU paper, lemma in section 4.4: P(beta | x) = p^k e^{-(1/2 + S(beta)/2 - beta_x) eps}, p = e^{eps/2}/(1+e^{eps/2}).
    """
    bits = check_bits(bits)
    eps = check_positive(eps, "eps")
    k = bits.shape[1]
    log_p = eps / 2 - np.logaddexp(0.0, eps / 2)
    s = bits.sum(axis=1)
    return k * log_p - (0.5 + s[None, :] / 2 - bits.T) * eps


def distinct_rows(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a (reports x k) 0/1 or bool matrix, in lexicographic order, and how often each occurs:
    what ``np.unique(bits, axis=0, return_counts=True)`` gives, far faster. Each row is packed into bytes, the bytes
    into 64-bit words, and the words mixed into one 64-bit key; rows are grouped by key, and every row is checked
    equal to the first of its group (a collision of distinct rows, never seen, falls back to comparing whole rows).
    The rows keep the input's dtype; counts are int64."""
    check_bits(bits)
    bits = np.asarray(bits)
    packed = np.packbits(bits, axis=1)
    words, keys = _row_keys(packed)
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    if words.shape[1] == 1 or np.array_equal(words, words[first[inverse]]):
        order = np.lexsort(words[first].T[::-1])
        distinct = np.unpackbits(packed[first[order]], axis=1, count=bits.shape[1])
        return distinct.astype(bits.dtype), counts[order].astype(np.int64)
    rows = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    unique, counts = np.unique(rows, return_counts=True)
    distinct = np.unpackbits(unique.view(np.uint8).reshape(-1, packed.shape[1]), axis=1, count=bits.shape[1])
    return distinct.astype(bits.dtype), counts.astype(np.int64)


def _row_keys(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of a bit-packed (rows x B) uint8 matrix as big-endian 64-bit words (zero-padded; they compare as
    the rows do, lexicographically) and one 64-bit key a row mixing them (the words themselves where one a row)."""
    B = packed.shape[1]
    if B % 8:
        words = np.zeros((packed.shape[0], -(-B // 8) * 8), dtype=np.uint8)
        words[:, :B] = packed
    else:
        words = np.ascontiguousarray(packed)
    words = words.view(">u8")
    if words.shape[1] == 1:
        return words, words[:, 0].astype(np.uint64)
    multipliers = (np.arange(words.shape[1], dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) | np.uint64(1)
    return words, (words.astype(np.uint64) * multipliers).sum(axis=1, dtype=np.uint64)


def _distinct_packed(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a bit-packed (reports x B) uint8 matrix and how often each occurs, without unpacking
    them: rows are grouped by a 64-bit key mixing their bytes (``distinct_rows``' key) and ordered by it (not
    lexicographically), and every repeated row is checked equal to the first of its key (a collision of distinct rows,
    never seen, falls back to ``numpy.unique`` on whole rows, in lexicographic order). Counts are int64."""
    packed = np.ascontiguousarray(packed, dtype=np.uint8)
    if packed.ndim != 2:
        raise ValueError(f"packed must be a 2-D uint8 array, got shape {packed.shape}")
    _, keys = _row_keys(packed)
    order = np.argsort(keys)
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.concatenate([[True], sorted_keys[1:] != sorted_keys[:-1]]))
    counts = np.diff(np.append(starts, keys.size)).astype(np.int64)
    first = order[starts]
    repeated = np.repeat(counts > 1, counts)  # the sorted rows whose key another row shares
    if not repeated.any() or np.array_equal(packed[order[repeated]],
                                            packed[np.repeat(first, counts)[repeated]]):
        return packed[first], counts
    rows = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    unique, counts = np.unique(rows, return_counts=True)
    return unique.view(np.uint8).reshape(-1, packed.shape[1]), counts.astype(np.int64)


_BYTE_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)


def _packed_sizes(packed: np.ndarray) -> np.ndarray:
    """The number of bits set in each row of a bit-packed (rows x B) uint8 matrix, int64: ``numpy.bitwise_count``
    on 64-bit words (numpy >= 2.0), else a 256-entry table of byte popcounts."""
    if hasattr(np, "bitwise_count"):
        B = packed.shape[1]
        words = np.zeros((packed.shape[0], -(-B // 8) * 8), dtype=np.uint8) if B % 8 else None
        if words is not None:
            words[:, :B] = packed
        words = (np.ascontiguousarray(packed) if words is None else words).view(np.uint64)
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    return _BYTE_POPCOUNT[packed].sum(axis=1, dtype=np.int64)


@dataclass(frozen=True)
class RapporReports:
    """The reports of the users of one RAPPOR mechanism, reduced to the distinct bit vectors and their counts.

    Basic one-time RAPPOR (free-will eq. 12): each user's one-hot vector of k bits, every bit flipped with probability
    1 / (1 + e^(eps/2)). Build it with ``RapporReports.from_bits`` from a (users x k) bit matrix (e.g. from
    ``privest.sampling.rappor``); ``rappor_group`` turns it into a GIBU group, ``rap_grouped`` estimates from it.

    Parameters
    ----------
    bits : numpy.ndarray, shape (m, k)
        uint8, each row a distinct report.
    counts : numpy.ndarray, shape (m,)
        The number of users who sent each report.
    eps : float
        The mechanism's eps.

    Raises
    ------
    ValueError
        If bits is not a 2-D 0/1 array, eps is not finite and positive, or counts is not non-negative of shape (m,).
    """

    bits: np.ndarray
    counts: np.ndarray
    eps: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "bits", check_bits(self.bits))
        check_positive(self.eps, "eps")
        check_non_negative_array(self.counts, "counts", shape=(self.bits.shape[0],))
        object.__setattr__(self, "counts", np.asarray(self.counts))

    @classmethod
    def from_bits(cls, bits: np.ndarray, eps: float) -> "RapporReports":
        """Group identical reports of a (users x k) bit matrix (``distinct_rows``)."""
        distinct, counts = distinct_rows(check_bits(bits))
        return cls(distinct.astype(np.uint8), counts, check_positive(eps, "eps"))

    @property
    def k(self) -> int:
        return int(self.bits.shape[1])

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def bit_sums(self) -> np.ndarray:
        """The number of reports with each bit set, shape (k,): n * s[n] of free-will section 5.4 (one BLAS product in
        float64, exact: every partial sum is an integer below 2^53)."""
        return (self.counts.astype(np.float64) @ self.bits).astype(np.int64)

    def to_arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays to store this group in an npz file under ``prefix``."""
        check_text(prefix, "prefix")
        return {f"{prefix}bits": np.packbits(self.bits, axis=1), f"{prefix}counts": self.counts,
                f"{prefix}eps": np.float64(self.eps), f"{prefix}k": np.int64(self.k)}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], prefix: str) -> "RapporReports":
        """The group stored by ``to_arrays`` under ``prefix`` in ``arrays`` (a dict or an npz file)."""
        check_text(prefix, "prefix")
        check_mapping(arrays, "arrays", [f"{prefix}{key}" for key in ("bits", "counts", "eps", "k")])
        k = int(arrays[f"{prefix}k"])
        bits = np.unpackbits(arrays[f"{prefix}bits"], axis=1, count=k)
        return cls(bits, arrays[f"{prefix}counts"], float(arrays[f"{prefix}eps"]))
