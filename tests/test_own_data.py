"""A study's data from a researcher's file or Adult (privest_studies.own_data): every kind of alphabet with planted
blank, non-numeric and outside records, dropped and counted or refused in one line naming the file and line; the
encodings, delimiters and quoting of real files; a header check that reads only the file's start."""

from pathlib import Path

import numpy as np
import pytest

from privest.alphabets import Alphabet
from privest_studies import own_csv, own_data

BOX = {"lat_min": 0.0, "lat_max": 0.01, "lon_min": 0.0, "lon_max": 0.02}
PLANAR = {"kind": "planar", "box": BOX, "columns": 2, "rows": 1, "cell_km": 1.2, "latitude": "lat", "longitude": "lon"}

# kind -> (file text, data keys, alphabet, kept secrets, dropped counts, first missing (line, message),
#          first outside (line, message)). Blanks include a cell of spaces and an empty line.
CASES = {
    "linear": ("age,sex\n30,F\n,M\nold,F\n140,M\n3.5,F\n45,M\n  ,F\n\n99,M\n", {"column": "age"},
               {"kind": "linear", "k": 100}, [30, 45, 99], {"blank": 3, "not_a_number": 1, "outside": 2},
               (3, "age '' is blank \\(3 such records; set data.missing: drop"),
               (5, "age '140' is outside the alphabet 0..99 \\(2 such records; set alphabet.outside: drop")),
    "binned": ("x\n0\n100\n100.5\n\nabc\n50\n-1\n24.99\n", {"column": "x"},
               {"kind": "binned", "min": 0, "max": 100, "bins": 4}, [0, 3, 2, 0],
               {"blank": 1, "not_a_number": 1, "outside": 2},
               (5, "x '' is blank \\(1 such record;"),
               (4, "x '100.5' is outside the bins' range \\[0, 100\\] \\(2 such records;")),
    "numeric": ("x\n0\n100\n100.5\n\nabc\n50\n-1\n24.99\n", {"column": "x"},
                {"kind": "numeric", "min": 0, "max": 100, "bins": 4, "unit": "hours"}, [0, 3, 2, 0],
                {"blank": 1, "not_a_number": 1, "outside": 2},
                (5, "x '' is blank \\(1 such record;"),
                (4, "x '100.5' is outside the bins' range \\[0, 100\\] \\(2 such records;")),
    "categorical": ("sex,age\nF,1\n M ,2\nX,3\n,4\nF,5\nY,6\n", {"column": "sex"},
                    {"kind": "categorical", "categories": ["M", "F"]}, [1, 0, 1],
                    {"blank": 1, "not_a_number": 0, "outside": 2},
                    (5, "sex '' is blank \\(1 such record;"),
                    (4, "sex 'X' is not one of the 2 given categories \\(2 such records;")),
    "planar": ("lat,lon\n0.001,0.001\n,0.001\n0.009,x\n0.02,0.0\n0.009,0.013\n", {},
               PLANAR, [0, 1], {"blank": 1, "not_a_number": 1, "outside": 1},
               (3, "lat, lon \\('', '0.001'\\) is blank \\(1 such record;"),
               (5, "lat, lon \\('0.02', '0.0'\\) is outside the box")),
}


def write(tmp_path: Path, text: str | bytes, name: str = "data.csv", encoding: str = "utf-8") -> str:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode(encoding))
    return str(path)


def error_of(call, *args, **kwargs) -> str:
    """The message of the ValueError a call raises, checked to be one line."""
    with pytest.raises(ValueError) as error:
        call(*args, **kwargs)
    assert "\n" not in str(error.value)
    return str(error.value)


