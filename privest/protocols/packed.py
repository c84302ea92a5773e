"""Bit-packed reports of the bit protocols (SUE, OUE, SS) and the samplers that draw them straight into packed bytes.

``PackedBits`` holds n reports of k bits as ``numpy.packbits(axis=1)`` packs them: 1/8 of the bool matrix. The samplers
draw only what a report needs, a block of users at a time, never a uniform per bit:

- ``bernoulli_words``: 64 independent bits a word, each 1 with probability ``P(rng.random() < q)`` exactly (the
  binary expansion of q compared lane by lane with random words, most significant first, until no lane of a word is
  undecided: about 7.4 random words for 64 bits, against 64 doubles);
- ``add_uniform``: to each user's set, r more values drawn uniformly without replacement among the values not yet in
  it (a uniform proposal, kept when free: at least one in two is kept while the set holds at most half the values).

Unary encodings draw their k - 1 other bits by ``bernoulli_words``, or, when few bits are set (flip below
``_POSITIONS_BELOW``), as a Binomial(k - 1, flip) number of bits at uniform positions (``add_uniform``). Subset
selection draws i.i.d. bits at a dyadic rate a little below omega / k, redraws the rare rows with too many, and
completes each row to its size with ``add_uniform``: every step treats the other values alike, so the set is
exchangeable and of fixed size, hence uniform among the subsets of that size. For small omega Floyd's algorithm
draws the subset in omega steps.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from privest._checks import check_flag, check_int, check_packed_bits

try:  # Floyd's steps and bernoulli_words on PCG64 compiled (privest/_kernel.c), built where a C compiler is found
    from privest import _kernel
except ImportError:  # then numpy runs the same steps on the same draws
    _kernel = None
if _kernel is not None and not hasattr(_kernel, "byte_histograms"):  # an older build: numpy, until rebuilt
    _kernel = None

__all__ = [
    "PackedBits",
    "add_uniform",
    "bernoulli_words",
]

# Packed bytes drawn at once: 4 MB (32 M bits, 32,768 users at k = 1024); the temporaries are a few times that.
_CHUNK_BYTES = 1 << 22

# The bool output is unpacked this many entries at a time (4 MB): twice as fast as a whole chunk at k = 1024.
_UNPACK_ENTRIES = 1 << 22

# Unary encodings draw their set bits at uniform positions when flip, the share of bits set, is below this: about 16
# element operations a set bit against the ~0.7 a bit of ``bernoulli_words`` (measured, benchmarks/README.md).
_POSITIONS_BELOW = 1 / 24
# ... and k at least this: below, a row is one or two bytes and the words are faster whatever flip.
_POSITIONS_FROM_K = 64

# SS's i.i.d. bits: at a multiple of 1/_RATE_STEPS (so ``bernoulli_words`` stops after log2(_RATE_STEPS) words), a
# mean _MARGIN standard deviations below the size (a few rows in a hundred have too many bits and are redrawn).
_RATE_STEPS = 256
_MARGIN = 1.5
# SS draws subsets of at most this size by Floyd's algorithm (omega numpy steps, or one compiled pass), larger ones as
# above (measured with the compiled pass: omega 28 at k = 74 11 against 17 ms, omega 48 at k = 128 21 against 18 ms;
# benchmarks/README.md).
_FLOYD_UP_TO = 32

# ``bernoulli_words`` looks for finished words from this step on: before, (1 - 2^-step)^64 of them are (13% at 5).
_FIRST_CHECK = 4

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_LOW_64 = (1 << 64) - 1


@dataclass(frozen=True, eq=False)
class PackedBits:
    """n reports of k bits each, bit-packed: what ``sample(..., packed=True)`` of SUE, OUE and SS returns, what their
    ``from_arrays`` reads, and what every method of theirs that takes reports accepts as well as the bool matrix.

    Attributes
    ----------
    bits : numpy.ndarray of uint8, shape (n, ceil(k / 8))
        Report i's bits as ``numpy.packbits(bool_matrix, axis=1)`` packs them: bit j is bit 7 - j % 8 of byte j // 8;
        the padding bits after bit k - 1 are 0.
    k : int
        The number of bits of a report.

    Raises
    ------
    TypeError, ValueError
        If bits is not a uint8 array of that shape with zero padding, or k not an integer >= 1.

    Examples
    --------
    >>> import numpy as np
    >>> reports = PackedBits(np.packbits(np.eye(3, 10, dtype=bool), axis=1), 10)
    >>> len(reports), reports.shape, reports[1:].unpack().sum(axis=1).tolist()
    (3, (3, 10), [1, 1])
    >>> bool(np.array_equal(np.asarray(reports), np.eye(3, 10, dtype=bool)))
    True
    """

    bits: np.ndarray
    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=1))
        check_packed_bits(self.bits, "bits", self.k)

    def __len__(self) -> int:
        return int(self.bits.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """(n, k), the shape of the bool matrix these reports pack."""
        return len(self), self.k

    def __getitem__(self, users: Any) -> "PackedBits":
        """The reports of some users (a slice, integer indices or a bool mask over users; an integer gives one)."""
        bits = self.bits[users]
        return PackedBits(bits.reshape(-1, self.bits.shape[1]), self.k)

    def unpack(self) -> np.ndarray:
        """The (n, k) bool matrix."""
        return np.unpackbits(self.bits, axis=1, count=self.k).view(bool)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        bits = self.unpack()
        return bits if dtype is None else bits.astype(dtype)

    def set_counts(self) -> np.ndarray:
        """How many bits each report has set, shape (n,) int64, counted on the bytes."""
        return np.bitwise_count(self.bits).sum(axis=1, dtype=np.int64)

    def column_counts(self) -> np.ndarray:
        """How many reports have each bit set, shape (k,) int64, from per-byte histograms (never unpacked)."""
        width = self.bits.shape[1]
        histogram = np.zeros(width * 256, dtype=np.int64)
        if _kernel is not None:  # the same counts in one compiled pass
            _kernel.byte_histograms(np.ascontiguousarray(self.bits), histogram, len(self), width)
        else:
            offsets = (np.arange(width) * 256).astype(np.uint16 if width <= 256 else np.int64)
            rows = max(1, _CHUNK_BYTES // 4 // width)
            for start in range(0, len(self), rows):
                histogram += np.bincount((self.bits[start:start + rows] + offsets).ravel(), minlength=width * 256)
        by_bit = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.int64)  # (256, 8)
        return (histogram.reshape(width, 256) @ by_bit).ravel()[:self.k]


def on_pcg64(rng: np.random.Generator, draw: Callable[[int, int, int, int], tuple[int, int]]) -> bool:
    """Where rng is a PCG64 generator and the compiled kernel has its words (``privest._kernel``): ``draw`` called
    with the 128-bit state and increment as the kernel takes them (high and low 64-bit halves), returning the advanced
    state's halves, which become the generator's; all under the bit generator's lock, as numpy's own draws hold it
    (threads sharing a generator see its state advance once per draw). True then; False, having drawn nothing,
    otherwise (the caller then draws through numpy)."""
    generator = rng.bit_generator
    if _kernel is None or not hasattr(_kernel, "pcg64_words") or type(generator) is not np.random.PCG64:
        return False
    with generator.lock:
        state = generator.state
        now, inc = state["state"]["state"], state["state"]["inc"]
        high, low = draw(now >> 64, now & _LOW_64, inc >> 64, inc & _LOW_64)
        generator.state = {**state, "state": {"state": (high << 64) | low, "inc": inc}}
    return True


def bernoulli_words(q: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` 64-bit words of independent bits, each 1 with probability ceil(q 2^53) / 2^53, exactly that of
    ``rng.random() < q`` (whose uniforms are the multiples of 2^-53).

    Each bit compares a 53-bit uniform R, one bit per random word, most significant first, with Q = ceil(q 2^53):
    where R's bit is 0 and Q's 1 the bit is decided 1 (R < Q), where R's is 1 and Q's 0 it is decided 0, else it
    waits for the next word. A word leaves once all its 64 lanes are decided (after 7.4 words on average, measured);
    lanes still undecided when Q's remaining bits are all 0 are 0 (R >= Q).

    Parameters
    ----------
    q : float
        The probability, in [0, 1].
    size : int
        The number of words.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    numpy.ndarray of uint64, shape (size,)
    """
    target = math.ceil(q * 2**53)
    if target <= 0:
        return np.zeros(size, dtype=np.uint64)
    if target >= 2**53:
        return np.full(size, _ALL)
    words, scratch = np.empty(size, dtype=np.uint64), np.empty(size, dtype=np.uint64)  # scratch: undecided lanes
    if on_pcg64(rng, lambda *halves: _kernel.bernoulli_pcg64(words, scratch, size, target, _FIRST_CHECK, *halves)):
        return words  # the same steps on the same words (rng.integers of the full range is random_raw), in C
    words = np.zeros(size, dtype=np.uint64)
    undecided = np.full(size, _ALL)
    where: np.ndarray | None = None  # the words with undecided lanes; None while that is every word
    for step in range(53):
        if target & ((1 << (53 - step)) - 1) == 0:
            break
        # R's bits are the complement of the uniform words drawn (as uniform): 1 in ``draw`` where R's bit is 0
        draw = rng.integers(0, 2**64, size=undecided.size, dtype=np.uint64)
        if (target >> (52 - step)) & 1:  # decided 1 where R's bit is 0; the others wait
            np.bitwise_and(draw, undecided, out=draw)
            if where is None:
                np.bitwise_or(words, draw, out=words)
            else:
                words[where] |= draw
            np.bitwise_xor(undecided, draw, out=undecided)
        else:  # decided 0 where R's bit is 1; the others wait
            np.bitwise_and(undecided, draw, out=undecided)
        if step >= _FIRST_CHECK:
            left = undecided != 0
            if not left.all():
                where = np.flatnonzero(left) if where is None else where[left]
                undecided = undecided[left]
                if not undecided.size:
                    break
    return words


