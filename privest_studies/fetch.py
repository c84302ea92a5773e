"""Fetch a raw data file: the official URL first, then a local mirror; verify it against pinned checksums, at the fetch
and again wherever it is read (``verify``).

A file is acceptable when it matches one entry of a list of accepted versions, each ``{name, kind, sha256 | md5,
size}``: the name is the file's name in the mirror directory, the kind says which format it is (for Gowalla the full
SNAP file ``snap_full`` or the San Francisco extract ``sf_box``), and every checksum or size given must match.

The mirror is optional: a directory of copies of the raw files for machines that cannot reach the official URLs. One
that does not exist is skipped (and named in the error when no source gave the file).

The URL phase fails fast: all attempts at all URLs share one time budget (``timeout`` seconds, 10 by default), which is
also the socket timeout, so an unreachable site costs at most that long before the mirror is tried. The file is written
through ``io.atomic_path``: on failure nothing is left at the target.
"""

import os
import shutil
import time
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import Any
from urllib.error import URLError

from privest_studies.files import atomic_path, file_digests, save_json


class FetchError(RuntimeError):
    """No source gave an acceptable file; the message is one line naming the file, the sources and the checksums."""


@dataclass(frozen=True)
class Accepted:
    """One acceptable version of a file: its mirror name, its format kind and its pinned checksums (hex) and size."""

    name: str
    kind: str
    sha256: str | None = None
    md5: str | None = None
    size: int | None = None

    def __post_init__(self) -> None:
        if not self.name or not self.kind:
            raise ValueError(f"an accepted file needs a name and a kind, got {self}")
        if self.sha256 is None and self.md5 is None:
            raise ValueError(f"accepted file {self.name!r} pins no checksum: give sha256 or md5")

    @classmethod
    def from_config(cls, entry: "Accepted | Mapping[str, Any]") -> "Accepted":
        """An ``Accepted`` from a config mapping ``{name, kind, sha256?, md5?, size?}``; unknown keys raise."""
        if isinstance(entry, Accepted):
            return entry
        unknown = set(entry) - {"name", "kind", "sha256", "md5", "size"}
        if unknown:
            raise ValueError(f"accepted file {dict(entry)} has unknown keys {sorted(unknown)}")
        size = entry.get("size")
        return cls(
            name=str(entry.get("name", "")),
            kind=str(entry.get("kind", "")),
            sha256=_hex(entry.get("sha256")),
            md5=_hex(entry.get("md5")),
            size=None if size is None else int(size),
        )

    def mismatches(self, digests: Mapping[str, Any]) -> list[str]:
        """What differs between this version and a file's ``io.file_digests``; empty when the file is this version."""
        wrong = []
        if self.size is not None and digests["bytes"] != self.size:
            wrong.append(f"size mismatch (got {digests['bytes']} bytes, expected {self.size})")
        for algorithm in ("sha256", "md5"):
            expected = getattr(self, algorithm)
            if expected is not None and digests[algorithm] != expected:
                wrong.append(f"{algorithm} mismatch (got {digests[algorithm]}, expected {expected})")
        return wrong

    def describe(self) -> str:
        """``name (kind) sha256 ... md5 ... N bytes``: what the error message says was expected."""
        pins = [f"{a} {getattr(self, a)}" for a in ("sha256", "md5") if getattr(self, a) is not None]
        if self.size is not None:
            pins.append(f"{self.size} bytes")
        return f"{self.name} ({self.kind}) " + " ".join(pins)


def _hex(value: Any) -> str | None:
    """A checksum from the config, lower-cased, or None."""
    return None if value is None else str(value).strip().lower()


def _matching(digests: Mapping[str, Any], accepted: Sequence[Accepted]) -> tuple[Accepted | None, list[str]]:
    """The first accepted version the file matches, or None and the reasons it matched none."""
    reasons = []
    for entry in accepted:
        wrong = entry.mismatches(digests)
        if not wrong:
            return entry, []
        reasons.append(f"as {entry.name}: " + ", ".join(wrong))
    return None, reasons


def _download(url: str, destination: Path, timeout: float) -> None:
    """Copy the body of ``url`` to ``destination``; ``timeout`` is the socket timeout in seconds."""
    with urllib.request.urlopen(url, timeout=timeout) as response, open(destination, "wb") as out:
        shutil.copyfileobj(response, out, length=1 << 20)


def _record(source: str, location: str, entry: Accepted, digests: Mapping[str, Any], tried: list[str]) -> dict:
    """The provenance of a fetched file."""
    return {
        "source": source,
        "location": location,
        "name": entry.name,
        "kind": entry.kind,
        "sha256": digests["sha256"],
        "md5": digests["md5"],
        "bytes": digests["bytes"],
        "failed_attempts": list(tried),
    }