@pytest.mark.parametrize("kind", CASES)
@pytest.mark.parametrize("missing", ["error", "drop"])
@pytest.mark.parametrize("outside", ["error", "drop"])
def test_every_kind_drops_and_counts_or_refuses_the_first_bad_record(tmp_path, kind, missing, outside):
    text, keys, alphabet, kept, dropped, (missing_line, missing_says), (outside_line, outside_says) = CASES[kind]
    data = {"csv": write(tmp_path, text), **keys, "missing": missing}
    alphabet = {**alphabet, "outside": outside}
    own_data.check_header("config key studies.mine.data", data, alphabet)
    refused = [(line, says) for line, says, policy, n in [
        (missing_line, missing_says, missing, dropped["blank"] + dropped["not_a_number"]),
        (outside_line, outside_says, outside, dropped["outside"])] if policy == "error" and n]
    if refused:
        line, says = min(refused)  # the first refused record of the file
        assert error_of(own_data.load, data, alphabet).startswith(f"{data['csv']} line {line}: ")
        with pytest.raises(ValueError, match=says):
            own_data.load(data, alphabet)
    else:
        secrets, alphabet_file, provenance = own_data.load(data, alphabet)
        expected = {r: dropped[r] if (missing if r != "outside" else outside) == "drop" else 0 for r in dropped}
        assert provenance["dropped"] == expected == dropped
        assert provenance["records"] == len(kept) + sum(dropped.values()) and provenance["kept"] == len(kept)
        np.testing.assert_array_equal(secrets, kept)
        assert secrets.dtype == np.int64 and Alphabet.from_dict(alphabet_file).k == alphabet_file["k"]


@pytest.mark.parametrize("missing", ["error", "drop"])
@pytest.mark.parametrize("outside", ["error", "drop"])
def test_a_numeric_alphabet_judges_records_as_the_binned_one_and_keeps_their_values(tmp_path, missing, outside):
    text, keys, binned = CASES["binned"][:3]
    data = {"csv": write(tmp_path, text), **keys, "missing": missing}
    binned = {**binned, "outside": outside}
    numeric = {**binned, "kind": "numeric", "unit": "hours"}
    if "error" in (missing, outside):
        assert error_of(own_data.load, data, numeric) == error_of(own_data.load, data, binned)
        return
    secrets, values, alphabet_file, provenance = own_data.load_with_values(data, numeric)
    same, _, binned_provenance = own_data.load(data, binned)
    np.testing.assert_array_equal(secrets, same)
    assert provenance == binned_provenance
    np.testing.assert_array_equal(values, [0, 100, 50, 24.99])
    assert alphabet_file["numeric"] is True and alphabet_file["spacing"] == 25.0 and alphabet_file["unit"] == "hours"
    assert own_data.load_with_values(data, binned)[1] is None
    saved = own_data.empirical_data(secrets, 4, values)
    np.testing.assert_array_equal(saved["values"], values)
    np.testing.assert_array_equal(np.floor(saved["values"] / 25).clip(max=3), saved["secrets"])


def test_the_alphabet_files_say_what_an_index_means():
    assert own_data.alphabet_of({"kind": "linear", "k": 5}) == {
        "kind": "linear", "k": 5, "spacing": 1.0, "unit": "index steps", "label": "X = {0..4}"}
    binned = own_data.alphabet_of({"kind": "binned", "min": 0, "max": 100, "bins": 20, "unit": "hours"},
                                  "hours_per_week")
    assert binned == {"kind": "linear", "k": 20, "spacing": 5.0, "unit": "hours", "column": "hours_per_week",
                      "min": 0.0, "max": 100.0, "bins": 20,
                      "label": "hours_per_week: 20 bins of 5 hours on [0, 100]"}
    assert Alphabet.from_dict(binned).spacing == 5.0
    categorical = own_data.alphabet_of({"kind": "categorical"}, "occupation", ["a", "b"])
    assert categorical == {"kind": "categorical", "k": 2, "categories": ["a", "b"], "column": "occupation",
                           "label": "occupation: 2 categories"}
    planar = own_data.alphabet_of(PLANAR)
    assert planar["unit"] == "km" and planar["k"] == 2 and Alphabet.from_dict(planar).grid.columns == 2


