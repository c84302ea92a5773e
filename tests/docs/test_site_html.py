"""The built documentation site (`make docs`: docs/site/_build/html) in headless Chromium.

Three pages, served from localhost as a web server would serve the site: the home page, the API page of
``privest.gibu`` and the gallery page of examples/quickstart.py. Each must load with no JavaScript error (uncaught
errors, unhandled rejections, console.error calls, resources that fail to load: a probe script injected at the top of
every page served records them into the page), no request the server answers with 404, every internal link of the
rendered page (its DOM after the scripts ran) pointing to a page of the site and, with a #fragment, to an element with
that id, and a screenshot that is not blank (kept in docs/site/_build/screenshots/).

A second test checks the internal links of every page of the site the same way, from the HTML files (no browser).

Inputs: PRIVEST_SITE (default docs/site/_build/html; relative to the repository root). Without Chromium
(tests/report/setup.sh installs it) the browser test skips, with the reason setup.sh wrote to the file named by
PRIVEST_REPORT_SETUP.
"""

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import cache, partial
from html import unescape
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from chromium_support import BROWSERS, browser, unavailable
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / os.environ.get("PRIVEST_SITE", "docs/site/_build/html")
SCREENSHOTS = SITE.parent / "screenshots"
WINDOW = (1400, 1000)
VIRTUAL_TIME_MS = 5_000
TIMEOUT = 120
PAGES = {
    "home": "index.html",
    "gibu": "generated/privest.gibu.html",
    "example": "auto_examples/quickstart.html",
}

# Runs first in every page served: what goes wrong while the page loads and runs, written where --dump-dom shows it.
PROBE = b"""<script>
window.__privestErrors = [];
const privestRecord = (message) => {
  __privestErrors.push(message);
  document.documentElement.setAttribute("data-privest-errors", JSON.stringify(__privestErrors));
};
addEventListener("error", (event) => privestRecord(event.message
    || `failed to load <${event.target.tagName}> ${String(event.target.src || event.target.href)}`), true);
addEventListener("unhandledrejection", (event) => privestRecord(`unhandled rejection: ${event.reason}`));
const privestConsoleError = console.error;
console.error = (...args) => { privestRecord(`console.error: ${args.join(" ")}`); privestConsoleError(...args); };
document.documentElement.setAttribute("data-privest-errors", "[]");
</script>"""


@pytest.fixture(scope="module")
def site() -> Path:
    """The built site; missing is a failure, not a skip."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site at {SITE}: run `make docs` first")
    return SITE


class Links(HTMLParser):
    """The href of every <a>, the src of every <img>, and every id, of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.images: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.hrefs.append(attributes["href"])
        if tag == "img" and attributes.get("src"):
            self.images.append(attributes["src"])


def parsed(html: str) -> Links:
    links = Links()
    links.feed(html)
    return links


@cache
def ids_of(page: str) -> frozenset[str]:
    return frozenset(parsed(Path(page).read_text(errors="replace")).ids)


@cache
def is_file(path: str) -> bool:
    return os.path.isfile(path)


def broken_links(site: Path, page: Path, html: str) -> list[str]:
    """The internal links and images of a page (html, the page at page) whose target file, or #fragment in it, does
    not exist."""
    root, here = os.path.realpath(site), os.path.dirname(os.path.realpath(page))
    broken = []
    links = parsed(html)
    for href in links.hrefs + links.images:
        parts = urlsplit(unescape(href))
        if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
            continue  # external
        target = os.path.normpath(os.path.join(here, unquote(parts.path))) if parts.path else os.path.realpath(page)
        if not is_file(target) and is_file(os.path.join(target, "index.html")):
            target = os.path.join(target, "index.html")
        if not is_file(target) or not target.startswith(root + os.sep):
            broken.append(f"{href} (no file {target})")
            continue
        if parts.fragment and target.endswith(".html") and unquote(parts.fragment) not in ids_of(target):
            broken.append(f"{href} (no id {parts.fragment!r} in {os.path.relpath(target, root)})")
    return broken


