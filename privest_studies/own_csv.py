"""A researcher's CSV file read exactly as written, or refused in one line naming the file and line.

``inspect`` is what is cheap when the Snakefile is parsed: a regular file (a FIFO or a device is refused without
opening it), its format by its first bytes (gzip, bz2, xz and one-file zip archives are read directly; Excel, ODS and
Parquet files are named, with how to write them as CSV), its encoding (a byte order mark decides UTF-8, UTF-16 or
UTF-32), its header line (at most ``HEAD_BYTES`` decompressed bytes read, whatever the file's size) and delimiter.

``shape`` reads the whole file once as raw code units (numpy, no decoding) and counts each record's fields by the
rules of pandas' C parser: a quote opens a quoted field only at the start of a field, two quotes in a quoted field
are one, a line ends at LF, CRLF or a lone CR outside quotes. A record whose field count is not the header's is
refused (pandas would drop the extra fields of one, with ``usecols``, and fill the missing ones of another with
blanks); a blank line is a record of blank cells. A file with a quote inside an unquoted field is counted by Python's
``csv`` module instead (the same rules, one row at a time). ``chunks`` then reads the needed columns with pandas'
C parser, indexed by the physical line each record starts on.
"""

import bz2
import codecs
import csv
import gzip
import io
import lzma
import os
import stat
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["HEAD_BYTES", "Csv", "Shape", "chunks", "inspect", "not_encoded", "shape", "shown"]

HEAD_BYTES = 1 << 20
"""The most ``inspect`` reads (decompressed): the header line must end within it."""
BLOCK_BYTES = 1 << 24
DECODE_BYTES = 1 << 22
"""The blocks ``decode_error_at`` decodes."""
CHUNK_ROWS = 1 << 20
DELIMITERS = (",", ";", "\t", "|")
QUOTE, LF, CR = 0x22, 0x0A, 0x0D
MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"PK\x03\x04": "zip"}
NOT_CSV = {b"PAR1": "a Parquet file: write it as CSV first, e.g. pandas.read_parquet(path).to_csv('data.csv', "
                    "index=False)",
           b"\xd0\xcf\x11\xe0": "an Excel workbook (.xls): save the sheet as CSV UTF-8 (File > Save As), or "
                                "pandas.read_excel(path).to_csv('data.csv', index=False)"}
BOMS = ((b"\xff\xfe\x00\x00", "utf-32", "<u4"), (b"\x00\x00\xfe\xff", "utf-32", ">u4"),
        (b"\xef\xbb\xbf", "utf-8-sig", "u1"), (b"\xff\xfe", "utf-16", "<u2"), (b"\xfe\xff", "utf-16", ">u2"))
"""Byte order marks: the codec that reads the file (it skips the mark) and the code unit."""


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted, or its start and its length when longer than ``limit`` characters: messages stay one short
    line whatever a cell holds."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text):,} characters)"


@dataclass(frozen=True)
class Csv:
    """What ``inspect`` found: the path, its compression (None, gzip, bz2, xz or zip), the codec that decodes it and
    the numpy type of one code unit, the header's columns and the delimiter, and the number format."""

    path: str
    compression: str | None
    codec: str
    unit: str
    header: tuple[str, ...]
    delimiter: str
    decimal: str = "."
    thousands: str | None = None
    encoding: str = "utf-8"
    """The encoding as given (data.encoding), or the byte order mark's."""
    records_guess: int = 0
    """The records the file likely holds: its size over the mean length of the lines of its first 64 KB
    (compressed: over a fifth of that, a typical ratio of CSV). Nothing more is read."""

    def open(self) -> io.BufferedIOBase:
        """The file's bytes, decompressed."""
        return _open(self.path, self.compression)

    def text(self, units: np.ndarray) -> str:
        """Code units of the file as text (a character that does not decode shown as U+FFFD)."""
        codec = {"<u2": "utf-16-le", ">u2": "utf-16-be", "<u4": "utf-32-le", ">u4": "utf-32-be"}.get(self.unit,
                                                                                                      self.codec)
        return units.astype(self.unit).tobytes().decode(codec, errors="replace")


