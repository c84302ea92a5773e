"""A researcher's CSV file read exactly as written or refused (privest_studies.own_csv): each record's field count
against the header, line endings, quoted fields, compressed files, byte order marks, spreadsheets and Parquet named,
European number formats, special files never opened, messages one short line; and a seeded fuzz test that the
vectorised field counter agrees with Python's csv module, and pandas' records with both, on random files of
delimiters, quotes and line breaks cut into tiny blocks."""

import bz2
import csv
import gzip
import io
import lzma
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from privest_studies import own_csv, own_data

LINEAR = {"kind": "linear", "k": 100}


def write(tmp_path: Path, content: bytes, name: str = "data.csv") -> str:
    path = tmp_path / name
    path.write_bytes(content)
    return str(path)


def error_of(call, *args) -> str:
    with pytest.raises(ValueError) as error:
        call(*args)
    message = str(error.value)
    path = next((a["csv"] for a in args if isinstance(a, dict) and "csv" in a), "")
    assert "\n" not in message and len(message) <= 200 + len(path), message
    return message


@pytest.mark.parametrize(("text", "says"), [
    (b"city,age\nWashington, DC,40\nBoston,30\n", "line 2: 3 fields where the header has 2: 'Washington, DC,40' "
                                                  "(1 such line); quote a cell that holds ','"),
    (b"city,age\nBoston,30\nWashington\nx,1,2\n", "line 3: 1 field where the header has 2: 'Washington' (2 such "
                                                  "lines); give every column a cell"),
    (b'city,age\n"multi\nline",30\nx,1,2\n', "line 4: 3 fields"),  # a quoted line break counts as a line
    (b'city,age\n"Washington, DC,40\nBoston,30\n', "line 2: a quote opened on this line is never closed"),
    (b"city,age\r\nA,1\r\nB,2,3\r\n", "line 3: 3 fields"),
    (b"city,age\rA,1\rB,2,3\r", "line 3: 3 fields"),
    (b'h,age\n5\'6",40\nx,1,2\n', "line 3: 3 fields"),  # a quote inside an unquoted field: counted by csv
])
def test_a_record_whose_field_count_is_not_the_headers_is_refused_naming_its_line(tmp_path, text, says):
    data = {"csv": write(tmp_path, text), "column": "age", "missing": "drop"}
    assert says in error_of(own_data.load, data, LINEAR)


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_any_line_ending_and_quoted_cells_read_as_written(tmp_path, ending):
    text = ending.join([b"city,age", b'"Washington, DC",40', b'"two' + ending + b'lines",31', b"", b"  ", b"x,32",
                        b""])
    data = {"csv": write(tmp_path, text), "column": "age", "missing": "drop"}
    secrets, _, provenance = own_data.load(data, LINEAR)
    np.testing.assert_array_equal(secrets, [40, 31, 32])
    assert provenance["dropped"]["blank"] == 2
    message = error_of(own_data.load, {**data, "missing": "error"}, LINEAR)
    assert message.startswith(f"{data['csv']} line 5: age '' is blank")  # after the quoted line break


@pytest.mark.parametrize(("name", "pack"), [
    ("a.csv.gz", gzip.compress), ("a.csv.bz2", bz2.compress), ("a.csv.xz", lzma.compress), ("a.zip", None)])
def test_compressed_files_are_read_directly(tmp_path, name, pack):
    text = b"age,sex\n30,F\n31,M\n"
    if pack is None:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("ages.csv", text)
        content = buffer.getvalue()
    else:
        content = pack(text)
    data = {"csv": write(tmp_path, content, name), "column": "age"}
    own_data.check_header("k", data, LINEAR)
    secrets, _, provenance = own_data.load(data, LINEAR)
    np.testing.assert_array_equal(secrets, [30, 31])
    assert provenance["compression"] == {"gz": "gzip", "bz2": "bz2", "xz": "xz", "zip": "zip"}[name.split(".")[-1]]


def test_utf16_and_utf32_with_a_byte_order_mark_are_detected(tmp_path):
    for codec in ("utf-16", "utf-16-be", "utf-32"):
        text = "city;n\nZürich;1\n\"Bern; BE\";2\n".encode(codec)
        if codec == "utf-16-be":
            text = b"\xfe\xff" + text
        data = {"csv": write(tmp_path, text, f"{codec}.csv"), "column": "city"}
        _, alphabet_file, provenance = own_data.load(data, {"kind": "categorical"})
        assert alphabet_file["categories"] == ["Bern; BE", "Zürich"]
        assert provenance["encoding"] in ("utf-16", "utf-32") and provenance["delimiter"] == ";"
    no_mark = {"csv": write(tmp_path, "city,n\nBern,1\n".encode("utf-16-le"), "le.csv"), "column": "city"}
    assert error_of(own_data.check_header, "k", no_mark, {"kind": "categorical"}).endswith(
        "looks like UTF-16 without a byte order mark; set data.encoding: utf-16-le")
    _, alphabet_file, _ = own_data.load({**no_mark, "encoding": "utf-16-le"}, {"kind": "categorical"})
    assert alphabet_file["categories"] == ["Bern"]