def test_binned_edges_min_in_the_first_bin_max_in_the_last_just_above_max_outside(tmp_path):
    data = {"csv": write(tmp_path, "x\n0\n25\n99.999\n100\n100.000001\n"), "column": "x"}
    alphabet = {"kind": "binned", "min": 0, "max": 100, "bins": 4}
    assert "line 6: x '100.000001' is outside" in error_of(own_data.load, data, alphabet)
    secrets, _, provenance = own_data.load(data, {**alphabet, "outside": "drop"})
    np.testing.assert_array_equal(secrets, [0, 1, 3, 3])
    assert provenance["dropped"]["outside"] == 1


def test_categories_found_are_the_sorted_stripped_distinct_values(tmp_path):
    data = {"csv": write(tmp_path, "job,age\n nurse ,1\nbaker,2\nnurse,3\nactor,4\n"), "column": "job"}
    secrets, alphabet_file, _ = own_data.load(data, {"kind": "categorical"})
    assert alphabet_file["categories"] == ["actor", "baker", "nurse"] and alphabet_file["label"] == "job: 3 categories"
    np.testing.assert_array_equal(secrets, [2, 1, 2, 0])
    secrets, alphabet_file, _ = own_data.load(data, {"kind": "categorical", "categories": ["nurse", "baker", "actor"]})
    np.testing.assert_array_equal(secrets, [0, 1, 0, 2])


def test_a_blank_cell_of_spaces_is_dropped_and_no_category(tmp_path):
    """Issue 46: a cell of spaces with data.missing: drop was dropped, yet '' became a category (k = 3 for two)."""
    data = {"csv": write(tmp_path, "job,age\nnurse,1\n   ,2\nbaker,3\n\t,4\n"), "column": "job", "missing": "drop"}
    secrets, alphabet_file, provenance = own_data.load(data, {"kind": "categorical"})
    assert alphabet_file["categories"] == ["baker", "nurse"] and provenance["dropped"]["blank"] == 2
    np.testing.assert_array_equal(secrets, [1, 0])


def test_a_column_the_header_names_twice_is_refused_and_a_repeated_unread_column_is_not(tmp_path):
    """Issue 46: a second age column was ignored without a word (pandas reads the first as 'age', the second as
    'age.1')."""
    data = {"csv": write(tmp_path, "age,sex,age\n30,F,31\n"), "column": "age"}
    with pytest.raises(ValueError, match=r"data.csv: the header names column 'age' 2 times; rename all but the one"):
        own_data.load(data, {"kind": "linear", "k": 100})
    data = {"csv": write(tmp_path, 'x,city,x,age\n1,"Washington, DC",2,40\n3,Paris,4,5\n'), "column": "city"}
    secrets, alphabet_file, _ = own_data.load(data, {"kind": "categorical"})
    assert alphabet_file["categories"] == ["Paris", "Washington, DC"]
    np.testing.assert_array_equal(secrets, [1, 0])


def test_found_categories_are_merged_over_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(own_csv, "CHUNK_ROWS", 2)
    data = {"csv": write(tmp_path, "c\nb\nb\nc\na\n\nd\n"), "column": "c", "missing": "drop"}
    secrets, alphabet_file, provenance = own_data.load(data, {"kind": "categorical"})
    assert alphabet_file["categories"] == ["a", "b", "c", "d"] and provenance["dropped"]["blank"] == 1
    np.testing.assert_array_equal(secrets, [1, 1, 2, 0, 3])


def test_line_numbers_and_counts_hold_across_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(own_csv, "CHUNK_ROWS", 3)
    monkeypatch.setattr(own_csv, "BLOCK_BYTES", 4)
    data = {"csv": write(tmp_path, "age\n1\n2\n3\n4\n5\nold\n7\nx\n"), "column": "age"}
    assert error_of(own_data.load, data, {"kind": "linear", "k": 10}).startswith(
        f"{data['csv']} line 7: age 'old' is not a number (2 such records;")