def _try_urls(
    urls: Sequence[str],
    tmp: Path,
    accepted: Sequence[Accepted],
    timeout: float,
    attempts: int,
    backoff: float,
    tried: list[str],
) -> dict | None:
    """Try each URL up to ``attempts`` times within one budget of ``timeout`` seconds; the provenance on success."""
    deadline = time.monotonic() + timeout
    for url in urls:
        for attempt in range(1, attempts + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                tried.append(f"{url}: time budget of {timeout:g} s spent")
                return None
            try:
                _download(url, tmp, timeout=remaining)
            except (URLError, HTTPException, OSError, ValueError) as error:
                tried.append(f"{url} (attempt {attempt}): {' '.join(str(error).split())}")
                if attempt < attempts:
                    time.sleep(max(0.0, min(backoff, deadline - time.monotonic())))
                continue
            digests = file_digests(tmp)
            entry, reasons = _matching(digests, accepted)
            if entry is not None:
                return _record("url", url, entry, digests, tried)
            tried.append(f"{url}: downloaded but no accepted version matches ({'; '.join(reasons)})")
            break  # the server answered: retrying it would give the same bytes
    return None


def _try_mirror(
    mirror: str | os.PathLike | None, tmp: Path, accepted: Sequence[Accepted], tried: list[str]
) -> dict | None:
    """Copy the first accepted version found in the mirror directory that matches its own pins; the provenance."""
    if mirror is None or str(mirror) == "":
        tried.append("mirror: none configured")
        return None
    if not Path(mirror).is_dir():
        tried.append(f"mirror {mirror}: no such directory")
        return None
    for entry in accepted:
        source = Path(mirror) / entry.name
        if not source.is_file():
            tried.append(f"mirror {source}: missing")
            continue
        shutil.copyfile(source, tmp)
        digests = file_digests(tmp)
        wrong = entry.mismatches(digests)
        if not wrong:
            return _record("mirror", str(source), entry, digests, tried)
        tried.append(f"mirror {source}: " + ", ".join(wrong))
    return None


def verify(path: str | os.PathLike, accepted: Iterable[Accepted | Mapping[str, Any]]) -> Accepted:
    """The accepted version that the raw file at ``path`` is, checked again where it is read: a file changed after
    its fetch (edited, truncated, tampered with) raises ``FetchError`` in one line naming it, before anything is built
    from it. Costs one read of the file (about a second for the full SNAP check-ins)."""
    accepted = [Accepted.from_config(entry) for entry in accepted]
    entry, reasons = _matching(file_digests(path), accepted)
    if entry is None:
        raise FetchError(f"{path} is not the file that was fetched: it matches no pinned version "
                         f"({'; '.join(reasons)}); delete it to fetch it again")
    return entry


def sources(data: Mapping[str, Any], name: str) -> dict[str, list]:
    """The official URLs and the accepted versions of one raw file of config key ``data``: an Adult file (its pinned
    sha256) or the Gowalla check-ins (the full SNAP file or the mirror's extract)."""
    if name in data["adult"]["files"]:
        entry = data["adult"]["files"][name]
        return {"urls": [entry["url"]], "accepted": [{"name": name, "kind": "adult", "sha256": entry["sha256"]}]}
    if name == "gowalla_checkins":
        return {"urls": [data["gowalla"]["url"]], "accepted": list(data["gowalla"]["accepted"])}
    known = ", ".join([*data["adult"]["files"], "gowalla_checkins"])
    raise ValueError(f"no raw file {name!r}: the raw files are {known}")


def fetch(
    target: str | os.PathLike,
    accepted: Iterable[Accepted | Mapping[str, Any]],
    urls: Sequence[str] = (),
    mirror: str | os.PathLike | None = None,
    timeout: float = 10.0,
    attempts: int = 2,
    backoff: float = 1.0,
    provenance: str | os.PathLike | None = None,
) -> dict:
    """Fetch one raw file to ``target`` from ``urls`` (in order), else from ``mirror``, and verify it.

    accepted: the acceptable versions (``Accepted`` or config mappings), tried in this order in the mirror.
    timeout: seconds for the whole URL phase (all URLs, all attempts); attempts: tries per URL; backoff: seconds
    between tries. Writes the provenance (source, location, name, kind, sha256, md5, bytes, failed attempts) to
    ``provenance`` when given, and returns it. Raises ``FetchError`` with a one-line message when nothing matches.
    """
    accepted = [Accepted.from_config(entry) for entry in accepted]
    if not accepted:
        raise ValueError(f"no accepted version given for {target}")
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, got {attempts}")
    tried: list[str] = []
    with atomic_path(target) as tmp:
        record = _try_urls(list(urls), tmp, accepted, timeout, attempts, backoff, tried) if urls else None
        if record is None:
            record = _try_mirror(mirror, tmp, accepted, tried)
        if record is None:
            expected = " or ".join(entry.describe() for entry in accepted)
            raise FetchError(f"could not fetch {target}: tried {'; '.join(tried) or 'no source'}; expected {expected};"
                             " where the official URL cannot be reached, put one of these files in a directory and"
                             " name it as the mirror (config data.mirror)")
    if provenance is not None:
        save_json(provenance, record)
    return record
