"""privest_studies.fetch, io and cli: URL then mirror, checksums, one-line errors, atomic and deterministic writes."""

import hashlib
import http.server
import os
import runpy
import stat
import threading
import time
import zipfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from privest_studies import fetch, files, jobs

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
UNREACHABLE = "http://127.0.0.1:9/x"  # the discard port: nothing listens, the connection is refused at once
CONTENT = b"39, State-gov, 77516\n50, ?, 83311\n"
SF_CONTENT = b"37.7749,-122.4194\n"


class _Names(SimpleNamespace):
    """Stands in for Snakemake's named lists (attribute access and ``get``)."""

    def get(self, key: str, default: object = None) -> object:
        return getattr(self, key, default)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    directory = tmp_path / "mirror"
    directory.mkdir()
    (directory / "adult.data").write_bytes(CONTENT)
    (directory / "gowalla_sf_box_latlon.csv").write_bytes(SF_CONTENT)
    return directory


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A local HTTP server serving ``tmp_path/served``; yields its base URL."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "adult.data").write_bytes(CONTENT)
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


ADULT_ACCEPTED = [{"name": "adult.data", "kind": "adult_data", "sha256": _sha256(CONTENT), "size": len(CONTENT)}]
GOWALLA_ACCEPTED = [
    {"name": "loc-gowalla_totalCheckins.txt.gz", "kind": "snap_full", "md5": "8ebd5ed2dd376d8982987c49429cb9f9",
     "size": 105_470_044},
    {"name": "gowalla_sf_box_latlon.csv", "kind": "sf_box", "sha256": _sha256(SF_CONTENT)},
]  # fmt: skip


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


# ------------------------------------------------------------------------------------------------------------ fetch


def test_fetch_falls_back_to_the_mirror_when_the_url_is_unreachable(mirror: Path, tmp_path: Path) -> None:
    target, provenance = tmp_path / "raw" / "adult_data", tmp_path / "raw" / "adult_data.json"
    record = fetch.fetch(target, ADULT_ACCEPTED, urls=[UNREACHABLE], mirror=mirror, timeout=2, attempts=2, backoff=0,
                         provenance=provenance)  # fmt: skip
    assert target.read_bytes() == CONTENT
    assert record["source"] == "mirror" and record["location"] == str(mirror / "adult.data")
    assert record["sha256"] == _sha256(CONTENT) and record["bytes"] == len(CONTENT) and record["kind"] == "adult_data"
    assert [a.split(" (attempt")[0] for a in record["failed_attempts"]] == [UNREACHABLE, UNREACHABLE]
    assert files.load_json(provenance) == record
    assert _leftovers(target.parent) == ["adult_data", "adult_data.json"]


def test_fetch_url_phase_keeps_to_its_time_budget(mirror: Path, tmp_path: Path) -> None:
    start = time.monotonic()
    record = fetch.fetch(tmp_path / "out", ADULT_ACCEPTED, urls=[UNREACHABLE] * 3, mirror=mirror, timeout=0.3,
                         attempts=50, backoff=0.05)  # fmt: skip
    assert time.monotonic() - start < 2.0
    assert record["source"] == "mirror" and "time budget of 0.3 s spent" in record["failed_attempts"][-1]


def test_fetch_uses_the_url_when_it_answers(server: str, tmp_path: Path) -> None:
    record = fetch.fetch(tmp_path / "out", ADULT_ACCEPTED, urls=[f"{server}/missing", f"{server}/adult.data"],
                         mirror=None, timeout=5, attempts=1)  # fmt: skip
    assert record["source"] == "url" and record["location"] == f"{server}/adult.data"
    assert "404" in record["failed_attempts"][0]
    assert (tmp_path / "out").read_bytes() == CONTENT


def test_fetch_accepts_either_gowalla_version_by_its_own_checksum(mirror: Path, tmp_path: Path) -> None:
    record = fetch.fetch(tmp_path / "checkins", GOWALLA_ACCEPTED, urls=[UNREACHABLE], mirror=mirror, backoff=0)
    assert record["kind"] == "sf_box" and record["name"] == "gowalla_sf_box_latlon.csv"
    assert any("loc-gowalla_totalCheckins.txt.gz: missing" in a for a in record["failed_attempts"])