@contextmanager
def serve(site: Path) -> Iterator[tuple[str, list[str]]]:
    """Serve the site on a free localhost port, the probe injected into every HTML page; yields the base URL and the
    list of paths answered with 404."""
    missing: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def send_head(self):
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                path = path / "index.html"
            if path.suffix == ".html" and path.is_file():
                body = path.read_bytes().replace(b"<head>", b"<head>" + PROBE, 1)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return None
            return super().send_head()

        def send_error(self, code: int, *args: object, **kwargs: object) -> None:
            if code == 404 and self.path != "/favicon.ico":  # the browser asks for it of any site by itself
                missing.append(self.path)
            super().send_error(code, *args, **kwargs)

        def log_message(self, *args: object) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", missing
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def render(url: str, screenshot: Path) -> tuple[str, str]:
    """Headless Chromium on url (fresh profile, its own session, killed afterwards): the DOM after the page's
    scripts ran, and Chromium's log."""
    with tempfile.TemporaryDirectory(prefix="privest-chromium-") as scratch:
        out, err = Path(scratch) / "stdout.txt", Path(scratch) / "stderr.txt"
        command = [browser() or BROWSERS[0], "--headless=new", "--no-sandbox", "--disable-gpu",
                   f"--user-data-dir={Path(scratch) / 'profile'}", "--window-size={},{}".format(*WINDOW),
                   "--enable-logging=stderr", "--v=0", f"--virtual-time-budget={VIRTUAL_TIME_MS}", "--dump-dom",
                   f"--screenshot={screenshot}", url]
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = subprocess.Popen(command, stdout=stdout, stderr=stderr, start_new_session=True)
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"Chromium did not finish {url} within {TIMEOUT} s")
        finally:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        dom, log = out.read_text(errors="replace"), err.read_text(errors="replace")
    assert process.returncode == 0, f"Chromium failed on {url} (exit {process.returncode}):\n{log[-3000:]}"
    return dom, log


@pytest.mark.skipif(browser() is None, reason=unavailable())
@pytest.mark.parametrize("name", PAGES)
def test_page_renders_without_errors_or_broken_links(site: Path, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    screenshot = SCREENSHOTS / f"{name}.png"
    screenshot.unlink(missing_ok=True)
    with serve(site) as (base, missing):
        dom, log = render(f"{base}/{PAGES[name]}", screenshot)
    errors = re.search(r'data-privest-errors="([^"]*)"', dom)
    assert errors, f"the probe did not run in {PAGES[name]} (no data-privest-errors in the DOM)"
    errors = json.loads(unescape(errors.group(1)))
    uncaught = [line for line in log.splitlines() if ":CONSOLE" in line and ("Uncaught" in line or "ERROR" in line)]
    assert not errors and not uncaught, f"JavaScript errors in {PAGES[name]}:\n" + "\n".join(errors + uncaught)
    assert not missing, f"{PAGES[name]} requested files the site does not have: {missing}"
    broken = broken_links(site, site / PAGES[name], dom)
    assert not broken, f"broken internal links in {PAGES[name]} (rendered):\n" + "\n".join(broken)

    assert screenshot.is_file(), "Chromium wrote no screenshot"
    with Image.open(screenshot) as image:
        assert image.size == WINDOW, f"screenshot is {image.size}, not {WINDOW}"
        colours = image.convert("RGB").getcolors(maxcolors=WINDOW[0] * WINDOW[1])
    assert len(colours) > 16, f"the screenshot of {PAGES[name]} is blank ({len(colours)} colours)"


def test_no_page_of_the_site_links_to_a_missing_page_anchor_or_image(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 50, f"only {len(pages)} pages under {site}"
    broken = {str(page.relative_to(site)): found for page in pages
              if (found := broken_links(site, page, page.read_text(errors="replace")))}
    assert not broken, f"broken internal links in {len(broken)} pages:\n" + "\n".join(
        f"{page}: {links[:5]}" for page, links in sorted(broken.items())[:20])
