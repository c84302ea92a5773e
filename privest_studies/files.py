"""Atomic writes and the few file formats the scripts share.

Every writer goes through ``atomic_path``: the data lands in a temporary file in the target's directory and is renamed
onto the target only when the write succeeded, so a failed job never leaves a partial output. Writers are
deterministic: the same content gives the same bytes on every rerun (sorted JSON keys, a fixed float format for
tables, fixed timestamps inside npz archives).
"""

import csv
import hashlib
import json
import os
import secrets
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

if TYPE_CHECKING:
    import pandas as pd

# Timestamp written into every npz member so that archives do not depend on the clock (the earliest zip date).
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


@contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it onto ``target`` on success, delete it on failure.

    The caller creates the file at the yielded path. The parent directory is created if needed. The temporary name
    starts with a dot and ends with ``.tmp``, so an interrupted process leaves an obviously stale file, not a plausible
    output.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    # A fresh name, not a file: the writer creates it, so it gets the umask's permissions (mkstemp would give 0600).
    tmp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def file_digests(path: str | os.PathLike, chunk: int = 1 << 20) -> dict[str, Any]:
    """sha256, md5 and size in bytes of a file, read in chunks."""
    sha256, md5, size = hashlib.sha256(), hashlib.md5(), 0
    with open(path, "rb") as f:
        while block := f.read(chunk):
            sha256.update(block)
            md5.update(block)
            size += len(block)
    return {"sha256": sha256.hexdigest(), "md5": md5.hexdigest(), "bytes": size}


# An array of at least _SAMPLE_BYTES whose first _SAMPLE_BYTES deflate (zlib level 1) to more than _STORED_RATIO of
# their size is stored as it is, not deflated: bit-packed reports (SUE, OUE, SS, RAPPOR: near-random bits, which
# deflate slowly, about 13 MB/s, and to half their size at best). The standard-protocols Zipf archive of the paper
# scale (1.8 GB of arrays) took 198 s of CPU to write and 15 s to read back whole when every array was deflated. The
# choice depends on the array alone: the same bytes on every rerun.
_SAMPLE_BYTES = 1 << 16
_STORED_RATIO = 0.5


def _compression(array: np.ndarray) -> int:
    """ZIP_STORED for a large array that hardly deflates (``_STORED_RATIO``), else ZIP_DEFLATED."""
    if array.nbytes < _SAMPLE_BYTES or not array.flags.c_contiguous or array.dtype.hasobject:
        return zipfile.ZIP_DEFLATED
    sample = array.reshape(-1).view(np.uint8)[:_SAMPLE_BYTES]
    hard = len(zlib.compress(sample.tobytes(), 1)) > _STORED_RATIO * sample.size
    return zipfile.ZIP_STORED if hard else zipfile.ZIP_DEFLATED


def save_npz(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """Write arrays to an npz archive, atomically and byte-identically on reruns: each array deflated, or stored as it
    is where it hardly deflates (``_compression``)."""
    with atomic_path(path) as tmp, zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key in sorted(arrays):
            array = np.asarray(arrays[key])
            info = zipfile.ZipInfo(f"{key}.npy", date_time=_ZIP_EPOCH)
            info.compress_type = _compression(array)
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def load_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Read every array of an npz archive into a dict (no pickles)."""
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


class NpzArrays(Mapping):
    """The arrays of an npz archive, each read when first asked for and kept (no pickles): a job that needs one
    point's reports out of a 1 GB archive reads that point's arrays only (``load_npz`` reads them all: about 18 s
    for the standard-protocols Zipf archive at the paper scale, on every split estimate job and score job). The
    archive stays open while the mapping lives."""

    def __init__(self, path: str | os.PathLike) -> None:
        self._archive = np.load(path, allow_pickle=False)
        self._read: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._read:
            if key not in self._archive.files:
                raise KeyError(key)
            self._read[key] = self._archive[key]
        return self._read[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._archive.files)

    def __len__(self) -> int:
        return len(self._archive.files)

    @property
    def arrays_read(self) -> tuple[str, ...]:
        """The names of the arrays read so far, sorted."""
        return tuple(sorted(self._read))


def _json_default(value: Any) -> Any:
    """Convert the numpy and path values that json cannot write."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"cannot write a {type(value).__name__} to JSON: {value!r}")


def dumps_json(obj: Any) -> str:
    """The stable JSON text of ``obj``: sorted keys, two-space indent, a final newline, no NaN."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False, default=_json_default) + "\n"


def save_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as stable JSON (see ``dumps_json``), atomically."""
    write_text(path, dumps_json(obj))


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write text to a file, atomically (parent directories created)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def load_yaml(path: str | os.PathLike) -> Any:
    """A YAML file, read by libyaml's safe loader where PyYAML has it (several times faster than the pure-Python
    one, which the workflow's start-up would otherwise pay for the schema and the report catalogue), else the pure
    one."""
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_json(path: str | os.PathLike) -> Any:
    """Read a JSON file."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save_table(df: "pd.DataFrame", path: str | os.PathLike, float_format: str = "%.12g") -> None:
    """Write a tidy table as CSV, atomically: no index, ``\\n`` line ends, floats in ``float_format``."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, float_format=float_format, lineterminator="\n")


def save_rows(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], path: str | os.PathLike,
              float_format: str = "%.12g") -> None:
    """Write dict rows as a CSV table in ``columns`` order, atomically, formatted as ``save_table`` formats a
    DataFrame (floats in ``float_format``, booleans True/False), without importing pandas."""
    def cell(value: Any) -> str:
        if isinstance(value, bool | np.bool_):
            return str(bool(value))
        if isinstance(value, float | np.floating):
            return float_format % value
        return str(value)

    with atomic_path(path) as tmp, open(tmp, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([cell(row[c]) for c in columns] for row in rows)


def concat_tables(paths: Sequence[str | os.PathLike], target: str | os.PathLike) -> None:
    """Concatenate CSV tables with one header into ``target``, atomically; a differing header raises."""
    texts = [Path(p).read_text().splitlines(keepends=True) for p in paths]
    if not texts:
        raise ValueError("paths must name at least one table")
    for path, lines in zip(paths, texts, strict=True):
        if not lines or lines[0] != texts[0][0]:
            raise ValueError(f"{path}: its header differs from that of {paths[0]}")
    with atomic_path(target) as tmp:
        tmp.write_text("".join([texts[0][0], *(line for lines in texts for line in lines[1:])]))


def load_table(path: str | os.PathLike, dtypes: Mapping[str, Any] | None = None) -> "pd.DataFrame":
    """Read a CSV table written by ``save_table``, optionally with fixed column types."""
    import pandas as pd  # here, not at the top: most jobs never read a table and pandas costs 0.3 s to import

    return pd.read_csv(path, dtype=dict(dtypes) if dtypes else None)
