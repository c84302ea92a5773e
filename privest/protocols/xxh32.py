"""xxh32 of the decimal string of a value, vectorised: the hash of local hashing (BLH, OLH), equal to
``xxhash.xxh32(str(v).encode(), seed)`` as the peers compute it, without a Python loop or the xxhash package.
Local hashing's table of every seed's hashes of 0..k-1 (``_hash_table``), its membership matrix (``_members``), its
support counts (``_support``) and the hashes of value-seed pairs run in the compiled kernel (``privest._kernel``:
``hash_table``, ``hash_members``, ``hash_support``, ``hash_values``; about 1 ns a hash with AVX2) where it is built,
else in numpy (30-70 ns a hash).
"""


import numpy as np

from privest._checks import (
    check_integers,
)

try:  # the compiled table (privest/_kernel.c), built with the package where a C compiler is found
    from privest import _kernel
except ImportError:  # then numpy computes the same hashes
    _kernel = None
if _kernel is not None and not hasattr(_kernel, "hash_support"):  # a build of an older _kernel.c: numpy, until rebuilt
    _kernel = None

__all__ = [
    "xxh32_decimal",
]

_P1, _P2, _P3, _P4, _P5 = (np.uint32(p) for p in (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1))


def _rotl(h: np.ndarray, r: int) -> np.ndarray:
    return (h << np.uint32(r)) | (h >> np.uint32(32 - r))


def _xxh32_decimal_fixed(values: np.ndarray, seeds: np.ndarray, length: int) -> np.ndarray:
    """xxh32(str(v).encode(), seed) for values that all have ``length`` (< 16) decimal digits, broadcast with seeds.

    XXH32 on an input shorter than 16 bytes: h = seed + P5 + len; each 4-byte little-endian word w: h += w P3,
    h = rotl(h, 17) P4; each remaining byte b: h += b P5, h = rotl(h, 11) P1; then the avalanche. All mod 2^32.
    """
    digits = [((values // 10 ** (length - 1 - j)) % 10 + 48).astype(np.uint32) for j in range(length)]
    h = seeds.astype(np.uint32) + (_P5 + np.uint32(length))
    for start in range(0, length - length % 4, 4):
        word = digits[start] | digits[start + 1] << 8 | digits[start + 2] << 16 | digits[start + 3] << 24
        h = _rotl(h + word * _P3, 17) * _P4
    for byte in digits[length - length % 4:]:
        h = _rotl(h + byte * _P5, 11) * _P1
    h = (h ^ (h >> np.uint32(15))) * _P2
    h = (h ^ (h >> np.uint32(13))) * _P3
    return h ^ (h >> np.uint32(16))


def _decimal_length(values: np.ndarray) -> np.ndarray:
    length = np.ones(values.shape, dtype=np.int64)
    for power in range(1, 16):
        length += values >= 10**power
    return length


def xxh32_decimal(values: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """The 32-bit xxHash of each value's decimal string under each seed, vectorised.

    Equal to ``xxhash.xxh32(str(v).encode(), seed=s).intdigest()`` (the hash the peers multi-freq-ldpy and pure-LDP
    use for local hashing, after Wang et al.'s code), without a Python loop.

    Parameters
    ----------
    values : array_like of int
        Non-negative integers below 10^15.
    seeds : array_like of int
        Non-negative seeds, taken modulo 2^32 as xxhash does; broadcast against values.

    Returns
    -------
    numpy.ndarray of uint32
        The hashes, of the broadcast shape.
    """
    values = check_integers(values, "values", 0, 10**15)
    seeds = check_integers(seeds, "seeds", 0, None).astype(np.uint64).astype(np.uint32)
    values, seeds = np.broadcast_arrays(values, seeds)
    if _kernel is not None:  # one pass in C, the same hashes
        hashes = np.empty(values.shape, dtype=np.uint32)
        _kernel.hash_values(np.ascontiguousarray(values, dtype=np.int64).reshape(-1),
                            np.ascontiguousarray(seeds).reshape(-1), hashes.reshape(-1), values.size)
        return hashes
    lengths = _decimal_length(values)
    hashes = np.empty(values.shape, dtype=np.uint32)
    for length in np.unique(lengths):
        where = lengths == length
        hashes[where] = _xxh32_decimal_fixed(values[where], seeds[where], int(length))
    return hashes


def _hash_table(seeds: np.ndarray, k: int) -> np.ndarray:
    """xxh32_decimal(v, seed) for every seed (rows) and v in 0..k-1 (columns), shape (len(seeds), k): in the compiled
    kernel where it is built; else in numpy, where the values of one decimal length are a contiguous block of
    columns, hashed by broadcasting without masks."""
    table = np.empty((seeds.size, k), dtype=np.uint32)
    if _kernel is not None:
        _kernel.hash_table(np.ascontiguousarray(seeds, dtype=np.uint32), table, seeds.size, k)
        return table
    seeds = seeds.astype(np.uint32)[:, None]
    for length in range(1, len(str(k - 1)) + 1):
        low, high = (0 if length == 1 else 10 ** (length - 1)), min(k, 10**length)
        table[:, low:high] = _xxh32_decimal_fixed(np.arange(low, high)[None, :], seeds, length)
    return table


def _members(seeds: np.ndarray, values: np.ndarray, k: int, g: int) -> np.ndarray:
    """Local hashing's membership, shape (len(seeds), k) bool: xxh32_decimal(v, seeds[i]) mod g == values[i] (g = 2^32
    compares the hash itself), in the compiled kernel where it is built (no (n, k) table of hashes), else in numpy."""
    if _kernel is not None:
        member = np.empty((seeds.size, k), dtype=bool)
        _kernel.hash_members(np.ascontiguousarray(seeds, dtype=np.uint32), np.ascontiguousarray(values, dtype=np.int64),
                             member, seeds.size, k, g)
        return member
    table = _hash_table(seeds, k)
    return (table if g == 2**32 else table % np.uint32(g)) == np.asarray(values)[:, None]


def _support(seeds: np.ndarray, values: np.ndarray, k: int, g: int) -> np.ndarray | None:
    """Local hashing's support counts, shape (k,) int64: how many i have xxh32_decimal(v, seeds[i]) mod g ==
    values[i], for each v, in the compiled kernel (no (n, k) matrix); None where it is not built."""
    if _kernel is None:
        return None
    counts = np.zeros(k, dtype=np.int64)
    _kernel.hash_support(np.ascontiguousarray(seeds, dtype=np.uint32), np.ascontiguousarray(values, dtype=np.int64),
                         counts, seeds.size, k, g)
    return counts
