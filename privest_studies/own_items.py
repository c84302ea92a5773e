"""A large alphabet's items (``alphabet: {kind: large}``): the distinct cells of a column of arbitrary strings or
integers, read as written, as 64-bit items for the sketch oracles and heavy-hitter protocols of ``privest``.

Two readings, decided for the whole column, so that distinct cells are always distinct items:

- **integers**: every kept cell is the plain decimal of an integer in 0..2^64 - 1 (digits only, no sign, no leading
  zero but in ``0``): each item is the integer itself, as the sketches take items (``privest.protocols.digests``: an
  integer is hashed as its decimal string, as pure-LDP hashes it). The domain k is the smallest power of 2 above the
  largest item (at least 2), found in the data as a categorical alphabet's categories are; a heavy-hitter protocol
  reads an item as a word of log2 k bits.
- **strings**: any other column (a word, a URL, ``007`` beside ``7``): each cell's item is
  ``privest.protocols.item_ids`` of its text, the xxh64 of its UTF-8 bytes under seed 0 (documented there: distinct
  strings share an item with probability about d^2 / 2^65 for d distinct cells). The domain is 2^64.

The cells are stripped of surrounding spaces, as a categorical alphabet's are; a blank cell is dropped or refused by
``data.missing`` (``privest_studies.own_data``). Nothing is outside a large alphabet.
"""

import re
from collections.abc import Sequence

import numpy as np

from privest.protocols import item_ids

__all__ = ["INTEGERS", "STRINGS", "alphabet_file", "data_file", "items_of", "read"]

INTEGERS, STRINGS = "integers", "strings"
"""How a large alphabet's items were read: the cells' integers, or the hashes of their text."""
ITEM_SEED = 0
"""The seed of ``item_ids`` for a column of strings (its documented default: ids checkable with xxhash)."""
_PLAIN = re.compile(r"0|[1-9][0-9]{0,19}")


def items_of(cells: Sequence[str]) -> tuple[np.ndarray, str]:
    """The item of each distinct cell of a column, and how they were read (``INTEGERS`` or ``STRINGS``).

    Parameters
    ----------
    cells : sequence of str
        The column's distinct kept cells (stripped, none blank).

    Returns
    -------
    items : numpy.ndarray of uint64, shape (len(cells),)
        Each cell's integer where every cell is the plain decimal of one in 0..2^64 - 1, else each cell's
        ``item_ids`` (seed ``ITEM_SEED``).
    how : str

    Examples
    --------
    >>> from privest_studies.own_items import items_of
    >>> [int(v) for v in items_of(["7", "18446744073709551615"])[0]]
    [7, 18446744073709551615]
    >>> items_of(["7", "007"])[1]  # 007 is not 7 as written: every cell hashed as text
    'strings'
    """
    cells = [str(c) for c in cells]
    if all(_PLAIN.fullmatch(c) and int(c) < 2**64 for c in cells):
        return np.array([int(c) for c in cells], dtype=np.uint64), INTEGERS
    return item_ids(np.array(cells, dtype=str), ITEM_SEED), STRINGS


def alphabet_file(items: np.ndarray, how: str, column: str) -> dict:
    """The alphabet file of a large alphabet: {kind: large, k (the domain: 2^64 for strings, else the smallest power
    of 2 above the largest item), items (how they were read), distinct (items in the data), column, label}."""
    bits = 64 if how == STRINGS else max(1, int(items.max()).bit_length() if items.size else 1)
    k = 1 << bits
    what = "the xxh64 of each cell's text (privest.protocols.item_ids, seed 0)" if how == STRINGS else \
        "each cell's integer"
    return {"kind": "large", "k": k, "items": how, "distinct": int(np.unique(items).size), "column": column,
            "label": f"{column}: {np.unique(items).size:,} distinct items of a domain of 2^{bits}, {what}"}


def read(codes: np.ndarray, cells: Sequence[str], column: str) -> tuple[np.ndarray, dict]:
    """The records' items and the alphabet file, from each kept record's index into ``cells`` (the column's distinct
    kept cells, as ``own_data`` reads a categorical column)."""
    items, how = items_of(cells)
    return items[codes], alphabet_file(items, how, column)


def data_file(items: np.ndarray) -> dict[str, np.ndarray]:
    """A large study's data file: {"items": every kept record's item, uint64, in file order}."""
    return {"items": np.asarray(items, dtype=np.uint64)}
