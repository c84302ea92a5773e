"""xxh32 and xxh64 of byte strings, vectorised over users: the seeded hashes of the sketch oracles
(``privest.protocols.sketches``) on items anywhere in 0..2^64 - 1 and on strings.

An integer item x is hashed as the peers hash it: the bytes of its decimal string ``str(x)`` (1 to 20 ASCII digits),
so that ``xxh64_decimal(x, seed) == xxhash.xxh64(str(x), seed=seed).intdigest()`` (pure-LDP's ``generate_hash``:
CMS, HCMS, PCS and RAPPOR's Bloom filters) and ``xxh32_decimal_wide(x, seed) == xxhash.xxh32(str(x),
seed=seed).intdigest()`` (pure-LDP's fast local hashing). A string item becomes an integer item first, by
``item_ids``: the xxh64 of its UTF-8 bytes under a seed (default 0), a 64-bit integer; two distinct strings share an
id with probability about n^2 / 2^65 for n distinct strings (below 10^-8 for n = 10^5).

Both hashes follow the reference algorithm (Collet, xxHash specification, version 0.8): 32-byte stripes of four
64-bit lanes (xxh64) or 16-byte stripes of four 32-bit lanes (xxh32) for the long inputs, then the tail by 8-, 4- and
1-byte steps, then the avalanche; numpy's unsigned arithmetic wraps as the specification's does. Inputs of one length
are hashed together, one numpy pass a step.
"""

import numpy as np

from privest._checks import check_int, check_items, check_text_array

__all__ = [
    "item_ids",
    "xxh32_decimal_wide",
    "xxh64_decimal",
]

_Q1, _Q2, _Q3, _Q4, _Q5 = (np.uint64(p) for p in (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                                   0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5))
_P1, _P2, _P3, _P4, _P5 = (np.uint32(p) for p in (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D, 0x27D4EB2F, 0x165667B1))


def _rotl64(h: np.ndarray, r: int) -> np.ndarray:
    return (h << np.uint64(r)) | (h >> np.uint64(64 - r))


def _rotl32(h: np.ndarray, r: int) -> np.ndarray:
    return (h << np.uint32(r)) | (h >> np.uint32(32 - r))


def _word(data: np.ndarray, start: int, size: int, dtype: type) -> np.ndarray:
    """The little-endian word of ``size`` bytes at column ``start`` of the (n, length) uint8 matrix."""
    word = np.zeros(data.shape[0], dtype=dtype)
    for b in range(size):
        word |= data[:, start + b].astype(dtype) << dtype(8 * b)
    return word


def _round64(acc: np.ndarray, word: np.ndarray) -> np.ndarray:
    return _rotl64(acc + word * _Q2, 31) * _Q1