def test_a_utf8_byte_order_mark_is_skipped(tmp_path):
    data = {"csv": write(tmp_path, "\ufeffage,sex\n30,F\n31,M\n"), "column": "age"}
    own_data.check_header("k", data, {"kind": "linear", "k": 100})
    np.testing.assert_array_equal(own_data.load(data, {"kind": "linear", "k": 100})[0], [30, 31])


def test_a_latin1_file_names_line_and_byte_and_reads_with_its_encoding(tmp_path):
    data = {"csv": write(tmp_path, "city,n\nBern,1\nZürich,2\n", encoding="latin-1"), "column": "city"}
    own_data.check_header("k", data, {"kind": "categorical"})  # the header is ASCII
    message = error_of(own_data.load, data, {"kind": "categorical"})
    assert message.startswith(f"{data['csv']} line 3, byte 15: b'\\xfc' is not utf-8;")
    assert "likely data.encoding: cp1252" in message  # Windows' superset of latin-1 for printable bytes
    _, alphabet_file, provenance = own_data.load({**data, "encoding": "latin-1"}, {"kind": "categorical"})
    assert alphabet_file["categories"] == ["Bern", "Zürich"] and provenance["encoding"] == "latin-1"


def test_a_latin1_header_fails_the_header_check_with_line_1_and_its_byte(tmp_path):
    data = {"csv": write(tmp_path, "größe\n1\n", encoding="latin-1"), "column": "größe"}
    message = error_of(own_data.check_header, "k", data, {"kind": "linear", "k": 2})
    assert message.startswith(f"{data['csv']} line 1, byte 2: b'\\xf6' is not utf-8;") and "cp1252" in message
    own_data.check_header("k", {**data, "encoding": "latin-1"}, {"kind": "linear", "k": 2})


def test_a_semicolon_file_gets_the_hint_then_reads_given_or_sniffed(tmp_path):
    data = {"csv": write(tmp_path, "age;sex\n30;F\n45;M\n"), "column": "age"}
    alphabet = {"kind": "linear", "k": 100}
    message = error_of(own_data.check_header, "k", {**data, "delimiter": ","}, alphabet)
    assert message == f"{data['csv']}: no column 'age' (columns: age;sex); it looks delimited by ';': " \
        "set data.delimiter: ';'"
    assert error_of(own_data.load, {**data, "delimiter": ","}, alphabet) == message
    for given in ({"delimiter": ";"}, {}):
        secrets, _, provenance = own_data.load({**data, **given}, alphabet)
        np.testing.assert_array_equal(secrets, [30, 45])
        assert provenance["delimiter"] == ";"


def test_tabs_and_pipes_are_sniffed(tmp_path):
    for delimiter in ("\t", "|"):
        data = {"csv": write(tmp_path, f"sex{delimiter}age\nF{delimiter}30\n"), "column": "age"}
        np.testing.assert_array_equal(own_data.load(data, {"kind": "linear", "k": 100})[0], [30])


def test_quoted_fields_and_crlf_line_ends(tmp_path):
    text = 'age,name\r\n"30","Smith, J"\r\n45,"A ""B"""\r\n"",x\r\n'
    data = {"csv": write(tmp_path, text), "column": "age", "missing": "drop"}
    secrets, _, provenance = own_data.load(data, {"kind": "linear", "k": 100})
    np.testing.assert_array_equal(secrets, [30, 45])
    assert provenance["dropped"]["blank"] == 1
    _, alphabet_file, _ = own_data.load({**data, "column": "name"}, {"kind": "categorical"})
    assert alphabet_file["categories"] == ['A "B"', "Smith, J", "x"]


def test_planar_drops_records_outside_the_box(tmp_path):
    data = {"csv": write(tmp_path, "lat,lon\n0.001,0.001\n0.02,0.0\n-1,5\n0.009,0.013\n")}
    secrets, _, provenance = own_data.load(data, {**PLANAR, "outside": "drop"})
    np.testing.assert_array_equal(secrets, [0, 1])
    assert provenance["dropped"] == {"blank": 0, "not_a_number": 0, "outside": 2}
    assert provenance["columns"] == ["lat", "lon"] and provenance["records"] == 4


