"""GIBU's likelihood on bit-packed set reports (``privest.groups.BitGroup``: SUE, OUE, SS, RAPPOR), by byte-sliced
lookup tables, and the list of set-valued parts of one GIBU call (``_Parts``). Private: ``_iteration._Likelihood``
uses them.

Report i's likelihood is exp(log_scale_i) (high if x in S_i else low), so, theta-mixed (free-will Algorithm 1),
d_i = low + (high - low) theta(S_i). With S_i held as B = ceil(k / 8) bytes, theta(S_i) = sum_b T[b, byte_ib], where
T[b, v] is theta summed over the bits of byte value v at byte position b (B x 256, built from theta each iteration);
the update's per-secret sum sum_{i : x in S_i} r_i (high - low), r_i = w_i / d_i, comes from the histograms
H[b, v] = sum_{i : byte_ib = v} r_i (high - low), folded back to bits. One pass over the bytes gives d, the
log-likelihood and the histograms: in the compiled kernel (``privest._kernel.bits_pass``) where it is built, else
numpy on blocks of rows. From ``_SUMS_BYTES`` bytes a row the compiled kernel sums the update's per-secret terms
directly instead (``privest._kernel.bits_sums``: tables of r_i (high - low) summed over the subsets of 8 rows, indexed
by the rows' bits transposed, one lookup per secret and 8 rows where the histograms make one store per byte and row):
the same sums in another order, so equal to the histograms' to the last bits. Its tables are built from nibble halves
(``nibble_tables``: theta over the 16 values of each 4 bits), which its AVX-512 path looks up 8 at a time by register
permutes and adds, the sums its other paths make from the whole byte's entry; it goes over the rows in chunks of
``CHUNK_ROWS``, on ``PRIVEST_THREADS`` threads (default: the cores this process may use), their results added in
chunk order: the same bits on any CPU and any number of threads.
"""

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from privest.groups import BitGroup, Group, SetGroup

try:  # the compiled pass (privest/_kernel.c), built with the package where a C compiler is found
    from privest import _kernel
except ImportError:  # then numpy runs the same pass
    _kernel = None
if _kernel is not None and not hasattr(_kernel, "bits_sums_path"):  # a build of an older _kernel.c: numpy until rebuilt
    _kernel = None

# bytes a row from which the compiled kernel's direct sums (bits_sums) beat its histograms (bits_pass) on its vector
# path (AVX2: the rows' bits transposed by byte shuffles and movemasks): measured, benchmarks/README.md
# (bench_bits.py --passes: at 32 bytes the histograms still win, at 48 the sums by 1.2x). The portable C path, whose
# transposition is slower than the histograms (about 320 against 220 ns a row at k = 1024), takes the direct sums
# too: both paths give the same bytes, so a result does not depend on the CPU it was computed on.
_SUMS_BYTES = 48

# rows a chunk of the direct sums: each chunk's sums start from zero and the chunks' are added in order, so that the
# result is the same bits on any number of threads (PRIVEST_THREADS); a multiple of the kernel's blocks of 512 rows.
# 2^16 rows of 128 bytes (k = 1024) are 8 MB: a few ms of work a chunk, so that threads share 10^6 rows evenly
CHUNK_ROWS = 1 << 16

# BYTE_BITS[v, j] = 1 if byte value v holds bit j in numpy.packbits' order (secret 8 b + j is bit 7 - j of byte b)
BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64)

# numpy's pass takes this many rows at a time: a (rows, B) float64 gather of at most 8 MB at k = 1024
_NUMPY_ROWS = 1 << 13

# the Fisher information unpacks this many rows at a time
_INFORMATION_ROWS = 1 << 12


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one, else the machine's cores)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _padded(theta: np.ndarray, B: int) -> np.ndarray:
    """theta with zeros appended to 8 B secrets (a table's byte positions cover whole bytes)."""
    padded = np.zeros(8 * B)
    padded[: theta.size] = theta
    return padded


def threads_from_environment() -> int:
    """The threads the compiled direct sums may use: the environment variable PRIVEST_THREADS, a whole number >= 1,
    where it is set (the pipeline's jobs set 1: they run side by side, one to a core), else the cores this process
    may run on. The result is the same bits on any number."""
    value = os.environ.get("PRIVEST_THREADS")
    if value is None:
        return available_cores()
    text = value.strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 4096:
        raise ValueError(f"PRIVEST_THREADS must be a whole number from 1 to 4096, got {value!r}")
    return int(value)


def bit_tables(theta: np.ndarray, B: int) -> np.ndarray:
    """T (B, 256): T[b, v] = the sum of theta over the secrets whose bit is set in byte value v at byte position b
    (theta padded with zeros to 8 B secrets)."""
    return np.ascontiguousarray(_padded(theta, B).reshape(B, 8) @ BYTE_BITS.T)