def test_fetch_accepts_by_md5_and_size(mirror: Path, tmp_path: Path) -> None:
    accepted = [{"name": "adult.data", "kind": "adult_data", "md5": hashlib.md5(CONTENT).hexdigest().upper(),
                 "size": len(CONTENT)}]  # fmt: skip
    assert fetch.fetch(tmp_path / "out", accepted, mirror=mirror)["md5"] == hashlib.md5(CONTENT).hexdigest()
    wrong_size = [{**accepted[0], "size": len(CONTENT) + 1}]
    with pytest.raises(fetch.FetchError, match="size mismatch"):
        fetch.fetch(tmp_path / "other", wrong_size, mirror=mirror)


def test_fetch_of_a_corrupted_mirror_file_fails_in_one_line_and_leaves_nothing(mirror: Path, tmp_path: Path) -> None:
    corrupted = bytearray(CONTENT)
    corrupted[5] ^= 0x01
    (mirror / "adult.data").write_bytes(bytes(corrupted))
    out = tmp_path / "raw"
    with pytest.raises(fetch.FetchError) as error:
        fetch.fetch(out / "adult_data", ADULT_ACCEPTED, urls=[UNREACHABLE], mirror=mirror, timeout=1, backoff=0,
                    provenance=out / "adult_data.json")  # fmt: skip
    message = str(error.value)
    assert "\n" not in message
    assert str(out / "adult_data") in message and str(mirror / "adult.data") in message and UNREACHABLE in message
    assert f"sha256 mismatch (got {_sha256(bytes(corrupted))}, expected {_sha256(CONTENT)})" in message
    assert _leftovers(out) == []


def test_fetch_downloads_without_a_mirror_directory(server: str, tmp_path: Path) -> None:
    """The mirror is optional: the default ../shared/datasets absent, the official URL gives the file."""
    record = fetch.fetch(tmp_path / "out", ADULT_ACCEPTED, urls=[f"{server}/adult.data"],
                         mirror=tmp_path / "no_shared" / "datasets", timeout=5, attempts=1)  # fmt: skip
    assert record["source"] == "url" and record["failed_attempts"] == []
    assert (tmp_path / "out").read_bytes() == CONTENT


def test_a_missing_mirror_directory_and_an_unreachable_url_fail_in_one_line_naming_both(tmp_path: Path) -> None:
    """No source: the message names the URL tried, the mirror directory that does not exist (not each file in it)
    and what to do, on one line."""
    absent = tmp_path / "no_shared" / "datasets"
    with pytest.raises(fetch.FetchError) as error:
        fetch.fetch(tmp_path / "raw" / "adult.data", ADULT_ACCEPTED, urls=[UNREACHABLE], mirror=absent, timeout=1,
                    attempts=1, backoff=0)  # fmt: skip
    message = str(error.value)
    assert "\n" not in message and UNREACHABLE in message
    assert f"mirror {absent}: no such directory" in message and str(absent / "adult.data") not in message
    assert message.endswith("put one of these files in a directory and name it as the mirror (config data.mirror)")
    assert _leftovers(tmp_path / "raw") == []