def test_the_header_check_reads_only_the_start_of_the_file(tmp_path):
    garbage = b"age\n30\n" + b"\xff\xfe,,,,\x00\n" * 200_000  # line 3 on: not UTF-8, not CSV
    data = {"csv": write(tmp_path, garbage), "column": "age"}
    own_data.check_header("k", data, {"kind": "linear", "k": 100})
    assert "line 3" in error_of(own_data.load, data, {"kind": "linear", "k": 100})
    long_header = {"csv": write(tmp_path, b"a" * (own_csv.HEAD_BYTES + 10), "long.csv"), "column": "age"}
    assert "no line break in the first 1,048,576 bytes" in error_of(own_data.check_header, "k", long_header,
                                                                 {"kind": "linear", "k": 100})


@pytest.mark.parametrize(("data", "alphabet", "says"), [
    ({"csv": "nowhere.csv", "column": "age"}, {"kind": "linear", "k": 9}, "nowhere.csv: no such file"),
    ({"column": "age"}, {"kind": "linear", "k": 9}, "config key s.data: give csv (and column) or builtin"),
    ({"builtin": "census", "column": "age"}, {"kind": "linear", "k": 9}, "s.data.builtin: unknown dataset 'census'"),
    ({"builtin": "adult", "column": "agee"}, {"kind": "linear", "k": 9}, "s.data.column: Adult has no column 'agee'"),
    ({"builtin": "adult"}, {"kind": "categorical"}, "a categorical alphabet needs data.column"),
    ({"builtin": "adult", "column": "age"}, {"kind": "binned", "min": 5, "max": 5, "bins": 2},
     "a binned alphabet needs alphabet.min < alphabet.max"),
    ({"builtin": "adult", "column": "age"}, {"kind": "binned", "min": 5}, "needs alphabet.max, alphabet.bins"),
])
def test_the_header_check_names_the_key_or_the_file_and_what_to_do(data, alphabet, says):
    assert says in error_of(own_data.check_header, "config key s.data", data, alphabet)


def test_an_empty_file_and_a_file_without_records(tmp_path):
    alphabet = {"kind": "linear", "k": 9}
    empty = {"csv": write(tmp_path, "", "empty.csv"), "column": "age"}
    assert error_of(own_data.check_header, "k", empty, alphabet).endswith("empty.csv: the file is empty")
    header_only = {"csv": write(tmp_path, "age\n", "header.csv"), "column": "age"}
    assert error_of(own_data.load, header_only, alphabet).endswith("header.csv: no records")
    all_dropped = {"csv": write(tmp_path, "age\n\n", "blank.csv"), "column": "age", "missing": "drop"}
    assert "no records kept" in error_of(own_data.load, all_dropped, alphabet)


ADULT_DATA = """39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K
50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K
38, Private, 215646, HS-grad, 9, Divorced, ?, Not-in-family, White, Male, 0, 0, 99, United-States, <=50K
"""  # noqa: E501
ADULT_TEST = """|1x3 Cross validator
25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.
"""


def test_builtin_adult_reads_any_column_with_question_marks_blank(tmp_path):
    files = [write(tmp_path, ADULT_DATA, "adult.data"), write(tmp_path, ADULT_TEST, "adult.test")]
    data = {"builtin": "adult", "column": "occupation"}
    message = error_of(own_data.load, data, {"kind": "categorical"}, files)
    assert message.startswith(f"{files[0]} line 3: occupation '' is blank (1 such record;")
    secrets, alphabet_file, provenance = own_data.load({**data, "missing": "drop"}, {"kind": "categorical"}, files)
    assert alphabet_file["categories"] == ["Adm-clerical", "Exec-managerial", "Machine-op-inspct"]
    np.testing.assert_array_equal(secrets, [0, 1, 2])
    assert provenance == {"source": files, "column": "occupation", "records": 4, "kept": 3,
                          "dropped": {"blank": 1, "not_a_number": 0, "outside": 0}}
    hours = {"kind": "binned", "min": 0, "max": 80, "bins": 8, "unit": "hours"}
    assert f"{files[0]} line 3: hours_per_week '99' is outside" in error_of(
        own_data.load, {"builtin": "adult", "column": "hours_per_week"}, hours, files)
    secrets, alphabet_file, _ = own_data.load({"builtin": "adult", "column": "hours_per_week"},
                                              {**hours, "outside": "drop"}, files)
    np.testing.assert_array_equal(secrets, [4, 1, 4])
    assert alphabet_file["label"] == "hours_per_week: 8 bins of 10 hours on [0, 80]"
    assert own_data.input_files(data) == ["data/raw/adult.data", "data/raw/adult.test"]