def nibble_tables(theta: np.ndarray, B: int) -> np.ndarray:
    """N (2 B, 16): N[q, u] = the sum of theta over the secrets whose bit is set in nibble value u at nibble position q
    (q = 2 b the low nibble of byte b, bits 0-3: secrets 8 b + 7 .. 8 b + 4; q = 2 b + 1 the high one: 8 b + 3 ..
    8 b), built by doubling, N[q, 2^j + u] = N[q, u] + theta(bit j), elementwise: the same bits on every CPU. The
    compiled direct sums (``bits_sums``) take these: their byte tables are N[2 b, v & 15] + N[2 b + 1, v >> 4]
    (``byte_tables``)."""
    # [q, j]: theta of nibble q's bit j
    bit_values = _padded(theta, B).reshape(B, 2, 4)[:, ::-1, ::-1].reshape(2 * B, 4)
    N = np.zeros((2 * B, 16))
    for j in range(4):
        N[:, 1 << j: 2 << j] = N[:, : 1 << j] + bit_values[:, j: j + 1]
    return N


def byte_tables(N: np.ndarray) -> np.ndarray:
    """T (B, 256) of the nibble tables N (2 B, 16): T[b, v] = N[2 b, v & 15] + N[2 b + 1, v >> 4], as ``bits_sums``
    builds it (the same bits)."""
    return np.ascontiguousarray(N[0::2, None, :] + N[1::2, :, None]).reshape(-1, 256)


def _fold(H: np.ndarray, k: int) -> np.ndarray:
    """The histograms H (B, 256) folded back to secrets: entry x is the sum of H[x // 8, v] over the byte values v
    that hold x's bit."""
    return (H @ BYTE_BITS).ravel()[:k]


def _repeating(bits: np.ndarray) -> int:
    """The mask ``bits_pass`` takes as ``carry``: the byte positions of its short last block (B % 8 of them, below
    64) whose value repeats from one row to the next in at least _REPEATS of the rows, as the leading bytes of sorted
    distinct reports do (RAPPOR at k = 20, 932,598 distinct reports: the first two bytes; one of free-will
    rappor_high's groups at n = 10^6, about 93,000: the first byte alone)."""
    B, mask = bits.shape[1], 0
    if bits.shape[0] < 2:
        return 0
    for position in range(B - B % 8, min(B, 64)):
        column = bits[:, position]
        if np.count_nonzero(column[1:] == column[:-1]) >= _REPEATS * (column.size - 1):
            mask |= 1 << position
    return mask


# The share of rows whose byte repeats the previous row's from which ``bits_pass`` keeps that position's sum in a
# register: below, its branch mispredicts (a change of value) cost more than the store-to-load chain it saves
_REPEATS = 0.75


def _numpy_pass(bits: np.ndarray, w: np.ndarray, T: np.ndarray, H: np.ndarray, low: float, gap: float
                ) -> tuple[float, float]:
    """``privest._kernel.bits_pass`` in numpy, a block of rows at a time: (sum_i w_i log d_i, sum_i w_i / d_i), the
    histograms added to H."""
    B = bits.shape[1]
    offsets = np.arange(B) * 256
    L = R = 0.0
    for start in range(0, bits.shape[0], _NUMPY_ROWS):
        index = bits[start:start + _NUMPY_ROWS] + offsets  # (rows, B) positions in T.ravel(), int64
        weights = w[start:start + _NUMPY_ROWS]
        d = low + gap * T.ravel()[index].sum(axis=1)
        r = weights / d
        L += float(weights @ np.log(d))
        R += float(r.sum())
        H += np.bincount(index.ravel(), np.repeat(r * gap, B), minlength=256 * B).reshape(B, 256)
    return L, R