def _open(path: str, compression: str | None) -> io.BufferedIOBase:
    if compression == "zip":
        archive = zipfile.ZipFile(path)
        return archive.open(archive.namelist()[0])
    opener = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(compression, open)
    return opener(path, "rb")


def _regular(path: str) -> os.stat_result:
    """The stat of ``path``; one line unless it is a regular file (checked with stat: a FIFO is never opened)."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror})") from None
    if stat.S_ISDIR(status.st_mode):
        raise ValueError(f"{path}: a folder, not a CSV file")
    if not stat.S_ISREG(status.st_mode):
        raise ValueError(f"{path}: not a regular file (a pipe, socket or device); give a CSV file")
    return status


def _compression(path: str) -> str | None:
    """The compression of a file by its first bytes; one line for an archive or a format that is not CSV."""
    with open(path, "rb") as f:
        start = f.read(8)
    for magic, says in NOT_CSV.items():
        if start.startswith(magic):
            raise ValueError(f"{path}: {says}")
    compression = next((name for magic, name in MAGIC.items() if start.startswith(magic)), None)
    if compression == "zip":
        try:
            names = zipfile.ZipFile(path).namelist()
        except zipfile.BadZipFile:
            raise ValueError(f"{path}: a damaged zip archive") from None
        if "[Content_Types].xml" in names or "mimetype" in names:
            raise ValueError(f"{path}: a spreadsheet (.xlsx or .ods), not a CSV file: save the sheet as CSV UTF-8, or "
                             "pandas.read_excel(path).to_csv('data.csv', index=False)")
        if len(names) != 1:
            raise ValueError(f"{path}: a zip archive of {len(names)} files; a study reads a zip of one CSV file")
    return compression


def _codec(path: str, head: bytes, encoding: str) -> tuple[str, str]:
    """(codec, code unit) of a file: its byte order mark's, else ``encoding`` if it keeps ASCII's delimiters, quotes
    and line breaks as single bytes."""
    for bom, codec, unit in BOMS:
        if head.startswith(bom) and (codec != "utf-16" or not head.startswith(b"\xff\xfe\x00\x00")):
            return codec, unit
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise ValueError(f"{path}: unknown data.encoding {encoding!r} (e.g. utf-8, cp1252, latin-1)") from None
    if not getattr(info, "_is_text_encoding", True):  # rot13, base64, zlib: transforms, not encodings of text
        raise ValueError(f"{path}: data.encoding {encoding!r} is not a text encoding (e.g. utf-8, cp1252, latin-1)")
    name = info.name
    if name.startswith(("utf-16", "utf-32")) and name[-3:] in ("-le", "-be"):
        return name, ("<" if name.endswith("le") else ">") + ("u2" if "16" in name else "u4")
    if head.count(0) > len(head) // 4:
        order = "le" if head[1::2].count(0) > head[0::2].count(0) else "be"
        raise ValueError(f"{path}: looks like UTF-16 without a byte order mark; set data.encoding: utf-16-{order}")
    structure = '",;\t|\r\n'
    if structure.encode(name, errors="replace") != structure.encode("ascii"):
        raise ValueError(f"{path}: data.encoding {encoding!r} does not write delimiters and line breaks as ASCII "
                         "does; convert the file to UTF-8 (or give utf-16-le, utf-16-be)")
    return ("utf-8-sig" if name == "utf-8" else name), "u1"


def likely_encoding(byte: bytes) -> str:
    """The encoding a byte that is not UTF-8 most likely comes from: Windows' cp1252, unless it leaves the byte
    undefined (then latin-1)."""
    try:
        byte.decode("cp1252")
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def not_encoded(path: str, line: int, offset: int, byte: bytes, encoding: str) -> ValueError:
    """The one line for a byte that does not decode, with the encoding it most likely is."""
    return ValueError(f"{path} line {line}, byte {offset}: {byte!r} is not {encoding}; set data.encoding to the "
                      f"file's encoding (likely data.encoding: {likely_encoding(byte)})")


def _sniff(header: str) -> str:
    """The delimiter among ``DELIMITERS`` that the header line holds most often (a comma when it holds none)."""
    counts = [header.count(d) for d in DELIMITERS]
    return DELIMITERS[int(np.argmax(counts))] if max(counts) else ","


def _number_format(path: str, data: Mapping[str, Any], delimiter: str) -> tuple[str, str | None]:
    decimal, thousands = data.get("decimal", "."), data.get("thousands")
    if delimiter in (decimal, thousands) or decimal == thousands:
        raise ValueError(f"{path}: data.delimiter {delimiter!r}, data.decimal {decimal!r} and data.thousands "
                         f"{thousands!r} must differ")
    return decimal, thousands


def inspect(path: str, data: Mapping[str, Any]) -> Csv:
    """A CSV file's format, encoding, header and delimiter, reading at most ``HEAD_BYTES`` of it.

    Parameters
    ----------
    path : str
        The file.
    data : Mapping
        The study's ``data``: ``encoding`` (default utf-8; a byte order mark overrides it), ``delimiter`` (default:
        sniffed from the header among , ; tab |), ``decimal`` and ``thousands``.

    Returns
    -------
    Csv

    Raises
    ------
    ValueError
        In one line naming the file: not a regular file, not CSV (with how to write it as CSV), empty, a header
        without a line break in ``HEAD_BYTES``, a header that does not decode (with the likely encoding).
    """
    size = _regular(path).st_size
    compression = _compression(path)
    with _open(path, compression) as f:
        head = f.read(1 << 16)
        while len(head) < HEAD_BYTES and b"\n" not in head and b"\r" not in head and (more := f.read(1 << 16)):
            head += more  # a header longer than 64 KB (a survey export of thousands of columns)
    codec, unit = _codec(path, head, data.get("encoding", "utf-8"))
    if not head.strip():
        raise ValueError(f"{path}: the file is empty")
    units = np.frombuffer(head[:len(head) - len(head) % np.dtype(unit).itemsize], dtype=unit)
    ends = np.flatnonzero((units == LF) | (units == CR))
    if ends.size == 0 and len(head) >= HEAD_BYTES:
        raise ValueError(f"{path}: no line break in the first {HEAD_BYTES:,} bytes: a CSV file starts with a header "
                         "line naming its columns")
    line = units[:ends[0]].tobytes() if ends.size else units.tobytes()
    try:
        text = line.decode(codec).lstrip("\ufeff")
    except UnicodeDecodeError as error:
        raise not_encoded(path, 1, error.start, line[error.start:error.start + 1], data.get("encoding", "utf-8")) \
            from None
    delimiter = data.get("delimiter") or _sniff(text)
    decimal, thousands = _number_format(path, data, delimiter)
    header = tuple(next(csv.reader([text], delimiter=delimiter)))
    lines = max(1, int(ends.size))
    records_guess = max(0, round(size * (5 if compression else 1) / (len(head) / lines)) - 1)
    given = data.get("encoding", "utf-8")
    encoding = given if codecs.lookup(codec).name.removesuffix("-sig") == codecs.lookup(given).name else codec
    return Csv(path, compression, codec, unit, header, delimiter, decimal, thousands, encoding, records_guess)


def check_columns(table: Csv, columns: Sequence[str]) -> None:
    """One line naming the file unless its header holds each of ``columns`` exactly once."""
    line = table.delimiter.join(table.header)
    if absent := [c for c in columns if c not in table.header]:
        hint = ""
        if len(table.header) == 1 and (other := [d for d in DELIMITERS if d != table.delimiter and d in line]):
            hint = f"; it looks delimited by {other[0]!r}: set data.delimiter: {other[0]!r}"
        listed = ", ".join(table.header)
        listed = listed if len(listed) <= 80 else f"{listed[:80]}... ({len(table.header):,} columns)"
        raise ValueError(f"{table.path}: no column {shown(absent[0])} (columns: {listed}){hint}")
    if twice := [c for c in columns if table.header.count(c) > 1]:
        raise ValueError(f"{table.path}: the header names column {shown(twice[0])} {table.header.count(twice[0])} "
                         "times; rename all but the one to read")


# ------------------------------------------------------------------------------------------------ the records' shape


@dataclass
class Shape:
    """Each record's physical line and the records whose field count is not the header's.

    ``records`` counts the data records (the header not included); ``breaks_after`` lists the data records that hold
    quoted line breaks and ``breaks`` the running count of those breaks up to and including each."""

    records: int = 0
    wrong: int = 0
    first_wrong: tuple[int, int, str] | None = None  # (record, fields, its text)
    breaks_after: list[np.ndarray] = field(default_factory=list)
    breaks: list[np.ndarray] = field(default_factory=list)

    def lines(self, records: np.ndarray) -> np.ndarray:
        """The physical line (the header is line 1) each data record (0-based) starts on."""
        records = np.asarray(records, dtype=np.int64)
        if not self.breaks_after:
            return records + 2
        at, total = np.concatenate(self.breaks_after), np.cumsum(np.concatenate(self.breaks))
        before = np.searchsorted(at, records, side="left")
        return records + 2 + np.where(before > 0, total[np.maximum(before - 1, 0)], 0)


def _lines_of_piece(u: np.ndarray, delimiter: int, final: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                          np.ndarray, int] | None:
    """(line starts, ends, fields, quoted breaks per line, units used) of the complete lines of a piece of code units
    that starts a record outside quotes; None where a quote stands inside an unquoted field."""
    n = len(u)
    quotes = np.flatnonzero(u == QUOTE)
    ends = np.flatnonzero((u == LF) | (u == CR))
    if ends.size:
        cr = ends[u[ends] == CR]
        crlf = cr[(cr + 1 < n) & (u[np.minimum(cr + 1, n - 1)] == LF)]
        ends = ends[~np.isin(ends, crlf)] if crlf.size else ends
    is_delimiter = u == delimiter
    inner = np.zeros(0, dtype=np.int64)
    if quotes.size:
        opening = quotes[0::2]
        before = u[np.maximum(opening - 1, 0)]
        if not np.all((opening == 0) | np.isin(before, [delimiter, LF, CR, QUOTE])):
            return None
        quoted = (np.cumsum(u == QUOTE, dtype=np.int32) & 1).astype(bool)  # at a non-quote: inside a quoted field
        inner, ends = ends[quoted[ends]], ends[~quoted[ends]]
        is_delimiter &= ~quoted
    if not final and ends.size and ends[-1] == n - 1 and u[-1] == CR:
        ends = ends[:-1]  # a CR at the end of a piece may be the start of CRLF
    used = int(ends[-1]) + 1 if ends.size else 0
    if final and used < n:
        if quotes.size % 2:
            return np.array([used]), np.array([n]), np.array([-1]), np.array([0]), n  # a quote never closed
        ends, used = np.append(ends, n), n
    if ends.size == 0:
        return (*[np.zeros(0, dtype=np.int64)] * 4, 0)
    starts = np.concatenate([[0], ends[:-1] + 1]).astype(np.int64)
    delimiters_before = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(is_delimiter, dtype=np.int32, out=delimiters_before[1:])
    fields = delimiters_before[ends] - delimiters_before[starts] + 1
    breaks = np.searchsorted(inner, ends) - np.searchsorted(inner, starts) if inner.size else np.zeros_like(ends)
    return starts, ends, fields, breaks, used


def _blank_record(table: Csv, u: np.ndarray, starts: np.ndarray, ends: np.ndarray, short: np.ndarray) -> np.ndarray:
    """Which lines are a blank record: fewer fields than the header, every cell empty or spaces (a blank line, ``,``
    under three columns, or quoted blanks such as ``""``, which Python's csv module parses one line at a time)."""
    ignored = [0x20, 0x09, CR, LF, ord(table.delimiter)]
    content = np.flatnonzero(~np.isin(u, ignored))
    blank = short & (np.searchsorted(content, ends) == np.searchsorted(content, starts))
    content = np.flatnonzero(~np.isin(u, [*ignored, QUOTE]))
    quoted = short & ~blank & (np.searchsorted(content, ends) == np.searchsorted(content, starts))
    for i in np.flatnonzero(quoted):
        cells = next(csv.reader([table.text(u[starts[i]:ends[i]])], delimiter=table.delimiter), [])
        blank[i] = not any(cell.strip() for cell in cells)
    return blank


def _shape_by_units(table: Csv, width: int) -> Shape | None:
    dtype, size = np.dtype(table.unit), np.dtype(table.unit).itemsize
    delimiter, shape, record, carry = ord(table.delimiter), Shape(), -1, np.zeros(0, dtype=table.unit)
    with table.open() as f:
        while True:
            block = f.read(BLOCK_BYTES)
            final = not block
            piece = np.concatenate([carry, np.frombuffer(block[:len(block) - len(block) % size], dtype=dtype)])
            if len(block) % size:
                raise ValueError(f"{table.path}: ends inside a {table.codec} character")
            lines = _lines_of_piece(piece, delimiter, final)
            if lines is None:
                return None
            starts, ends, fields, breaks, used = lines
            numbers = record + np.arange(len(starts))  # -1 is the header
            wrong = (fields != width) & (numbers >= 0)
            if wrong.any():
                wrong &= ~_blank_record(table, piece, starts, ends, fields < width)
            if wrong.any() and shape.first_wrong is None:
                i = int(wrong.argmax())
                text = table.text(piece[starts[i]:ends[i]])
                shape.first_wrong = (int(numbers[i]), int(fields[i]), text)
            shape.wrong += int(wrong.sum())
            if (has := (breaks > 0) & (numbers >= 0)).any():
                shape.breaks_after.append(numbers[has])
                shape.breaks.append(breaks[has])
            record += len(starts)
            carry = piece[used:]
            if final:
                break
    shape.records = max(record, 0)
    return shape


def _shape_by_rows(table: Csv, width: int) -> Shape:
    """The same count with Python's csv module (a quote inside an unquoted field: rare, one row at a time)."""
    shape, last = Shape(), 0
    with table.open() as f:
        text = io.TextIOWrapper(f, encoding=table.codec, newline="")
        reader = csv.reader(text, delimiter=table.delimiter)
        for number, row in enumerate(reader, start=-1):
            spans, last = reader.line_num - last, reader.line_num
            if number < 0:
                continue
            if spans > 1:
                shape.breaks_after.append(np.array([number]))
                shape.breaks.append(np.array([spans - 1]))
            if len(row) > width or (len(row) < width and any(cell.strip() for cell in row)):
                shape.wrong += 1
                shape.first_wrong = shape.first_wrong or (number, len(row), table.delimiter.join(row))
            shape.records = number + 1
    return shape


def shape(table: Csv) -> Shape:
    """Every record's field count and line (see the module's docstring); one line naming the file and the first
    record whose field count is not the header's, and how many there are.

    Raises
    ------
    ValueError
        A record with more or fewer fields than the header (not a blank line), or a quote never closed.
    """
    width = len(table.header)
    found = _shape_by_units(table, width)
    if found is None:
        try:
            found = _shape_by_rows(table, width)
        except csv.Error as error:
            raise ValueError(f"{table.path}: {error}") from None
    if found.first_wrong is not None:
        record, fields, text = found.first_wrong
        line = int(found.lines(np.array([record]))[0])
        if fields < 0:
            raise ValueError(f"{table.path} line {line}: a quote opened on this line is never closed")
        fix = f"quote a cell that holds {table.delimiter!r}" if fields > width else \
            "give every column a cell, blank or not"
        raise ValueError(f"{table.path} line {line}: {fields} field{'s' if fields != 1 else ''} where the header has "
                         f"{width}: {shown(text)} ({found.wrong:,} such line{'s' if found.wrong != 1 else ''}); {fix}")
    return found


def chunks(table: Csv, columns: Sequence[str], numeric: bool, lines: Shape) -> Iterator[pd.DataFrame]:
    """The needed columns in chunks indexed by the physical line of each record: numbers where the C parser reads
    them (numeric alphabets, in the file's number format), else strings; only blank cells missing."""
    start = 0
    with table.open() as f, pd.read_csv(
            f, sep=table.delimiter, usecols=list(columns), dtype=None if numeric else str, encoding=table.codec,
            keep_default_na=False, na_values=[""], skip_blank_lines=False, index_col=False, engine="c",
            low_memory=False, chunksize=CHUNK_ROWS, decimal=table.decimal, thousands=table.thousands) as reader:
        for chunk in reader:
            chunk.index = lines.lines(np.arange(start, start + len(chunk)))
            start += len(chunk)
            chunk = chunk[list(columns)]
            if numeric and (table.decimal != "." or table.thousands):
                chunk = chunk.apply(_plain_numbers, table=table)
            yield chunk
    if start != lines.records:
        raise ValueError(f"{table.path}: pandas read {start:,} records where the file has {lines.records:,}; "
                         "please report this file's shape")


def _plain_numbers(cells: pd.Series, table: Csv) -> pd.Series:
    """A column the C parser left as text, in the file's number format written as Python writes numbers."""
    if cells.dtype.kind != "O":
        return cells
    text = cells.astype("string")
    if table.thousands:
        text = text.str.replace(table.thousands, "", regex=False)
    return text.str.replace(table.decimal, ".", regex=False)


def _line_ends(units: np.ndarray, after_cr: bool) -> int:
    """The line ends among code units as ``shape`` counts them: LF, CRLF or a lone CR, one each (``after_cr``: the
    unit before them is a CR, whose CRLF a first LF completes)."""
    lf, cr = units == LF, units == CR
    return int(lf.sum() + cr.sum() - (cr[:-1] & lf[1:]).sum()) - int(after_cr and units.size > 0 and lf[0])


def decode_error_at(table: Csv) -> tuple[int, int, bytes] | None:
    """(line, byte offset, the byte) of the first byte of a file that does not decode, reading it in blocks; the line
    is the physical line (LF, CRLF or a lone CR ends one, counted in the file's code units)."""
    decoder = codecs.getincrementaldecoder(table.codec)()
    size = np.dtype(table.unit).itemsize
    lines, offset, carry, after_cr = 1, 0, b"", False  # carry: the bytes of a code unit the block cut
    with table.open() as f:
        while block := f.read(DECODE_BYTES):
            pending = decoder.getstate()[0]
            data = carry + block
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:
                at = offset - len(pending) + error.start
                # the units before the bad byte not counted yet (none when it is in a sequence the decoder held
                # back, which holds no line end)
                before = data[:max(0, at - (offset - len(carry)))]
                units = np.frombuffer(before[:len(before) - len(before) % size], dtype=table.unit)
                return lines + _line_ends(units, after_cr), at, (pending + block)[error.start:error.start + 1]
            units = np.frombuffer(data[:len(data) - len(data) % size], dtype=table.unit)
            lines += _line_ends(units, after_cr)
            after_cr = bool(units[-1] == CR) if units.size else after_cr
            carry, offset = data[len(units) * size:], offset + len(block)
    return None