@pytest.mark.parametrize(("content", "says"), [
    (b"PAR1\x00\x00", "a Parquet file: write it as CSV first"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Excel workbook (.xls)"),
    ("xlsx", "a spreadsheet (.xlsx or .ods), not a CSV file"),
    ("two", "a zip archive of 2 files"),
])
def test_spreadsheets_parquet_and_archives_of_many_files_are_named(tmp_path, content, says):
    if isinstance(content, str):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("[Content_Types].xml" if content == "xlsx" else "a.csv", "age\n1\n")
            archive.writestr("xl/workbook.xml" if content == "xlsx" else "b.csv", "age\n1\n")
        content = buffer.getvalue()
    data = {"csv": write(tmp_path, content), "column": "age"}
    assert says in error_of(own_data.check_header, "k", data, LINEAR)


def test_special_files_are_refused_without_opening_them(tmp_path):
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    assert error_of(own_data.check_header, "k", {"csv": str(fifo), "column": "age"}, LINEAR).endswith(
        "fifo.csv: not a regular file (a pipe, socket or device); give a CSV file")
    assert error_of(own_data.check_header, "k", {"csv": str(tmp_path), "column": "age"}, LINEAR).endswith(
        ": a folder, not a CSV file")


def test_european_numbers_read_with_decimal_and_thousands(tmp_path):
    data = {"csv": write(tmp_path, b"city;income\nA;1.234,5\nB;30,25\nC;x\n"), "column": "income",
            "decimal": ",", "thousands": ".", "missing": "drop"}
    secrets, _, provenance = own_data.load(data, {"kind": "binned", "min": 0, "max": 2000, "bins": 4})
    np.testing.assert_array_equal(secrets, [2, 0])  # 1234.5 and 30.25
    assert provenance["dropped"]["not_a_number"] == 1
    assert "must differ" in error_of(own_data.check_header, "k", {**data, "decimal": ";"}, LINEAR)


@pytest.mark.parametrize(("encoding", "says"), [
    ("rot13", "data.encoding 'rot13' is not a text encoding"), ("base64", "data.encoding 'base64' is not a text"),
    ("klingon", "unknown data.encoding 'klingon'"),
    ("cp037", "data.encoding 'cp037' does not write delimiters and line breaks as ASCII does")])
def test_an_encoding_that_cannot_read_a_csv_is_named(tmp_path, encoding, says):
    data = {"csv": write(tmp_path, b"age\n30\n"), "column": "age", "encoding": encoding}
    assert says in error_of(own_data.check_header, "k", data, LINEAR)


@pytest.mark.parametrize("block", [1, 2, 3, 5, 1 << 22])
@pytest.mark.parametrize("ending", [b"\r", b"\r\n", b"\n"])
def test_a_byte_that_does_not_decode_is_named_on_its_line_whatever_the_line_ending(tmp_path, monkeypatch, ending,
                                                                                     block):
    """decode_error_at counted LF only: in a CR-only file (old Mac) every byte was on line 1."""
    monkeypatch.setattr(own_csv, "DECODE_BYTES", block)  # a CRLF cut between blocks is one line end
    data = {"csv": write(tmp_path, ending.join([b"city,n", b"Bern,1", b"Z\xfcrich,2", b""])), "column": "city"}
    at = 13 + 2 * len(ending)
    assert own_csv.decode_error_at(own_csv.inspect(data["csv"], data)) == (3, at, b"\xfc")
    assert error_of(own_data.load, data, {"kind": "categorical"}).startswith(
        f"{data['csv']} line 3, byte {at}: b'\\xfc' is not utf-8;")


@pytest.mark.parametrize("block", [1, 2, 3, 5, 1 << 22])
def test_a_utf16_character_that_does_not_decode_is_on_its_line_counted_in_code_units(tmp_path, monkeypatch, block):
    """Line ends are 2-byte code units in UTF-16: two lone CRs end two lines; the byte 0x0A of U+010A ends none (LF
    counted as a byte said line 2)."""
    monkeypatch.setattr(own_csv, "DECODE_BYTES", block)
    content = b"\xff\xfe" + "a\r\u010a\r".encode("utf-16-le") + b"\x00\xd8" + "c\r".encode("utf-16-le")
    table = own_csv.inspect(write(tmp_path, content), {})
    assert own_csv.decode_error_at(table) == (3, 10, b"\x00")  # a lone high surrogate


def test_the_encoding_hint_names_the_likely_encoding():
    assert own_csv.likely_encoding(b"\x93") == "cp1252"  # a curly quote of Windows
    assert own_csv.likely_encoding(b"\x81") == "latin-1"  # undefined in cp1252


def test_a_long_header_within_a_megabyte_reads_and_messages_stay_short(tmp_path):
    header = ",".join(f"question_{i}" for i in range(1500)) + ",age"
    data = {"csv": write(tmp_path, (header + "\n" + "1," * 1500 + "30\n").encode()), "column": "age"}
    np.testing.assert_array_equal(own_data.load(data, LINEAR)[0], [30])
    message = error_of(own_data.check_header, "k", {**data, "column": "agee"}, LINEAR)
    assert "no column 'agee'" in message and "(1,501 columns)" in message
    huge = {"csv": write(tmp_path, b"age\n" + b"9" * 10**6 + b"\n", "huge.csv"), "column": "age"}
    assert "(1,000,000 characters)" in error_of(own_data.load, huge, LINEAR)
    wide = {"csv": write(tmp_path, b"city,age\n" + b"x" * 10**6 + b",1,2\n", "wide.csv"), "column": "age"}
    assert "(1,000,004 characters)" in error_of(own_data.load, wide, LINEAR)


# ------------------------------------------------------------------------------------------------ fuzz


def _random_csv(rng: np.random.Generator, width: int) -> bytes:
    """A file of random records: plain cells (maybe with a quote inside), quoted cells holding delimiters, doubled
    quotes and line breaks, blank and whitespace lines, some records one field short or long, mixed line endings."""
    endings = [b"\n", b"\r\n", b"\r"]
    lines = [b",".join(b"c%d" % i for i in range(width))]
    odd_quotes, wrong = 0.1 * (rng.random() < 0.3), 0.1 * (rng.random() < 0.4)  # some files have none
    for _ in range(rng.integers(1, 40)):
        kind = rng.random()
        if kind < 0.1:
            lines.append(b" " * int(rng.integers(0, 3)))
            continue
        fields = width + int(rng.choice([-1, 1]) if rng.random() < wrong else 0)
        cells = []
        for _ in range(max(fields, 1)):
            r = rng.random()
            if r < 0.5:
                cells.append(bytes(rng.choice(list(b"ab 1"), rng.integers(0, 4)).astype(np.uint8)))
            elif r < 1 - odd_quotes:
                inner = bytes(rng.choice(list(b'a,\n"\r'), rng.integers(0, 5)).astype(np.uint8))
                cells.append(b'"' + inner.replace(b'"', b'""') + b'"')
            else:
                cells.append(b'a"b' if rng.random() < 0.5 else b'"q"r')
        lines.append(b",".join(cells))
    return b"".join(line + endings[int(rng.integers(0, 3))] for line in lines)


def _by_csv_module(content: bytes) -> list[tuple[int, bool, int]]:
    """(fields, every cell blank, start line) of each record after the header, by Python's csv module."""
    reader = csv.reader(io.StringIO(content.decode(), newline=""))
    rows, last = [], 0
    for row in reader:
        rows.append((len(row), not any(c.strip() for c in row), last + 1))
        last = reader.line_num
    return rows[1:]


@pytest.mark.parametrize("seed", range(300))
def test_fuzz_the_field_counter_agrees_with_the_csv_module_and_pandas(tmp_path, monkeypatch, seed):
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 4))
    content = _random_csv(rng, width)
    monkeypatch.setattr(own_csv, "BLOCK_BYTES", int(rng.integers(1, 12)))
    table = own_csv.inspect(write(tmp_path, content), {"delimiter": ","})
    expected = _by_csv_module(content)
    wrong = [(i, line) for i, (fields, blank, line) in enumerate(expected)
             if fields > width or (fields < width and not blank)]
    found = own_csv._shape_by_units(table, width) or own_csv._shape_by_rows(table, width)
    assert (found.records, found.wrong) == (len(expected), len(wrong))
    np.testing.assert_array_equal(found.lines(np.arange(len(expected))), [line for *_, line in expected])
    if wrong:
        assert f"line {wrong[0][1]}:" in error_of(own_csv.shape, table)
        return
    data = {"csv": table.path, "column": "c0", "missing": "drop", "delimiter": ","}
    cells = [row[0].strip() if row else "" for row in csv.reader(io.StringIO(content.decode(), newline=""))][1:]
    kept = [c for c in cells if c]
    if not kept:
        return
    secrets, alphabet_file, _ = own_data.load(data, {"kind": "categorical"})
    assert [alphabet_file["categories"][s] for s in secrets] == kept