class _Bits:
    """The bit-packed groups of one GIBU call: per group its bits, weights w = counts / n and the two likelihood
    values; ``forward`` is the one pass over the bytes (the log-likelihood and the update's sums, kept as its state),
    ``backward`` and ``log_likelihood`` read that state."""

    def __init__(self, groups: Sequence[BitGroup], n: float) -> None:
        self.k = groups[0].k
        self.B = groups[0].bits.shape[1]
        self.parts = [(np.ascontiguousarray(g.bits), np.ascontiguousarray(g.counts / n, dtype=np.float64),
                       float(g.low), float(g.high - g.low)) for g in groups]
        self.carry = [_repeating(bits) if _kernel is not None and self.B < _SUMS_BYTES else 0
                      for bits, *_ in self.parts]
        self.chunks = [(bits[i:i + CHUNK_ROWS], w[i:i + CHUNK_ROWS], low, gap)
                       for bits, w, low, gap in self.parts for i in range(0, bits.shape[0], CHUNK_ROWS)]

    def _direct_sums(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """The compiled direct sums chunk by chunk (on PRIVEST_THREADS threads where there are several chunks), their
        log-likelihoods, constants and sums added in chunk order."""
        N, sums = nibble_tables(theta, self.B), np.zeros((len(self.chunks), 8 * self.B))

        def run(j: int) -> tuple[float, float]:
            bits, w, low, gap = self.chunks[j]
            return _kernel.bits_sums(bits, w, N, sums[j], bits.shape[0], self.B, low, gap)

        threads = min(threads_from_environment(), len(self.chunks))
        if threads > 1:
            with ThreadPoolExecutor(threads) as pool:
                results = list(pool.map(run, range(len(self.chunks))))
        else:
            results = [run(j) for j in range(len(self.chunks))]
        L, constant, total = 0.0, 0.0, np.zeros(8 * self.B)
        for (part_L, R), (_, _, low, _), part in zip(results, self.chunks, sums, strict=True):
            L += part_L
            constant += R * low
            total += part
        return L, constant + total[:self.k]

    def forward(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """(sum_i w_i log d_i, the update's term sum_i r_i low_i + sum_{i : x in S_i} r_i gap_i for every x)."""
        if _kernel is not None and self.B >= _SUMS_BYTES:
            return self._direct_sums(theta)
        L, constant = 0.0, 0.0
        T, H = bit_tables(theta, self.B), np.zeros((self.B, 256))
        for (bits, w, low, gap), carry in zip(self.parts, self.carry, strict=True):
            if _kernel is not None:
                part_L, R = _kernel.bits_pass(bits, w, T, H, bits.shape[0], self.B, low, gap, carry)
            else:
                part_L, R = _numpy_pass(bits, w, T, H, low, gap)
            L += part_L
            constant += R * low
        return L, constant + _fold(H, self.k)

    def backward(self, state: tuple[float, np.ndarray]) -> np.ndarray:
        return state[1]

    def log_likelihood(self, state: tuple[float, np.ndarray]) -> float:
        return state[0]

    def information(self, theta: np.ndarray) -> np.ndarray:
        """The observed Fisher information per user at theta, (k, k): sum_i w_i g_i g_i^T / d_i^2 with
        g_i = low_i 1 + gap_i m_i (m_i report i's membership row), as ``_Sets.information``; the rows unpacked a
        block at a time."""
        k = self.k
        information = np.zeros((k, k))
        for bits, w, low, gap in self.parts:
            for start in range(0, bits.shape[0], _INFORMATION_ROWS):
                member = np.unpackbits(bits[start:start + _INFORMATION_ROWS], axis=1, count=k).astype(np.float64)
                r = w[start:start + _INFORMATION_ROWS] / (low + gap * (member @ theta)) ** 2
                a = (r * low * gap) @ member
                information += float(r.sum()) * low**2 + a[:, None] + a[None, :]
                scaled = member * (np.sqrt(r) * abs(gap))[:, None]
                information += scaled.T @ scaled  # one symmetric product (BLAS syrk): half a general one's work
        return information


def dense_bits(group: BitGroup) -> Group:
    """A bit-packed group as a matrix group: column i holds high for the members of S_i and low elsewhere, with the
    report's log scale; the same likelihood, so the same GIBU update (as ``_sets.as_matrix_group`` for a SetGroup)."""
    member = np.unpackbits(group.bits, axis=1, count=group.k).T
    return Group._of_checked(np.where(member, group.high, group.low), group.counts, group.log_scale)


class _Parts:
    """Several set-valued parts (``_Sets``, ``_Bits``) as one: their states side by side, their sums added."""

    def __init__(self, parts: Sequence) -> None:
        self.parts = list(parts)

    def forward(self, theta: np.ndarray) -> list:
        return [part.forward(theta) for part in self.parts]

    def backward(self, states: list) -> np.ndarray:
        return sum(part.backward(s) for part, s in zip(self.parts, states, strict=True))

    def log_likelihood(self, states: list) -> float:
        return sum(part.log_likelihood(s) for part, s in zip(self.parts, states, strict=True))

    def information(self, theta: np.ndarray) -> np.ndarray:
        return sum(part.information(theta) for part in self.parts)


def set_parts(sets: Sequence[SetGroup], bits: Sequence[BitGroup], n: float, sets_part: type):
    """The set-valued part of one GIBU call: ``sets_part`` (``_sets._Sets``) on the SetGroups, ``_Bits`` on the
    BitGroups, both as a ``_Parts`` where there are both, None where there are neither."""
    parts = ([sets_part(sets, n)] if sets else []) + ([_Bits(bits, n)] if bits else [])
    return None if not parts else parts[0] if len(parts) == 1 else _Parts(parts)