def test_the_data_table_has_one_row_per_count():
    provenance = {"records": 10, "kept": 6, "dropped": {"blank": 1, "not_a_number": 2, "outside": 1}}
    assert [row["records"] for row in own_data.table_rows(provenance)] == [10, 6, 1, 2, 1]
    assert all(set(row) == set(own_data.TABLE_COLUMNS) for row in own_data.table_rows(provenance))


@pytest.mark.filterwarnings("error")
def test_a_bad_cell_deep_in_a_large_chunk_is_found_on_its_line(tmp_path):
    cells = np.full(600_000, "30", dtype=object)
    cells[400_000], cells[500_000] = "x", ""
    data = {"csv": write(tmp_path, "age\n" + "\n".join(cells) + "\n"), "column": "age"}
    assert error_of(own_data.load, data, {"kind": "linear", "k": 100}).startswith(
        f"{data['csv']} line 400002: age 'x' is not a number (1 such record;")
    provenance = own_data.load({**data, "missing": "drop"}, {"kind": "linear", "k": 100})[2]
    assert provenance["dropped"] == {"blank": 1, "not_a_number": 1, "outside": 0} and provenance["kept"] == 599_998


@pytest.mark.parametrize(("alphabet", "says"), [
    ({**PLANAR, "cell_km": 1.0}, "the box is 2.226 km wide, which 3 columns of 1 km cover; alphabet.columns is 2"),
    ({**PLANAR, "columns": 3}, "the box is 2.226 km wide, which 2 columns of 1.2 km cover; alphabet.columns is 3"),
    ({**PLANAR, "rows": 2}, "the box is 1.106 km tall, which 1 row of 1.2 km cover; alphabet.rows is 2"),
    ({**PLANAR, "box": {**BOX, "lat_max": -1.0}}, "alphabet.box needs lat_min < lat_max"),
    ({"kind": "binned", "min": -1e308, "max": 1e308, "bins": 10}, "are not representable in float64"),
    ({"kind": "binned", "min": 1e16, "max": 1e16 + 4, "bins": 4}, "are not representable in float64"),
])
def test_an_alphabet_that_cannot_hold_its_data_is_refused_before_any_job(tmp_path, alphabet, says):
    """A grid that does not cover its box clamped every point beyond it into the edge cells (a 1 x 1 km grid in a
    111 x 88 km box: every point in the corner cell); bounds near 1e308 overflowed and every secret became -2^63."""
    data = {"csv": write(tmp_path, "lat,lon,x\n0.001,0.001,1\n"), "column": "x"}
    message = error_of(own_data.check_header, "config key s.data", data, alphabet)
    assert message.startswith("config key s.data: ") and says in message


def test_categories_decoded_with_the_wrong_single_byte_encoding_are_refused(tmp_path):
    data = {"csv": write(tmp_path, "name\n\u201cquoted\u201d\nplain\n", encoding="cp1252"), "column": "name",
            "encoding": "latin-1"}
    assert "likely cp1252, not latin-1; set data.encoding: cp1252" in error_of(own_data.load, data,
                                                                              {"kind": "categorical"})
    _, alphabet_file, _ = own_data.load({**data, "encoding": "cp1252"}, {"kind": "categorical"})
    assert alphabet_file["categories"] == ["plain", "\u201cquoted\u201d"]
