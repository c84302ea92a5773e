"""Laplace noise for histogram encoding (SHE), one random word a draw: a 256-layer ziggurat for the exponential
(Marsaglia and Tsang 2000, as numpy's ``standard_exponential``) whose spare bit is the sign.

Each 64-bit word of the Generator's bit generator: bit 0 the sign, bits 3..10 the layer, bits 11..63 a 53-bit uniform
u. Layer 0 is the base strip [0, r] x [0, e^-r] with the tail beyond r, of virtual width v e^r; layer j = 1..255 the
rectangle [0, x_(j-1)] x [e^-x_(j-1), e^-x_j] (x_0 = r > x_1 > ... > x_255 = 0), every one of area v. A point
u 2^-53 of the way across its layer's width is accepted at once where it lies under the density (about 98.9% of
words); the others are finished here in numpy: the tail as r + Exp(1) (the exponential forgets), a wedge point kept
where a uniform height falls under e^-x, else replaced by a fresh Exp(1) draw (the ziggurat's restart). So |noise| /
scale is Exp(1) and the sign is an independent fair bit: Laplace(scale), to the precision of float64.

The layers' edges are computed once, on first use, in decimal arithmetic at 40 digits (exactly specified, the same on
every machine: Python's decimal rounds exp and ln correctly) from r = 7.69711747... (``_R``, the root that closes the
top layer at height 1), then rounded to float64. The words come from ``PCG64.random_raw``, or for a PCG64 generator
from the compiled kernel (``privest._kernel.pcg64_words``: the same words from the same state, 3x faster), which also
makes the first try on every word (``laplace_words``); numpy gives the same bits where it is not built.
"""

import functools
from decimal import Decimal, localcontext

import numpy as np

from privest.protocols.packed import on_pcg64

try:  # the words and the first try compiled (privest/_kernel.c), built with the package where a C compiler is found
    from privest import _kernel
except ImportError:  # then numpy draws the same words and makes the same first try
    _kernel = None
if _kernel is not None and not hasattr(_kernel, "laplace_words"):  # an older build: numpy, until rebuilt
    _kernel = None

__all__: list[str] = []

_R = "7.6971174701310497140446280480152155"
"""The base strip's edge r for 256 layers: (r + 1) e^-r = v and 255 steps of the recurrence end at height 1."""

_LAYERS = 256
_MASK = np.uint64(_LAYERS - 1)


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(width, accept, heights, r): width[j] the layer's width over 2^53 (layer 0: the virtual width v e^r), accept[j]
    the 53-bit uniforms below which a point is under the density at once (ceil(2^53 x_j / x_(j-1)); layer 0
    ceil(2^53 r / width)), heights[j] = e^-x_j (layer j >= 1 spans heights[j - 1] to heights[j])."""
    with localcontext() as context:
        context.prec = 40
        r = Decimal(_R)
        v = (r + 1) * (-r).exp()
        edges, heights = [r], [(-r).exp()]
        for _ in range(1, _LAYERS - 1):
            heights.append(heights[-1] + v / edges[-1])
            edges.append(-heights[-1].ln())
        edges.append(Decimal(0))
        heights.append(Decimal(1))
        scale = Decimal(2) ** 53
        base = v / heights[0]
        width = [base / scale] + [edges[j - 1] / scale for j in range(1, _LAYERS)]
        accept = [int((scale * r / base).to_integral_value(rounding="ROUND_CEILING"))]
        accept += [int((scale * edges[j] / edges[j - 1]).to_integral_value(rounding="ROUND_CEILING"))
                   for j in range(1, _LAYERS)]
    return (np.array([float(w) for w in width]), np.array(accept, dtype=np.uint64),
            np.array([float(h) for h in heights]), float(r))


def _words(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` raw 64-bit words of the generator's bit generator, as ``random_raw`` gives them (in the compiled
    kernel for PCG64, the generator's state then advanced by ``size`` words as ``random_raw`` would)."""
    words = np.empty(size, dtype=np.uint64)
    if on_pcg64(rng, lambda *halves: _kernel.pcg64_words(words, size, *halves)):
        return words
    return rng.bit_generator.random_raw(size)


def laplace(rng: np.random.Generator, shape: tuple[int, ...], scale: float) -> np.ndarray:
    """Laplace(scale) noise of the given shape, float64, one random word a draw (module docstring).

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness (its bit generator's words; then its own draws for the rare rejections).
    shape : tuple of int
        The shape of the noise.
    scale : float
        The Laplace scale b > 0 (density e^(-|y|/b) / (2b)).

    Returns
    -------
    numpy.ndarray of float64
    """
    width, accept, heights, r = _tables()
    size = int(np.prod(shape, dtype=np.int64))
    words = _words(rng, size)
    scaled = width * scale
    if _kernel is not None:
        rejected = np.empty(size, dtype=np.int64)
        count = _kernel.laplace_words(words, scaled, accept, rejected, size)
        rejected = rejected[:count]
        noise = words.view(np.float64)
        left = words[rejected]
    else:
        u = words >> np.uint64(11)
        layer = (words >> np.uint64(3)) & _MASK
        noise = u.astype(np.float64)
        noise *= scaled[layer]
        np.negative(noise, out=noise, where=(words & np.uint64(1)).astype(bool))
        rejected = np.flatnonzero(u >= accept[layer])
        left = words[rejected]
    noise[rejected] = _finish(left, rng, width, heights, r) * scale
    return noise.reshape(shape)


def _finish(words: np.ndarray, rng: np.random.Generator, width: np.ndarray, heights: np.ndarray, r: float
            ) -> np.ndarray:
    """The signed Exp(1) draws of the words the first try did not accept: the tail r + Exp(1), a wedge point kept
    where a uniform height under its layer's top falls below e^-x, else a fresh Exp(1) (numpy's own ziggurat)."""
    layer = ((words >> np.uint64(3)) & _MASK).astype(np.int64)
    x = (words >> np.uint64(11)).astype(np.float64) * width[layer]
    tail = layer == 0
    x[tail] = r + rng.standard_exponential(int(tail.sum()))
    wedge = np.flatnonzero(~tail)
    top, bottom = heights[layer[wedge]], heights[layer[wedge] - 1]
    kept = bottom + rng.random(wedge.size) * (top - bottom) < np.exp(-x[wedge])
    lost = wedge[~kept]
    x[lost] = rng.standard_exponential(lost.size)
    return np.where((words & np.uint64(1)).astype(bool), -x, x)