def _xxh64_fixed(data: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """xxh64 of each row of the (n, length) uint8 matrix (all rows of one length) under each row's uint64 seed."""
    length = data.shape[1]
    with np.errstate(over="ignore"):
        start = 0
        if length >= 32:
            lanes = [seeds + _Q1 + _Q2, seeds + _Q2, seeds.copy(), seeds - _Q1]
            while start + 32 <= length:
                lanes = [_round64(lane, _word(data, start + 8 * i, 8, np.uint64)) for i, lane in enumerate(lanes)]
                start += 32
            h = _rotl64(lanes[0], 1) + _rotl64(lanes[1], 7) + _rotl64(lanes[2], 12) + _rotl64(lanes[3], 18)
            for lane in lanes:
                h = (h ^ _round64(np.zeros_like(lane), lane)) * _Q1 + _Q4
        else:
            h = seeds + _Q5
        h = h + np.uint64(length)
        while start + 8 <= length:
            h = _rotl64(h ^ _round64(np.zeros_like(h), _word(data, start, 8, np.uint64)), 27) * _Q1 + _Q4
            start += 8
        if start + 4 <= length:
            h = _rotl64(h ^ (_word(data, start, 4, np.uint64) * _Q1), 23) * _Q2 + _Q3
            start += 4
        for column in range(start, length):
            h = _rotl64(h ^ (data[:, column].astype(np.uint64) * _Q5), 11) * _Q1
        h = (h ^ (h >> np.uint64(33))) * _Q2
        h = (h ^ (h >> np.uint64(29))) * _Q3
        return h ^ (h >> np.uint64(32))


def _xxh32_fixed(data: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """xxh32 of each row of the (n, length) uint8 matrix (all rows of one length) under each row's uint32 seed."""
    length = data.shape[1]
    with np.errstate(over="ignore"):
        start = 0
        if length >= 16:
            lanes = [seeds + _P1 + _P2, seeds + _P2, seeds.copy(), seeds - _P1]
            while start + 16 <= length:
                lanes = [_rotl32(lane + _word(data, start + 4 * i, 4, np.uint32) * _P2, 13) * _P1
                         for i, lane in enumerate(lanes)]
                start += 16
            h = _rotl32(lanes[0], 1) + _rotl32(lanes[1], 7) + _rotl32(lanes[2], 12) + _rotl32(lanes[3], 18)
        else:
            h = seeds + _P5
        h = h + np.uint32(length)
        while start + 4 <= length:
            h = _rotl32(h + _word(data, start, 4, np.uint32) * _P3, 17) * _P4
            start += 4
        for column in range(start, length):
            h = _rotl32(h + data[:, column].astype(np.uint32) * _P5, 11) * _P1
        h = (h ^ (h >> np.uint32(15))) * _P2
        h = (h ^ (h >> np.uint32(13))) * _P3
        return h ^ (h >> np.uint32(16))


def _decimal_digits(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ASCII digits of each uint64 value, right-aligned in an (n, 20) uint8 matrix, and each value's length."""
    digits = np.empty((values.size, 20), dtype=np.uint8)
    rest = values.copy()
    for column in range(19, -1, -1):
        digits[:, column] = (rest % np.uint64(10)).astype(np.uint8) + 48
        rest //= np.uint64(10)
    lengths = np.ones(values.size, dtype=np.int64)
    power = np.uint64(10)
    for size in range(2, 21):
        lengths += values >= power
        if size < 20:
            power = power * np.uint64(10)
    return digits, lengths


def _by_length(digits: np.ndarray, lengths: np.ndarray, seeds: np.ndarray, hash_fixed, dtype: type) -> np.ndarray:
    out = np.empty(lengths.size, dtype=dtype)
    for length in np.unique(lengths):
        where = lengths == length
        out[where] = hash_fixed(digits[where][:, digits.shape[1] - length:], seeds[where])
    return out


def _broadcast(values: object, seeds: object, seed_dtype: type) -> tuple[np.ndarray, np.ndarray, tuple]:
    values = check_items(values, "values")
    seeds = check_items(seeds, "seeds").astype(seed_dtype)  # an xxh32 seed is taken modulo 2^32, as xxhash does
    values, seeds = np.broadcast_arrays(values, seeds)
    return values.ravel(), seeds.ravel(), values.shape


def xxh64_decimal(values: object, seeds: object) -> np.ndarray:
    """xxh64 of each value's decimal string under each seed, vectorised.

    Equal to ``xxhash.xxh64(str(v), seed=s).intdigest()``, the hash of pure-LDP's sketches (``generate_hash``).

    Parameters
    ----------
    values : array_like of int
        Integers in 0..2^64 - 1 (uint64 for those at or above 2^63).
    seeds : array_like of int
        Seeds in 0..2^64 - 1, broadcast against values.

    Returns
    -------
    numpy.ndarray of uint64
        The hashes, of the broadcast shape.

    Examples
    --------
    >>> from privest.protocols import xxh64_decimal
    >>> int(xxh64_decimal(12345, 0))  # == xxhash.xxh64("12345", seed=0).intdigest()
    14335752410685132726
    """
    values, seeds, shape = _broadcast(values, seeds, np.uint64)
    digits, lengths = _decimal_digits(values)
    return _by_length(digits, lengths, seeds, _xxh64_fixed, np.uint64).reshape(shape)


def xxh32_decimal_wide(values: object, seeds: object) -> np.ndarray:
    """xxh32 of each value's decimal string under each seed, for values up to 2^64 - 1 (``xxh32_decimal`` stops
    below 10^15): equal to ``xxhash.xxh32(str(v), seed=s).intdigest()``, the hash of fast local hashing.

    Parameters
    ----------
    values, seeds
        As in ``xxh64_decimal``; a seed is taken modulo 2^32.

    Returns
    -------
    numpy.ndarray of uint32
    """
    values, seeds, shape = _broadcast(values, seeds, np.uint32)
    digits, lengths = _decimal_digits(values)
    return _by_length(digits, lengths, seeds, _xxh32_fixed, np.uint32).reshape(shape)


def item_ids(strings: object, seed: int = 0) -> np.ndarray:
    """Each string's item: the xxh64 of its UTF-8 bytes under ``seed``, a 64-bit integer for the sketch oracles
    (module docstring: distinct strings collide with probability about n^2 / 2^65).

    Parameters
    ----------
    strings : array_like of str, shape (n,)
        The users' strings (none may end in the NUL character, which numpy's byte strings cannot hold).
    seed : int
        The hash seed, in 0..2^64 - 1.

    Returns
    -------
    numpy.ndarray of uint64, shape (n,)
        ``xxhash.xxh64(s.encode(), seed=seed).intdigest()`` for each string s.

    Examples
    --------
    >>> from privest.protocols import item_ids
    >>> [int(v) for v in item_ids(["apple", "pear"])]  # == xxhash.xxh64(b"apple").intdigest(), ...
    [6379808199001010847, 16441169724966315442]
    """
    strings = check_text_array(strings, "strings")
    seeds = np.full(strings.size, check_int(seed, "seed", minimum=0, maximum=2**64 - 1), dtype=np.uint64)
    encoded = np.char.encode(strings, "utf-8")
    lengths = np.char.str_len(encoded).astype(np.int64)
    width = max(1, encoded.dtype.itemsize)
    data = np.frombuffer(encoded.astype(f"S{width}").tobytes(), dtype=np.uint8).reshape(strings.size, width)
    out = np.empty(strings.size, dtype=np.uint64)
    for length in np.unique(lengths):
        where = lengths == length
        out[where] = _xxh64_fixed(data[where][:, :length], seeds[where])
    return out