def bernoulli_bytes(q: float, rows: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """A (rows, ceil(k / 8)) packed matrix of independent bits, 1 with probability as ``bernoulli_words``, the
    padding bits after bit k - 1 zero."""
    width = -(-k // 8)
    words = bernoulli_words(q, -(-rows * width // 8), rng)
    packed = words.view(np.uint8)[:rows * width].reshape(rows, width)
    if k % 8:
        packed[:, -1] &= np.uint8((0xFF << (8 - k % 8)) & 0xFF)
    return packed


def _masks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The byte of each value in a packed row and the mask of its bit there."""
    return values >> 3, (np.uint8(128) >> (values & 7).astype(np.uint8))


def add_uniform(packed: np.ndarray, more: np.ndarray, k: int, rng: np.random.Generator,
                excluded: np.ndarray | None = None) -> None:
    """Set ``more[i]`` more bits of row i of ``packed`` (in place), uniformly without replacement among the bits of
    0..k-1 not set and not ``excluded[i]``: a uniform proposal in 0..k-1 a step for every row still short, kept when
    free. Each kept proposal is uniform among the free bits, so the bits added are a uniform subset of them. The free
    bits must outnumber ``more`` (they should be at least half the bits, else most proposals are lost)."""
    flat, width = packed.reshape(-1), packed.shape[1]
    rows = np.flatnonzero(more > 0)
    short = more[rows].astype(np.int64)
    excluded_rows = None if excluded is None else excluded[rows]
    while rows.size:
        proposal = rng.integers(0, k, size=rows.size)
        at = rows * width + (proposal >> 3)
        mask = np.uint8(128) >> (proposal & 7).astype(np.uint8)
        free = (flat[at] & mask) == 0
        if excluded_rows is not None:
            free &= proposal != excluded_rows
        flat[at[free]] |= mask[free]
        short -= free
        left = short > 0
        if not left.all():
            rows, short = rows[left], short[left]
            excluded_rows = None if excluded_rows is None else excluded_rows[left]


def set_bit(packed: np.ndarray, values: np.ndarray, on: np.ndarray) -> None:
    """Bit ``values[i]`` of row i of ``packed`` set to ``on[i]`` (in place)."""
    byte, mask = _masks(values)
    rows = np.arange(values.size)
    packed[rows, byte] = (packed[rows, byte] & ~mask) | np.where(on, mask, np.uint8(0))


def unary_packed(secrets: np.ndarray, k: int, flip: float, one: float, rng: np.random.Generator) -> np.ndarray:
    """Unary-encoded reports of ``secrets``, packed: bit x is 1 with probability ``one``, every other bit 1 with
    probability ``flip``. The other bits by ``bernoulli_bytes``, or, when flip < ``_POSITIONS_BELOW`` (and k at least
    ``_POSITIONS_FROM_K``), a
    Binomial(k - 1, flip) number of them at uniform positions among the k - 1 others (``add_uniform``)."""
    if flip < _POSITIONS_BELOW and k >= _POSITIONS_FROM_K:
        packed = np.zeros((secrets.size, -(-k // 8)), dtype=np.uint8)
        add_uniform(packed, rng.binomial(k - 1, flip, size=secrets.size), k, rng, excluded=secrets)
    else:
        packed = bernoulli_bytes(flip, secrets.size, k, rng)
    set_bit(packed, secrets, rng.random(secrets.size) < one)
    return packed


def subset_packed(secrets: np.ndarray, k: int, omega: int, p_in: float, rng: np.random.Generator) -> np.ndarray:
    """Subset-selection reports of ``secrets``, packed: x in S with probability ``p_in``, the rest of S (omega - 1
    or omega values) uniform among the k - 1 others. The others first as i.i.d. bits at a multiple of 1/256 about
    ``_MARGIN`` standard deviations below omega / k (at most 8 random words per word), the rows with more bits than
    their size redrawn, then each row completed to its size by ``add_uniform``; up to omega = ``_FLOYD_UP_TO`` (or
    where that rate is 0), by Floyd's algorithm (``_floyd``)."""
    inside = rng.random(secrets.size) < p_in
    size = omega - inside.astype(np.int64)
    rate = math.floor(_RATE_STEPS * max(0.0, omega - 1 - _MARGIN * math.sqrt(omega * (1 - omega / k))) / (k - 1))
    rate = 0 if omega <= _FLOYD_UP_TO else rate / _RATE_STEPS
    if rate > 0:
        packed = bernoulli_bytes(rate, secrets.size, k, rng)
        set_bit(packed, secrets, np.zeros(secrets.size, dtype=bool))
        counts = np.bitwise_count(packed).sum(axis=1, dtype=np.int64)
        over = np.flatnonzero(counts > size)
        while over.size:
            redrawn = bernoulli_bytes(rate, over.size, k, rng)
            set_bit(redrawn, secrets[over], np.zeros(over.size, dtype=bool))
            packed[over] = redrawn
            counts[over] = np.bitwise_count(redrawn).sum(axis=1, dtype=np.int64)
            over = over[counts[over] > size[over]]
        add_uniform(packed, size - counts, k, rng, excluded=secrets)
    else:
        packed = np.zeros((secrets.size, -(-k // 8)), dtype=np.uint8)
        _floyd(packed, size, k, secrets, rng)
    set_bit(packed, secrets, inside)
    return packed


def _floyd(packed: np.ndarray, size: np.ndarray, k: int, secrets: np.ndarray, rng: np.random.Generator) -> None:
    """Floyd's algorithm for every row at once, into empty packed rows: ``size[i]`` of the N = k - 1 values other
    than ``secrets[i]`` (numbered 0..N-1 skipping it), for j = N - size[i], ..., N - 1 a uniform t in 0..j, added, or
    j if t is in already: each subset of the size comes out with probability 1 / C(N, size). One numpy step a j; a
    row joins at its own first j."""
    others, steps = k - 1, int(size.max()) if size.size else 0
    if _kernel is not None:  # the same draws, the same steps, one row after the other in C
        draws = np.empty((steps, secrets.size), dtype=np.uint32)
        for s, j in enumerate(range(others - steps, others)):
            draws[s] = rng.integers(0, j + 1, size=secrets.size, dtype=np.uint32)
        _kernel.floyd_subsets(draws, np.ascontiguousarray(size, dtype=np.int64),
                              np.ascontiguousarray(secrets, dtype=np.int64), packed, secrets.size, steps,
                              packed.shape[1], k)
        return
    flat, row_start = packed.reshape(-1), np.arange(secrets.size) * packed.shape[1]
    for j in range(others - steps, others):
        value = rng.integers(0, j + 1, size=secrets.size, dtype=np.uint32).astype(np.int64)
        value += value >= secrets  # the value-th of the others, skipping x
        at, mask = row_start + (value >> 3), np.uint8(128) >> (value & 7).astype(np.uint8)
        taken = (flat[at] & mask) != 0
        if taken.any():
            value[taken] = j + (j >= secrets[taken])
            at[taken], mask[taken] = row_start[taken] + (value[taken] >> 3), np.uint8(128) >> (value[taken] & 7)
        if j < others - size.min():
            mask[j < others - size] = 0
        flat[at] |= mask


def sample_by_chunks(secrets: np.ndarray, k: int, draw: Callable[[np.ndarray], np.ndarray], packed: bool
                     ) -> np.ndarray | PackedBits:
    """The reports of ``secrets`` drawn ``_CHUNK_BYTES`` packed bytes at a time by ``draw(secrets_of_chunk)``: the
    packed bytes as ``PackedBits``, or (``packed=False``) unpacked chunk by chunk into the (n, k) bool matrix."""
    packed, width = check_flag(packed, "packed"), -(-k // 8)
    out = np.empty((secrets.size, width), dtype=np.uint8) if packed else np.empty((secrets.size, k), dtype=bool)
    rows = max(1, _CHUNK_BYTES // width)
    for start in range(0, secrets.size, rows):
        block = draw(secrets[start:start + rows])
        if packed:
            out[start:start + rows] = block
            continue
        step = max(1, _UNPACK_ENTRIES // k)  # unpacked a few MB at a time: the temporary stays in cache
        for at in range(0, block.shape[0], step):
            part = block[at:at + step]  # the chunk's last part may be shorter than step
            out[start + at:start + at + part.shape[0]] = np.unpackbits(part, axis=1, count=k).view(bool)
    return PackedBits(out, k) if packed else out