def test_fetch_error_names_every_accepted_version(tmp_path: Path) -> None:
    with pytest.raises(fetch.FetchError) as error:
        fetch.fetch(tmp_path / "checkins", GOWALLA_ACCEPTED, mirror=tmp_path / "nowhere")
    message = str(error.value)
    assert "md5 8ebd5ed2dd376d8982987c49429cb9f9 105470044 bytes" in message
    assert f"gowalla_sf_box_latlon.csv (sf_box) sha256 {_sha256(SF_CONTENT)}" in message
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("entry", "message"),
    [({"name": "a", "kind": "k"}, "pins no checksum"), ({"name": "a", "kind": "k", "sha1": "x"}, "unknown keys")],
)
def test_accepted_versions_are_validated(entry: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fetch.Accepted.from_config(entry)


def test_sources_name_the_urls_and_pinned_versions_of_each_raw_file() -> None:
    data = {"adult": {"files": {"adult.data": {"url": "u", "sha256": "ab"}}},
            "gowalla": {"url": "g", "accepted": GOWALLA_ACCEPTED}}
    assert fetch.sources(data, "adult.data") == {"urls": ["u"], "accepted": [{"name": "adult.data", "kind": "adult",
                                                                                "sha256": "ab"}]}
    assert fetch.sources(data, "gowalla_checkins") == {"urls": ["g"], "accepted": list(GOWALLA_ACCEPTED)}
    with pytest.raises(ValueError, match=r"no raw file 'adult\.names'"):
        fetch.sources(data, "adult.names")


def test_fetch_script_exits_with_one_line_on_failure(mirror: Path, tmp_path: Path, capsys) -> None:
    (mirror / "adult.data").write_bytes(b"tampered")
    fake = SimpleNamespace(
        params=_Names(sources={"accepted": ADULT_ACCEPTED, "urls": [UNREACHABLE]}, mirror=str(mirror), timeout=1,
                      backoff=0),
        output=_Names(file=str(tmp_path / "raw" / "adult_data"), provenance=str(tmp_path / "raw" / "p.json")),
        log=[str(tmp_path / "fetch.log")],
    )
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_path(str(SCRIPTS / "fetch.py"), init_globals={"snakemake": fake})
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("FetchError: could not fetch") and "sha256 mismatch" in err
    assert _leftovers(tmp_path / "raw") == []
    assert (tmp_path / "fetch.log").read_text().startswith("error FetchError: could not fetch")
    (mirror / "adult.data").write_bytes(CONTENT)
    runpy.run_path(str(SCRIPTS / "fetch.py"), init_globals={"snakemake": fake})
    assert files.load_json(tmp_path / "raw" / "p.json")["source"] == "mirror"


# -------------------------------------------------------------------------------------------------------------- cli


@pytest.fixture
def job_environment(monkeypatch) -> None:
    """run_or_exit sets the thread variables of its process: restored after the test."""
    for variable in (*jobs.THREAD_VARIABLES, "PRIVEST_THREADS"):
        monkeypatch.delenv(variable, raising=False)


def test_run_or_exit_returns_the_value_or_exits_with_one_line_and_logs_the_traceback(capsys, tmp_path,
                                                                                     job_environment) -> None:
    assert jobs.run_or_exit(lambda: 42) == 42

    def fails() -> None:
        raise ValueError("first line\nsecond   line")

    with pytest.raises(SystemExit) as exit_info:
        jobs.run_or_exit(fails, [str(tmp_path / "job.log")])
    assert exit_info.value.code == 1
    assert capsys.readouterr().err == "ValueError: first line second line\n"
    log = (tmp_path / "job.log").read_text()
    assert log.startswith("error ValueError: first line second line\n")
    assert "Traceback (most recent call last)" in log and "in fails" in log


def test_run_or_exit_ends_a_ctrl_c_in_one_line_with_status_130(capsys, tmp_path, job_environment) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as exit_info:
        jobs.run_or_exit(interrupted, [str(tmp_path / "job.log")])
    assert exit_info.value.code == 130
    assert capsys.readouterr().err == jobs.INTERRUPTED + "\n"
    assert (tmp_path / "job.log").read_text() == jobs.INTERRUPTED + "\n"


def test_run_or_exit_runs_the_work_on_one_blas_thread(job_environment) -> None:
    from threadpoolctl import threadpool_info

    def threads() -> list[int]:
        return [pool["num_threads"] for pool in threadpool_info()]

    assert jobs.run_or_exit(threads) == [1] * len(threads())
    assert all(os.environ[variable] == "1" for variable in jobs.THREAD_VARIABLES)
    # and GIBU's direct sums on bit-packed reports, whose default is every core
    from privest.estimators import _bits
    assert jobs.run_or_exit(_bits.threads_from_environment) == 1


# --------------------------------------------------------------------------------------------------------------- io


def test_atomic_path_leaves_nothing_on_failure_and_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "out.txt"
    with pytest.raises(RuntimeError), files.atomic_path(target) as tmp:
        tmp.write_text("partial")
        raise RuntimeError("boom")
    assert _leftovers(target.parent) == []
    target.write_text("old")
    with pytest.raises(RuntimeError), files.atomic_path(target) as tmp:
        tmp.write_text("partial")
        raise RuntimeError("boom")
    assert _leftovers(target.parent) == ["out.txt"] and target.read_text() == "old"
    with files.atomic_path(target) as tmp:
        tmp.write_text("new")
    assert _leftovers(target.parent) == ["out.txt"] and target.read_text() == "new"


def test_atomic_path_outputs_get_the_umask_permissions(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        files.save_json(tmp_path / "a.json", {})
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o644


def test_save_json_is_stable_and_rejects_what_it_cannot_write(tmp_path: Path) -> None:
    obj = {"b": np.int64(2), "a": [np.float64(0.5), np.bool_(True)], "path": tmp_path / "x"}
    files.save_json(tmp_path / "one.json", obj)
    files.save_json(tmp_path / "two.json", dict(reversed(obj.items())))
    assert (tmp_path / "one.json").read_bytes() == (tmp_path / "two.json").read_bytes()
    assert files.load_json(tmp_path / "one.json") == {"a": [0.5, True], "b": 2, "path": str(tmp_path / "x")}
    with pytest.raises(ValueError):
        files.save_json(tmp_path / "nan.json", {"x": float("nan")})
    assert not (tmp_path / "nan.json").exists() and _leftovers(tmp_path) == ["one.json", "two.json"]


def test_save_npz_round_trips_and_is_byte_identical_on_reruns(tmp_path: Path, monkeypatch) -> None:
    arrays = {"theta": np.linspace(0, 1, 7), "cells": np.arange(5, dtype=np.int64)}
    files.save_npz(tmp_path / "one.npz", **arrays)
    monkeypatch.setattr(time, "time", lambda: 1e9)  # another clock (2001): zip timestamps must not depend on it
    files.save_npz(tmp_path / "two.npz", **arrays)
    assert (tmp_path / "one.npz").read_bytes() == (tmp_path / "two.npz").read_bytes()
    loaded = files.load_npz(tmp_path / "one.npz")
    assert sorted(loaded) == ["cells", "theta"] and loaded["cells"].dtype == np.int64
    np.testing.assert_array_equal(loaded["theta"], arrays["theta"])


def test_save_npz_stores_an_array_that_hardly_deflates_and_deflates_the_others(tmp_path: Path) -> None:
    # bit-packed reports of near-random bits are stored as they are (deflate shrinks them little, slowly); zeros, a
    # small array and sparse bits are deflated; every array reads back equal, and a rerun writes the same bytes
    rng = np.random.default_rng(7)
    arrays = {"random_bits": np.packbits(rng.random((4000, 256)) < 0.4, axis=1),
              "sparse_bits": np.packbits(rng.random((4000, 256)) < 0.01, axis=1),
              "zeros": np.zeros(50_000), "small": rng.random(100), "strided": rng.random((400, 400))[:, ::2]}
    files.save_npz(tmp_path / "a.npz", **arrays)
    files.save_npz(tmp_path / "b.npz", **arrays)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    with zipfile.ZipFile(tmp_path / "a.npz") as archive:
        kinds = {info.filename: info.compress_type for info in archive.infolist()}
    assert kinds == {"random_bits.npy": zipfile.ZIP_STORED, "sparse_bits.npy": zipfile.ZIP_DEFLATED,
                     "zeros.npy": zipfile.ZIP_DEFLATED, "small.npy": zipfile.ZIP_DEFLATED,
                     "strided.npy": zipfile.ZIP_DEFLATED}
    loaded = files.load_npz(tmp_path / "a.npz")
    for key, array in arrays.items():
        np.testing.assert_array_equal(loaded[key], array)


def test_save_table_writes_fixed_floats_without_index(tmp_path: Path) -> None:
    df = pd.DataFrame({"method": ["ibu", "inv"], "n": [10, 100], "emd": [1 / 3, 2.0]})
    files.save_table(df, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text() == "method,n,emd\nibu,10,0.333333333333\ninv,100,2\n"
    pd.testing.assert_frame_equal(files.load_table(tmp_path / "t.csv"), df.assign(emd=[0.333333333333, 2.0]))


def test_verify_names_the_version_a_raw_file_is_and_rejects_a_changed_one(mirror: Path) -> None:
    checkins = mirror / "gowalla_sf_box_latlon.csv"
    assert fetch.verify(checkins, GOWALLA_ACCEPTED).kind == "sf_box"
    checkins.write_bytes(SF_CONTENT.replace(b"7", b"8", 1))
    with pytest.raises(fetch.FetchError, match=r"gowalla_sf_box_latlon.csv is not the file that was fetched: .*"
                                               r"as gowalla_sf_box_latlon.csv: sha256 mismatch") as raised:
        fetch.verify(checkins, GOWALLA_ACCEPTED)
    assert "\n" not in str(raised.value)
